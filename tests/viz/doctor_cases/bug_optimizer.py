"""The optimizer is given the head's parameters only: the body gets gradients, never steps."""

CAUSE = "optimizer"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        loss = ((model(x) - y) ** 2).mean()
    return viz.explain(loss, model, optimizer)
