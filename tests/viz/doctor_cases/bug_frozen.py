"""A layer frozen by mistake (meant for a different layer), yet given to the optimizer."""

CAUSE = "frozen"
NAMES = ("2.weight", "2.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        model[2].requires_grad_(False)  # <- here
        loss = ((model(x) - y) ** 2).mean()
    return viz.explain(loss, model, optimizer)
