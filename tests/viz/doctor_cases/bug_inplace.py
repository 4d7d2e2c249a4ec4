"""An in-place change to a value sigmoid saved: backward() would raise."""

CAUSE = "inplace"
NAMES = ()


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        h = model[0](x).sigmoid()
        h.mul_(2)  # <- here
        loss = ((model[1](h) - y) ** 2).mean()
    return viz.explain(loss, model)
