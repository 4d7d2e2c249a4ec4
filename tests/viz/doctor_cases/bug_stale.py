"""Nothing zeroes the gradients between steps: they pile up."""

CAUSE = "stale"
NAMES = ("0.weight", "0.bias", "2.weight", "2.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for _ in range(2):
        with viz.trace():
            loss = ((model(x) - y) ** 2).mean()
        report = viz.explain(loss, model, optimizer)
        loss.backward()
        optimizer.step()
    return report
