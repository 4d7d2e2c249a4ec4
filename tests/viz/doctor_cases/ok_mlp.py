"""A correct training step, with a logging line and an accuracy read off argmax."""

PURPOSE = ()


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    x, y = torch.randn(16, 3), torch.randint(0, 4, (16,))
    for _ in range(3):
        optimizer.zero_grad()
        with viz.trace():
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            accuracy = (logits.argmax(dim=1) == y).float().mean().item()
            print(f"loss {loss.item():.3f} accuracy {accuracy:.2f}")
        report = viz.explain(loss, model, optimizer, details=True)
        loss.backward()
        optimizer.step()
    return report
