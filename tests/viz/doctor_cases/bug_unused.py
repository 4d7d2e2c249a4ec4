"""A layer made in __init__ and forgotten in forward: it never learns."""

CAUSE = "unused"
NAMES = ("1.weight", "1.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 1), nn.Linear(3, 1))  # body, skip
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        loss = ((model[0](x) - y) ** 2).mean()
    return viz.explain(loss, model)
