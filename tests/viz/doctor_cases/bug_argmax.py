"""The loss is built on argmax (an index): the classifier gets no gradient."""

CAUSE = "integer"
NAMES = ("weight", "bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Linear(3, 4)
    x, y = torch.randn(8, 3), torch.randn(8)
    with viz.trace():
        predicted = model(x).argmax(dim=1)  # <- here
        loss = ((predicted.float() - y) ** 2).mean()
    return viz.explain(loss, model)
