# ruff: noqa: E501 - tables of one-line answers read better unwrapped
"""The checks behind the exercises of notebooks 09 (hooks and custom Functions) and 10
(higher-order gradients), in notebooks/course_checks/hooks.py and higher_order.py.

As in test_course_checks.py (whose helpers this file uses): every right answer is praised; every
wrong answer and wrong fix in the tables below is told "Not yet" with the message that names its
mistake (a key of notebooks/course_checks/, its text in English and in Chinese); the code as the
notebooks give it is "No answer yet", with no hint; the notebooks' stored outputs show that state.
Every test runs in both feedback languages (test_course_checks' `language` fixture, imported).
"""

from __future__ import annotations

import pytest
from test_course_checks import (  # noqa: F401 - `language`: its autouse fixture, both languages
    NOTEBOOKS,
    check,
    check_cells,
    code_cells,
    given,
    language,
    run,
    says,
)

import minigrad as mg

LESSONS = ("09_hooks_and_custom_functions", "10_higher_order_gradients")


def define(source: str, name: str):
    """Compile a learner's cell the way the notebook does, with `mg` in scope."""
    namespace = {"mg": mg}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)
    return namespace[name]


def name_of(value: object) -> str:
    """A test id that is the same in every process (no addresses); code on one line."""
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return " ".join(value.split()) if isinstance(value, str) else repr(value)


# ---- predictions: 09's E1 and E4, 10's E1 and E4 ---------------------------------------------

RIGHT_ANSWERS = [  # (check, answer, the praise)
    (check.check_reversing_hook, "A", "hooks-e1.solved"),
    (check.check_reversing_hook, " a ", "hooks-e1.solved"),
    (check.check_ctx_attribute, "C", "hooks-e4.solved"),
    (check.check_exp_saves, "b", "higher-e1.solved"),
    (check.check_detaching_pack_hook, "C", "higher-e4.solved"),
]

WRONG_ANSWERS = [  # (check, answer, the message it must give)
    (check.check_reversing_hook, "B", "hooks-e1.b"),
    (check.check_reversing_hook, "C", "hooks-e1.c"),
    (check.check_reversing_hook, "D", "choice.not-a-letter"),
    (check.check_reversing_hook, 1, "choice.not-a-letter"),
    (check.check_ctx_attribute, "A", "hooks-e4.a"),
    (check.check_ctx_attribute, "B", "hooks-e4.b"),
    (check.check_ctx_attribute, "E", "choice.not-a-letter"),
    (check.check_exp_saves, "A", "higher-e1.a"),
    (check.check_exp_saves, "C", "higher-e1.c"),
    (check.check_detaching_pack_hook, "A", "higher-e4.a"),
    (check.check_detaching_pack_hook, "B", "higher-e4.b"),
]

RAN = {  # what each prediction check reports it ran
    check.check_reversing_hook: ("hooks-e1.ran", "tensor([-17., -17.])"),
    check.check_ctx_attribute: ("hooks-e4.ran", "tensor([4., 6.])"),
    check.check_exp_saves: ("higher-e1.ran", "[2.7183, 7.3891]"),
    check.check_detaching_pack_hook: ("higher-e4.ran", "tensor([4., 6.])"),
}


@pytest.mark.parametrize("function,answer,key", RIGHT_ANSWERS, ids=name_of)
def test_right_predictions_are_praised(capsys, function, answer, key) -> None:
    solved, text = run(capsys, function, answer)
    ran, shows = RAN[function]
    assert solved and says(text, key) and says(text, ran) and shows in text, text


@pytest.mark.parametrize("function,answer,key", WRONG_ANSWERS, ids=name_of)
def test_wrong_predictions_are_told_what_is_wrong(capsys, function, answer, key) -> None:
    solved, text = run(capsys, function, answer)
    assert not solved and says(text, "not-yet") and says(text, key) and says(text, "hint"), text


@pytest.mark.parametrize("function", sorted(RAN, key=lambda f: f.__name__), ids=name_of)
def test_no_prediction_yet(capsys, function) -> None:
    solved, text = run(capsys, function, None)
    assert not solved and says(text, "no-answer") and not says(text, "hint"), text


# ---- code: 09's E2 (clip_grad) and E3 (GradientReversal), 10's E2 and E3 ---------------------


def reversal(forward: str, backward: str) -> str:
    return (
        "class GradientReversal(mg.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x, lam):\n"
        + "".join(f"        {line}\n" for line in forward.split("\n"))
        + "\n    @staticmethod\n    def backward(ctx, grad):\n"
        + "".join(f"        {line}\n" for line in backward.split("\n"))
    )


def penalty(grad_line: str, tail: str = "return (g**2).sum()") -> str:
    return (
        "def gradient_penalty(w, inputs):\n"
        "    out = (inputs @ w).tanh().sum()\n"
        + "".join(f"    {line}\n" for line in grad_line.split("\n"))
        + f"    {tail}\n"
    )


def step(body: str) -> str:
    return "def inner_step(w, loss_fn, lr):\n" + "".join(
        f"    {line}\n" for line in body.split("\n")
    )


GRAD = "(g,) = mg.autograd.grad(out, inputs, create_graph=True)"
INNER = "(g,) = mg.autograd.grad(loss_fn(w), w, create_graph=True)"

CHECK_OF = {
    "clip_grad": (check.check_clip_hook, "hooks-e2.solved"),
    "GradientReversal": (check.check_grad_reverse, "hooks-e3.solved"),
    "gradient_penalty": (check.check_gradient_penalty, "higher-e2.solved"),
    "inner_step": (check.check_inner_step, "higher-e3.solved"),
}

RIGHT_FIXES = [  # (name, source)
    ("clip_grad", "def clip_grad(grad):\n    return grad.clamp(-1.0, 1.0)\n"),
    ("clip_grad", "def clip_grad(grad):\n    return grad.clamp(min=-1, max=1)\n"),
    ("clip_grad", "def clip_grad(grad):\n    return grad.clone().clamp_(-1, 1)\n"),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.view_as(x)", "return -ctx.lam * grad, None"),
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.clone()", "return grad * -ctx.lam, None"),
    ),
    ("GradientReversal", reversal("ctx.lam = lam\nreturn x", "return -ctx.lam * grad, None")),
    ("gradient_penalty", penalty(GRAD)),
    ("gradient_penalty", penalty("g = mg.autograd.grad(out, [inputs], create_graph=True)[0]")),
    ("gradient_penalty", penalty(GRAD, "return g.pow(2).sum()")),
    ("inner_step", step(f"{INNER}\nreturn w - lr * g")),
    (
        "inner_step",
        step("g = mg.autograd.grad(loss_fn(w), [w], create_graph=True)[0]\nreturn w.sub(g * lr)"),
    ),
]

# Right answers spelled with torch names minigrad may not have yet (mg.minimum / mg.maximum,
# Tensor.square, F.hardtanh): the checks must praise them once minigrad has the names
# (test_torch_spellings_are_praised), and under torch they give the reference answer's numbers
# (tests/parity/test_exercise_answers_under_torch.py).
TORCH_SPELLINGS = [  # (name, source, the names it needs)
    (
        "clip_grad",
        "def clip_grad(grad):\n    return mg.minimum(mg.maximum(grad, mg.tensor(-1.0)), mg.tensor(1.0))\n",
        ("minimum", "maximum"),
    ),
    (
        "clip_grad",
        "def clip_grad(grad):\n    return grad.maximum(mg.tensor(-1.0)).minimum(mg.tensor(1.0))\n",
        ("Tensor.minimum", "Tensor.maximum"),
    ),
    (
        "clip_grad",
        "import minigrad.nn.functional as F\n\n\ndef clip_grad(grad):\n    return F.hardtanh(grad)\n",
        ("nn.functional.hardtanh",),
    ),
    ("gradient_penalty", penalty(GRAD, "return g.square().sum()"), ("Tensor.square",)),
]

WRONG_FIXES = [  # (name, source, the message it must give)
    # 09 E2: a hook that clips
    ("clip_grad", "def clip_grad(grad):\n    grad.clamp_(-1, 1)\n", "hooks-e2.in-place"),
    ("clip_grad", "def clip_grad(grad):\n    return grad.clamp_(-1, 1)\n", "hooks-e2.in-place"),
    ("clip_grad", "def clip_grad(grad):\n    grad.clamp(-1, 1)\n", "hooks-e2.none"),
    ("clip_grad", "def clip_grad(grad):\n    return grad.clamp(0, 1)\n", "hooks-e2.no-negatives"),
    (
        "clip_grad",
        "def clip_grad(grad):\n    return grad / grad.abs().max()\n",
        "hooks-e2.rescales",
    ),
    (
        "clip_grad",
        "def clip_grad(grad):\n    return grad.numpy().clip(-1, 1)\n",
        "hooks-e2.not-tensor",
    ),
    (
        "clip_grad",
        "def clip_grad(grad):\n    return grad.clamp(-1, 1).tolist()\n",
        "hooks-e2.not-tensor",
    ),
    ("clip_grad", "def clip_grad(grad):\n    return grad.clamp(-1, 1).sum()\n", "hooks-e2.shape"),
    ("clip_grad", "def clip_grad(grad):\n    return grad.sign()\n", "hooks-e2.values"),
    ("clip_grad", "def clip_grad(grad):\n    return max(min(grad, 1), -1)\n", "sandbox.raised"),
    ("clip_grad", "clip_grad = 0.5\n", "hooks-e2.not-callable"),
    # 09 E3: a gradient reversal layer
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.clone()", "return -grad, None"),
        "hooks-e3.not-scaled",
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.clone()", "return ctx.lam * grad, None"),
        "hooks-e3.not-reversed",
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.clone()", "return -ctx.lam * grad"),
        "hooks-e3.gradients",
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn x.clone()", "return -ctx.lam * grad, 0.0"),
        "hooks-e3.gradients",
    ),
    (
        "GradientReversal",
        reversal("ctx.save_for_backward(lam)\nreturn x.clone()", "return -grad, None"),
        "hooks-e3.saved-number",
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam\nreturn -lam * x", "return -ctx.lam * grad, None"),
        "hooks-e3.values",
    ),
    (
        "GradientReversal",
        reversal("ctx.lam = lam", "return -ctx.lam * grad, None"),
        "hooks-e3.not-tensor",
    ),
    ("GradientReversal", reversal("ctx.lam = lam\nreturn x.clone()", "pass"), "hooks-e3.gradients"),
    ("GradientReversal", "class GradientReversal:\n    pass\n", "hooks-e3.not-function"),
    # 10 E2: repair a gradient penalty
    (
        "gradient_penalty",
        penalty("(g,) = mg.autograd.grad(out, inputs, retain_graph=True)"),
        "higher-e2.no-graph",
    ),
    ("gradient_penalty", penalty(f"{GRAD}\ng = g.detach()"), "higher-e2.no-graph"),
    (
        "gradient_penalty",
        penalty("out.backward(create_graph=True)\ng = inputs.grad"),
        "higher-e2.backward-inside",
    ),
    (
        "gradient_penalty",
        penalty("(g,) = mg.autograd.grad(out, w, create_graph=True)"),
        "higher-e2.value",
    ),
    ("gradient_penalty", penalty(GRAD, "return (g**2).mean()"), "higher-e2.value"),
    # backward() inside, its traces wiped: the check's own gradient in w.grad is gone
    (
        "gradient_penalty",
        penalty(
            "out.backward(create_graph=True)\ng = inputs.grad\ninputs.grad = None\nw.grad = None"
        ),
        "higher-e2.backward-inside",
    ),
    (
        "gradient_penalty",
        penalty(
            "out.backward(create_graph=True, inputs=[inputs])\ng = inputs.grad\ninputs.grad = None"
        ),
        "higher-e2.backward-inside",
    ),
    ("gradient_penalty", penalty(f"{GRAD}\nw.grad = None"), "higher-e2.backward-inside"),
    # a NaN penalty is not "the value is right"
    (
        "gradient_penalty",
        penalty(GRAD, "return (g**2).sum() * float('nan')"),
        "higher-e2.value",
    ),
    (
        "gradient_penalty",
        penalty("(g,) = mg.autograd.grad(out, inputs)", "return (g**2).sum() * float('nan')"),
        "higher-e2.value",
    ),
    ("gradient_penalty", penalty(GRAD, "return g**2"), "higher-e2.not-scalar"),
    ("gradient_penalty", penalty(GRAD, "return ((g**2).sum()).item()"), "higher-e2.not-scalar"),
    # 10 E3: a MAML inner step
    ("inner_step", step(f"{INNER}\nreturn w - lr * g.detach()"), "higher-e3.first-order"),
    (
        "inner_step",
        step("(g,) = mg.autograd.grad(loss_fn(w), w)\nreturn w - lr * g"),
        "higher-e3.first-order",
    ),
    (
        "inner_step",
        step("(g,) = mg.autograd.grad(loss_fn(w), w, retain_graph=True)\nreturn w - lr * g"),
        "higher-e3.first-order",
    ),
    (
        "inner_step",
        step(f"{INNER}\nwith mg.no_grad():\n    w -= lr * g\nreturn w"),
        "higher-e3.changed-w",
    ),
    ("inner_step", step(f"{INNER}\nreturn w.data - lr * g.detach()"), "higher-e3.cut"),
    (
        "inner_step",
        step(f"{INNER}\nreturn (w - lr * g).detach().requires_grad_()"),
        "higher-e3.cut",
    ),
    (
        "inner_step",
        step("loss_fn(w).backward(create_graph=True)\nreturn w - lr * w.grad"),
        "higher-e3.backward-inside",
    ),
    ("inner_step", step(f"{INNER}\nreturn w - 0.1 * g"), "higher-e3.step"),
    ("inner_step", step(f"{INNER}\nreturn w + lr * g"), "higher-e3.step"),
    ("inner_step", step(f"{INNER}\nreturn w - lr * g * float('nan')"), "higher-e3.step"),
    # backward() inside, its traces wiped
    (
        "inner_step",
        step(
            "loss_fn(w).backward(create_graph=True)\ng = w.grad\nw.grad = None\nreturn w - lr * g"
        ),
        "higher-e3.backward-inside",
    ),
    ("inner_step", step(f"{INNER}\nw.grad = None\nreturn w - lr * g"), "higher-e3.backward-inside"),
    # w detached instead of g: only the path through g is left
    ("inner_step", step(f"{INNER}\nreturn w.detach() - lr * g"), "higher-e3.w-detached"),
]


@pytest.mark.parametrize("name,source", RIGHT_FIXES, ids=name_of)
def test_right_fixes_are_praised(capsys, name, source) -> None:
    function, praise = CHECK_OF[name]
    solved, text = run(capsys, function, define(source, name))
    assert solved and says(text, praise), text


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("name,source,key", WRONG_FIXES, ids=name_of)
def test_wrong_fixes_are_told_what_is_wrong(capsys, name, source, key) -> None:
    function, _ = CHECK_OF[name]
    solved, text = run(capsys, function, define(source, name))
    assert not solved and says(text, "not-yet") and says(text, key), text


def needs(names: tuple[str, ...]) -> list[str]:
    """Which of `names` ("minimum", "Tensor.square", "nn.functional.hardtanh") minigrad lacks."""
    import minigrad.nn.functional

    places = {"Tensor": mg.Tensor, "nn.functional": minigrad.nn.functional}
    missing = []
    for name in names:
        place, _, attribute = name.rpartition(".")
        if not hasattr(places.get(place, mg), attribute):
            missing.append(name)
    return missing


@pytest.mark.parametrize("name,source,names", TORCH_SPELLINGS, ids=name_of)
def test_torch_spellings_are_praised(capsys, name, source, names) -> None:
    missing = needs(names)
    if missing:
        pytest.skip(f"minigrad has no {', '.join(missing)} yet (branch engine-api adds them)")
    function, praise = CHECK_OF[name]
    solved, text = run(capsys, function, define(source, name))
    assert solved and says(text, praise), text


@pytest.mark.parametrize(
    "source",
    [
        RIGHT_FIXES[-2][1],
        step(f"{INNER}\nreturn w - lr * g.detach()"),
        step(f"{INNER}\nreturn w.detach() - lr * g"),
    ],
    ids=["right", "first-order", "w-detached"],
)
def test_meta_gradients_quoted_name_their_lr(capsys, source) -> None:
    """10 E3 checks two learning rates: every meta-gradient it quotes says which one it is for."""
    text = run(capsys, check.check_inner_step, define(source, "inner_step"))[1]
    assert "lr = 0.1" in text or "lr = 0.05" in text, text


@pytest.mark.parametrize("name", sorted(CHECK_OF))
def test_the_code_as_given_is_no_answer_yet(capsys, name) -> None:
    """Before the learner has tried, a check gives nothing away: no hint, no diagnosis."""
    function, _ = CHECK_OF[name]
    solved, text = run(capsys, function, given.function(name))
    assert not solved and says(text, "no-answer") and says(text, "untried"), text
    assert not says(text, "hint")
    # The same code with a comment added is still the code as given.
    source = given.SOURCES[name].replace("\n", "  # my note\n", 1)
    assert says(run(capsys, function, define(source, name))[1], "untried")


def test_a_check_keeps_the_callers_grad_mode_and_never_raises(capsys) -> None:
    with mg.no_grad():
        source = "def clip_grad(grad):\n    raise SystemExit\n"
        solved, text = run(capsys, check.check_clip_hook, define(source, "clip_grad"))
        assert not mg.is_grad_enabled()
    assert not solved and says(text, "sandbox.exit"), text


# ---- the notebooks ----------------------------------------------------------------------------


@pytest.mark.parametrize("stem", LESSONS)
def test_the_notebooks_give_exactly_the_code_the_checks_know(stem) -> None:
    sources = {"".join(c["source"]).strip() for c in code_cells(NOTEBOOKS / f"{stem}.ipynb")}
    for name in given.GIVEN_IN[stem]:
        assert given.SOURCES[name].strip() in sources, f"{stem}.ipynb gives no {name} as given"


@pytest.mark.parametrize("folder", [NOTEBOOKS, NOTEBOOKS / "zh"], ids=["en", "zh"])
@pytest.mark.parametrize("stem", LESSONS)
def test_stored_outputs_show_no_answer_yet(folder, stem) -> None:
    """The stored outputs (what a learner sees before running anything) give no hint away."""
    cells = check_cells(folder / f"{stem}.ipynb")
    assert len(cells) == 4
    if ("zh" if folder.name == "zh" else "en") != check.get_language():
        return
    for name, _, out in cells:
        assert says(out, "no-answer") and not says(out, "hint") and not says(out, "not-yet"), name
