"""A frozen pretrained embedding, left out of the optimizer on purpose, under a trained head."""

PURPOSE = ("frozen",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    embedding = nn.Embedding(10, 4)
    embedding.weight.requires_grad_(False)
    head = nn.Linear(4, 1)
    model = nn.Sequential(embedding, head)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    tokens, y = torch.randint(0, 10, (8,)), torch.randn(8, 1)
    optimizer.zero_grad()
    with viz.trace():
        loss = ((model(tokens) - y) ** 2).mean()
    return viz.explain(loss, model, optimizer, details=True)
