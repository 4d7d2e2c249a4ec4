"""A hard threshold (a comparison) instead of a soft one: the gate layer never learns."""

CAUSE = "integer"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 1), nn.Linear(3, 1))  # gate, head
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        open_ = (model[0](x) > 0).float()  # <- here
        loss = ((model[1](x) * open_ - y) ** 2).mean()
    return viz.explain(loss, model)
