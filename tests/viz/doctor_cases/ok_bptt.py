"""Truncated backpropagation through time: the hidden state is detached between chunks."""

PURPOSE = ("cut",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    cell = nn.RNNCell(3, 5)
    head = nn.Linear(5, 1)
    params = {
        **dict(cell.named_parameters()),
        **{"head." + k: v for k, v in head.named_parameters()},
    }
    optimizer = torch.optim.SGD(list(params.values()), lr=0.01)
    xs, ys = torch.randn(12, 4, 3), torch.randn(12, 4, 1)
    hidden = torch.zeros(4, 5)
    for start in (0, 4, 8):
        optimizer.zero_grad()
        with viz.trace():
            hidden = hidden.detach()
            loss = 0
            for t in range(start, start + 4):
                hidden = cell(xs[t], hidden)
                loss = loss + ((head(hidden) - ys[t]) ** 2).mean()
        report = viz.explain(loss, params, optimizer, details=True)
        loss.backward()
        optimizer.step()
    return report
