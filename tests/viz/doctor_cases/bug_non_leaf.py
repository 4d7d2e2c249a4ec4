"""A weight scaled after creation is not a leaf: its .grad stays None."""

CAUSE = "non_leaf"
NAMES = ("w",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        w = torch.randn(3, 1, requires_grad=True) * 0.01  # <- here
        b = torch.zeros(1, requires_grad=True)
        loss = ((x @ w + b - y) ** 2).mean()
    return viz.explain(loss, dict(w=w, b=b))
