"""The doctor row: `viz.trace()` and `viz.explain()` (the gradient doctor) on two models.

- a 100-step minigrad RNN (RNNCell 8 -> 16, batch 4, a Linear head): its forward untraced and
  traced, taking turns, and the report on its loss;
- a 4-layer torch `nn.TransformerEncoder` (d_model 64, 4 heads, feed-forward 128, batch 8 of
  16 tokens): the same three figures.

The targets (issue 33): each report under 1 s; a traced forward at most 3x the untraced one.
"""

from __future__ import annotations

from typing import Any

import minigrad as mg
from minigrad import viz

from .harness import Context, Result, ratio

REPORT_TARGET = 1.0  # seconds
TRACE_TARGET = 3.0  # traced forward / untraced forward


def rnn_forward(steps: int) -> tuple[Any, Any]:
    """The model and a function running the RNN's forward over `steps` steps."""
    mg.manual_seed(0)
    cell, head = mg.nn.RNNCell(8, 16), mg.nn.Linear(16, 1)
    xs = mg.randn(steps, 4, 8)

    def forward() -> Any:
        hidden = mg.zeros(4, 16)
        for t in range(steps):
            hidden = cell(xs[t], hidden)
        return head(hidden).pow(2).mean()

    return cell, forward


def transformer_forward(torch: Any, layers: int) -> tuple[Any, Any]:
    """A TransformerEncoder of `layers` layers, d_model 64, and a function running its forward."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    x = torch.randn(8, 16, 64)
    return model, lambda: model(x).pow(2).mean()


def traced(forward: Any) -> Any:
    with viz.trace():
        return forward()


def doctor_case(ctx: Context, case: str, impl: str, model: Any, forward: Any) -> list[Result]:
    """Untraced and traced forward taking turns, then the report; checks against the targets."""
    plain, watched = ctx.timed_together(
        "doctor",
        case,
        [(impl, forward, "forward"), (impl, lambda: traced(forward), "forward in viz.trace()")],
    )
    loss = traced(forward)
    report = ctx.timed("doctor", case, impl, lambda: viz.explain(loss, model), "viz.explain()")
    times = ratio(watched, plain)
    seconds = report.stats()["median"]
    ctx.check(
        f"doctor {case}: traced / untraced forward {times:.2f}x (target <= {TRACE_TARGET:.0f}x, "
        f"{'met' if times <= TRACE_TARGET else 'MISSED'}); report {seconds * 1000:.1f} ms "
        f"(target < {REPORT_TARGET:.0f} s, {'met' if seconds < REPORT_TARGET else 'MISSED'})"
    )
    return [plain, watched, report]


def row_doctor(ctx: Context) -> list[Result]:
    """The gradient doctor on a minigrad RNN and, when torch is there, a TransformerEncoder."""
    smoke = ctx.settings.name == "smoke"
    steps, layers = (3, 1) if smoke else (100, 4)
    model, forward = rnn_forward(steps)
    results = doctor_case(ctx, f"RNN, {steps} steps", "minigrad", model, forward)
    case = f"TransformerEncoder, {layers} layers, d_model 64"
    if ctx.torch is None:
        return results + ctx.torch_missing("doctor", case)
    model, forward = transformer_forward(ctx.torch, layers)
    return results + doctor_case(ctx, case, "torch", model, forward)
