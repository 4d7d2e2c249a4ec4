"""Values copied out with .tolist() and back with tensor(...): the first layer never learns."""

CAUSE = "left"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        h = model[1](model[0](x)).tolist()  # <- here
        loss = ((model[2](torch.tensor(h)) - y) ** 2).mean()
    return viz.explain(loss, model)
