"""A scale factor goes through .item() and comes back through tensor(): its weights starve."""

CAUSE = "left"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 1), nn.Linear(3, 1))  # scale, head
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        s = model[0](x).mean().item()  # <- here
        factor = torch.tensor(s)
        loss = ((model[1](x) * factor - y) ** 2).mean()
    return viz.explain(loss, model)
