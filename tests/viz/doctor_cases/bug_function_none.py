"""A custom Function whose backward returns None: the layer before it never learns."""

CAUSE = "function_none"
NAMES = ("0.weight", "0.bias")


def run(torch, nn, viz):
    class Clip(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clamp(-1.0, 1.0)

        @staticmethod
        def backward(ctx, grad):  # <- here
            return None

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with viz.trace():
        h = Clip.apply(model[0](x))
        loss = ((model[1](h) - y) ** 2).mean()
    return viz.explain(loss, model)
