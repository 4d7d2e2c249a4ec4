"""A learned temperature turned into a Python float: its parameter gets no gradient."""

CAUSE = "left"
NAMES = ("temperature",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    temperature = torch.ones(1, requires_grad=True)
    w = torch.randn(3, 1, requires_grad=True)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        t = float(temperature.exp())  # <- here
        loss = ((x @ w / t - y) ** 2).mean()
    return viz.explain(loss, dict(temperature=temperature, w=w))
