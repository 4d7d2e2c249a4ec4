"""Features computed under inference_mode, then trained on: the feature layer never learns."""

CAUSE = "inference_mode"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        with torch.inference_mode():  # <- here
            h = model[1](model[0](x))
        loss = ((model[2](h.clone()) - y) ** 2).mean()
    return viz.explain(loss, model)
