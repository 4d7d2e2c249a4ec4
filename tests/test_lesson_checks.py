# ruff: noqa: E501 - tables of one-line answers read better unwrapped
"""notebooks/lesson_checks.py, the exercise checks of 09_hooks_and_custom_functions and
09_higher_order_gradients: each right answer gets
"Well done!", each wrong fix in the tables below gets "Not yet:" with the message that names its
mistake, the code as the notebook gives it gets "No answer yet:", in both languages."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import minigrad as mg

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = [
    REPO / "notebooks" / "09_hooks_and_custom_functions.ipynb",
    REPO / "notebooks" / "09_higher_order_gradients.ipynb",
]


def load_checks() -> Any:
    spec = importlib.util.spec_from_file_location(
        "lesson_checks", REPO / "notebooks" / "lesson_checks.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["lesson_checks"] = module
    spec.loader.exec_module(module)
    return module


check = load_checks()


def define(source: str, name: str) -> Any:
    """Compile a learner's cell the way the notebook does, with `mg` in scope."""
    namespace: dict[str, Any] = {"mg": mg}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)  # noqa: S102 - test sources
    return namespace[name]


def feedback(capsys: pytest.CaptureFixture[str], run: Any, *args: Any, lang: str = "en") -> str:
    run(*args, lang=lang)
    return capsys.readouterr().out


# ---- predictions: hooks E1 and E4, higher-order E1 and E4 -----------------------------------

E1 = [
    # (the prediction, how the feedback starts, what it must say)
    (None, "No answer yet:", '"A", "B" or "C"'),
    ("B", "Well done!", "x.grad = 3 - 2 = 1"),
    (" b ", "Well done!", "x.grad = 3 - 2 = 1"),
    ("A", "Not yet:", "5 is x.grad without the hook"),
    ("C", "Not yet:", "3 is what b.detach()"),
    ("D", "Not yet:", "is not one of A, B, C"),
    (1, "Not yet:", "is not one of A, B, C"),
]


@pytest.mark.parametrize(("prediction", "start", "expected"), E1)
def test_e1_predictions(capsys, prediction, start, expected):
    out = feedback(capsys, check.check_reversing_hook, prediction)
    if isinstance(prediction, str) and prediction.strip().upper() in "ABC":
        assert out.startswith("Ran it: x.grad = tensor([1., 1.])"), out
        out = out.split("\n", 1)[1]
    assert out.startswith(start) and expected in " ".join(out.split()), out


PREDICTIONS = [
    # (the check, the right letter, what it ran, what a wrong letter is told, per letter)
    (
        check.check_ctx_attribute,
        "C",
        "x.grad = tensor([4., 6.])",
        {
            "A": "there is no error. Only tensors kept with ctx.save_for_backward",
            "B": "does ctx.x = x copy anything?",
        },
    ),
    (
        check.check_exp_saves,
        "B",
        "ExpBackward0 saved 1 value",
        {"A": "exp keeps only its result", "C": "one value is enough"},
    ),
    (
        check.check_copying_pack_hook,
        "B",
        "x.grad = tensor([2., 4.])",
        {
            "A": "the saved tensors here are clones",
            "C": "backward reads the copies the pack hook made",
        },
    ),
]


@pytest.mark.parametrize(
    ("run", "right", "ran", "wrong"), PREDICTIONS, ids=lambda v: getattr(v, "__name__", "")
)
def test_the_other_predictions(capsys, run, right, ran, wrong):
    assert feedback(capsys, run, None).startswith("No answer yet:")
    assert "is not one of A, B, C" in feedback(capsys, run, "E")
    out = feedback(capsys, run, right.lower())
    assert out.startswith("Ran it:") and ran in out and "\nWell done!" in out, out
    for letter, message in wrong.items():
        out = " ".join(feedback(capsys, run, letter).split())
        assert "Not yet:" in out and message in out and "Hint:" in out, out


# ---- E2: clip_grad -------------------------------------------------------------------------

CLIP_RIGHT = [
    "def clip_grad(grad):\n    return grad.clamp(-1.0, 1.0)\n",
    "def clip_grad(grad):\n    return grad.clamp(min=-1, max=1)\n",
    "def clip_grad(grad):\n    return grad.clone().clamp_(-1, 1)\n",
]

CLIP_WRONG = [
    # (the learner's function, the start of what the check must say about it)
    (
        "def clip_grad(grad):\n    grad.clamp_(-1, 1)\n",
        "clip_grad changed the gradient it received in place",
    ),
    (
        "def clip_grad(grad):\n    return grad.clamp_(-1, 1)\n",
        "clip_grad changed the gradient it received in place",
    ),
    ("def clip_grad(grad):\n    grad.clamp(-1, 1)\n", "clip_grad returned None"),
    (
        "def clip_grad(grad):\n    return grad.clamp(0, 1)\n",
        "negative values came out as 0 or positive",
    ),
    ("def clip_grad(grad):\n    return grad / grad.abs().max()\n", "it rescales every value"),
    (
        "def clip_grad(grad):\n    return grad.numpy().clip(-1, 1)\n",
        "returned a ndarray, not a tensor",
    ),
    (
        "def clip_grad(grad):\n    return grad.clamp(-1, 1).tolist()\n",
        "returned a list, not a tensor",
    ),
    (
        "def clip_grad(grad):\n    return grad.clamp(-1, 1).sum()\n",
        "a hook must keep the gradient's shape",
    ),
    ("def clip_grad(grad):\n    return grad.sign()\n", "clipping gives"),
    ("def clip_grad(grad):\n    return max(min(grad, 1), -1)\n", "running your code raised"),
    ("clip_grad = 0.5\n", "is 0.5, not a function"),
]


@pytest.mark.parametrize("source", CLIP_RIGHT)
def test_e2_right_answers(capsys, source):
    out = feedback(capsys, check.check_clip_hook, define(source, "clip_grad"))
    assert out.startswith("Well done!"), out


@pytest.mark.parametrize(("source", "expected"), CLIP_WRONG)
def test_e2_wrong_fixes(capsys, source, expected):
    out = feedback(capsys, check.check_clip_hook, define(source, "clip_grad"))
    assert out.startswith("Not yet:") and expected in " ".join(out.split()), out


# ---- E3: GradientReversal ------------------------------------------------------------------


def reversal(forward: str, backward: str) -> str:
    return (
        "class GradientReversal(mg.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x, lam):\n"
        + "".join(f"        {line}\n" for line in forward.split("\n"))
        + "\n    @staticmethod\n    def backward(ctx, grad):\n"
        + "".join(f"        {line}\n" for line in backward.split("\n"))
    )


REVERSE_RIGHT = [
    reversal("ctx.lam = lam\nreturn x.view_as(x)", "return -ctx.lam * grad, None"),
    reversal("ctx.lam = lam\nreturn x.clone()", "return grad * -ctx.lam, None"),
    reversal("ctx.lam = lam\nreturn x", "return -ctx.lam * grad, None"),
]

REVERSE_WRONG = [
    (
        reversal("ctx.lam = lam\nreturn x.clone()", "return -grad, None"),
        "reversed but not scaled by lam",
    ),
    (
        reversal("ctx.lam = lam\nreturn x.clone()", "return ctx.lam * grad, None"),
        "scaled but not reversed",
    ),
    (
        reversal("ctx.lam = lam\nreturn x.clone()", "return -ctx.lam * grad"),
        "backward returns one value per input",
    ),
    (
        reversal("ctx.lam = lam\nreturn x.clone()", "return -ctx.lam * grad, 0.0"),
        "backward returns one value per input",
    ),
    (
        reversal("ctx.save_for_backward(lam)\nreturn x.clone()", "return -grad, None"),
        "save_for_backward is for tensors",
    ),
    (
        reversal("ctx.lam = lam\nreturn -lam * x", "return -ctx.lam * grad, None"),
        "the layer must not change the values",
    ),
    (reversal("ctx.lam = lam", "return -ctx.lam * grad, None"), "forward must return a tensor"),
    (reversal("ctx.lam = lam\nreturn x.clone()", "pass"), "backward returns one value per input"),
    ("class GradientReversal:\n    pass\n", "is not a subclass of mg.autograd.Function"),
]


@pytest.mark.parametrize("source", REVERSE_RIGHT)
def test_e3_right_answers(capsys, source):
    out = feedback(capsys, check.check_grad_reverse, define(source, "GradientReversal"))
    assert out.startswith("Well done!"), out


@pytest.mark.parametrize(("source", "expected"), REVERSE_WRONG)
def test_e3_wrong_fixes(capsys, source, expected):
    out = feedback(capsys, check.check_grad_reverse, define(source, "GradientReversal"))
    assert out.startswith("Not yet:") and expected in " ".join(out.split()), out


# ---- E4: gradient_penalty ------------------------------------------------------------------


def penalty(grad_line: str, tail: str = "return (g**2).sum()") -> str:
    return (
        "def gradient_penalty(w, inputs):\n"
        "    out = (inputs @ w).tanh().sum()\n"
        + "".join(f"    {line}\n" for line in grad_line.split("\n"))
        + f"    {tail}\n"
    )


PENALTY_RIGHT = [
    penalty("(g,) = mg.autograd.grad(out, inputs, create_graph=True)"),
    penalty("g = mg.autograd.grad(out, [inputs], create_graph=True)[0]"),
    penalty("(g,) = mg.autograd.grad(out, inputs, create_graph=True)", "return g.pow(2).sum()"),
]

PENALTY_WRONG = [
    (
        penalty("(g,) = mg.autograd.grad(out, inputs, retain_graph=True)"),
        "the penalty has no graph",
    ),
    (
        penalty("(g,) = mg.autograd.grad(out, inputs, create_graph=True)\ng = g.detach()"),
        "the penalty has no graph",
    ),
    (penalty("out.backward(create_graph=True)\ng = inputs.grad"), "it calls backward() inside"),
    (
        penalty("(g,) = mg.autograd.grad(out, w, create_graph=True)"),
        "with respect to inputs (not w)",
    ),
    (
        penalty("(g,) = mg.autograd.grad(out, inputs, create_graph=True)", "return (g**2).mean()"),
        "with respect to inputs (not w)",
    ),
    (
        penalty("(g,) = mg.autograd.grad(out, inputs, create_graph=True)", "return g**2"),
        "it must return a 0-d tensor",
    ),
    (
        penalty(
            "(g,) = mg.autograd.grad(out, inputs, create_graph=True)",
            "return ((g**2).sum()).item()",
        ),
        "it must return a 0-d tensor",
    ),
]


@pytest.mark.parametrize("source", PENALTY_RIGHT)
def test_e4_right_answers(capsys, source):
    out = feedback(capsys, check.check_gradient_penalty, define(source, "gradient_penalty"))
    assert out.startswith("Well done!"), out


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize(("source", "expected"), PENALTY_WRONG)
def test_e4_wrong_fixes(capsys, source, expected):
    out = feedback(capsys, check.check_gradient_penalty, define(source, "gradient_penalty"))
    assert out.startswith("Not yet:") and expected in " ".join(out.split()), out


# ---- E5: inner_step ------------------------------------------------------------------------


def step(body: str) -> str:
    return "def inner_step(w, loss_fn, lr):\n" + "".join(
        f"    {line}\n" for line in body.split("\n")
    )


INNER_RIGHT = [
    step("(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn w - lr * g"),
    step("g = mg.autograd.grad(loss_fn(w), [w], create_graph=True)[0]\nreturn w.sub(g * lr)"),
]

INNER_WRONG = [
    (
        step(
            "(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn w - lr * g.detach()"
        ),
        "first-order MAML's",
    ),
    (step("(g,) = mg.autograd.grad(loss_fn(w), w)\nreturn w - lr * g"), "first-order MAML's"),
    (
        step("(g,) = mg.autograd.grad(loss_fn(w), w, retain_graph=True)\nreturn w - lr * g"),
        "first-order MAML's",
    ),
    (
        step(
            "(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nwith mg.no_grad():\n    w -= lr * g\nreturn w"
        ),
        "inner_step changed w itself",
    ),
    (
        step(
            "(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn w.data - lr * g.detach()"
        ),
        "the adapted weight has no grad_fn",
    ),
    (
        step(
            "(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn (w - lr * g).detach().requires_grad_()"
        ),
        "the adapted weight has no grad_fn",
    ),
    (
        step("loss_fn(w).backward(create_graph=True)\nreturn w - lr * w.grad"),
        "it calls backward() inside",
    ),
    (
        step("(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn w - 0.1 * g"),
        "with lr = 0.05, inner_step returned",
    ),
    (
        step("(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)\nreturn w + lr * g"),
        "one SGD step from w = 0.5",
    ),
]


@pytest.mark.parametrize("source", INNER_RIGHT)
def test_e5_right_answers(capsys, source):
    out = feedback(capsys, check.check_inner_step, define(source, "inner_step"))
    assert out.startswith("Well done!"), out


@pytest.mark.parametrize(("source", "expected"), INNER_WRONG)
def test_e5_wrong_fixes(capsys, source, expected):
    out = feedback(capsys, check.check_inner_step, define(source, "inner_step"))
    assert out.startswith("Not yet:") and expected in " ".join(out.split()), out


# ---- as given, in both languages, and the notebook's cells --------------------------------

CHECKS = {
    "clip_grad": check.check_clip_hook,
    "GradientReversal": check.check_grad_reverse,
    "gradient_penalty": check.check_gradient_penalty,
    "inner_step": check.check_inner_step,
}


@pytest.mark.parametrize("name", sorted(CHECKS))
@pytest.mark.parametrize(("lang", "start"), [("en", "No answer yet:"), ("zh", "还没有作答：")])
def test_the_code_as_given_is_no_answer_yet(capsys, name, lang, start):
    out = feedback(capsys, CHECKS[name], define(check.GIVEN[name], name), lang=lang)
    assert out.startswith(start), out


def test_chinese_feedback_for_a_wrong_and_a_right_answer(capsys):
    out = feedback(capsys, check.check_reversing_hook, "A", lang="zh")
    assert "还没对：" in out and "提示：" in out and "Not yet" not in out
    out = feedback(capsys, check.check_clip_hook, define(CLIP_RIGHT[0], "clip_grad"), lang="zh")
    assert out.startswith("做得好！"), out
    assert all(len(line) <= check.WIDTH for line in out.splitlines())


def test_the_notebooks_give_exactly_the_code_the_checks_know():
    sources = set()
    for notebook in NOTEBOOKS:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        sources |= {"".join(c["source"]).rstrip("\n") for c in cells if c["cell_type"] == "code"}
    for name, given in check.GIVEN.items():
        assert given.rstrip("\n") in sources, f"no notebook gives {name} as {given!r} any more"


def test_a_check_restores_nothing_it_should_not_and_never_raises(capsys):
    with mg.no_grad():
        check.check_clip_hook(define("def clip_grad(grad):\n    raise SystemExit\n", "clip_grad"))
        assert not mg.is_grad_enabled()
    assert capsys.readouterr().out.startswith("Not yet: running your code raised SystemExit")
