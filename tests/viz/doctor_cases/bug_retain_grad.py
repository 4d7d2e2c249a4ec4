"""Reading .grad of a hidden value that is not a leaf, without retain_grad()."""

CAUSE = "retain_grad"
NAMES = ("hidden",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        hidden = model[1](model[0](x))
        loss = ((model[2](hidden) - y) ** 2).mean()
    return viz.explain(loss, dict(hidden=hidden, **dict(model.named_parameters())))
