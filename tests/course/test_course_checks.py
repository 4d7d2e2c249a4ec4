"""The checks behind notebook 12: right answers are praised, wrong ones are told what is wrong.

`notebooks/course_checks/` is imported the way the notebook kernel imports it (its folder on
sys.path). Every check must print and return, never raise, whatever the learner's code does.
Every test runs in both feedback languages (the `language` fixture): English, and Chinese as
the zh notebooks speak it.

The heart of this file is two tables. WRONG_ANSWERS (part A) and WRONG_FIXES (part B) list
answers a learner may plausibly give that are wrong, each with the message its check must give:
the key of a message written in notebooks/course_checks/ (`tr(key, english, ...)`), whose text
in both languages (the English in the code, the Chinese in translations/zh/course_checks.md) the
feedback must contain, any {field} matching anything. RIGHT_ANSWERS and RIGHT_FIXES list right
ones, which must be praised; so are the answers of the solutions notebook.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import shutil
import string
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))
import course_checks as check  # noqa: E402  (found through the sys.path entry above)
from course_checks import feedback, given, sandbox  # noqa: E402

from scripts import translations  # noqa: E402

PACKAGE = Path(check.__file__).parent
ENGLISH = translations.check_messages(PACKAGE)  # key -> English text
CHINESE = json.loads((PACKAGE / "zh.json").read_text(encoding="utf-8"))  # key -> Chinese text


@pytest.fixture(autouse=True, params=check.LANGUAGES)
def language(request):
    """Every test once per feedback language; English again afterwards."""
    check.set_language(request.param)
    yield request.param
    check.set_language("en")


def message(key: str) -> str:
    """The text of message `key` in the language the checks speak now, {fields} unfilled."""
    assert key in ENGLISH, f"no message {key!r} in notebooks/course_checks/"
    return CHINESE[key] if check.get_language() == "zh" else ENGLISH[key]


def flat(text: str) -> str:
    """`text` without whitespace: feedback is wrapped anywhere, even inside a Chinese phrase."""
    return "".join(text.split())


def says(text: str, key: str) -> bool:
    """Whether the feedback `text` contains message `key`, any {field} matching anything."""
    pattern = "".join(
        re.escape(flat(literal)) + (".*?" if name is not None else "")
        for literal, name, _, _ in string.Formatter().parse(message(key))
    )
    return re.search(pattern, flat(text), re.DOTALL) is not None


def run(capsys: pytest.CaptureFixture[str], function, *args) -> tuple[bool, str]:
    """Call a check; return whether it said "Well done!" and what it printed."""
    assert function(*args) is None  # a check cell shows only the printed feedback
    text = capsys.readouterr().out
    solved = says(text, "well-done")
    assert solved != (says(text, "not-yet") or says(text, "no-answer")), text
    return solved, text


# ---- part A: predict, then run ---------------------------------------------------------------

RIGHT_ANSWERS = [
    (check.check_version, 1),
    (check.check_version, 1.0),
    (check.check_version, np.int64(1)),
    (check.check_numpy_error, "B"),
    (check.check_numpy_error, " b "),
    (check.check_data_zero, "B"),
    (check.check_new_leaf, {"c"}),
    (check.check_new_leaf, ["c"]),
    (check.check_new_leaf, "c"),
    (check.check_detach_inplace, "C"),
]

WRONG_ANSWERS = [  # (check, answer, the message it must give)
    (check.check_version, 0, "a1.zero"),
    (check.check_version, 2, "a1.other"),
    (check.check_version, "1", "a1.text"),
    (check.check_version, 1.5, "a1.not-whole"),
    (check.check_version, True, "a1.not-whole"),
    (check.check_numpy_error, "A", "a2.a"),
    (check.check_numpy_error, "C", "a2.c"),
    (check.check_numpy_error, "x.numpy()", "choice.not-a-letter"),
    (check.check_data_zero, "A", "a3.a"),
    (check.check_data_zero, "C", "a3.c"),
    (check.check_data_zero, 2, "choice.not-a-letter"),
    (check.check_new_leaf, {"a", "c"}, "a4.too-many"),
    (check.check_new_leaf, {"out", "c"}, "a4.too-many"),
    (check.check_new_leaf, {"a"}, "a4.no-c"),
    (check.check_new_leaf, set(), "a4.no-c"),
    (check.check_new_leaf, {"C"}, "a4.unknown"),
    (check.check_new_leaf, 5, "a4.not-a-set"),
    (check.check_detach_inplace, "A", "a5.a"),
    (check.check_detach_inplace, "B", "a5.b"),
]


def name_of(value: object) -> str:
    """A test id that is the same in every process (no addresses, no set order)."""
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)


PREDICTION_CHECKS = [
    check.check_version,
    check.check_numpy_error,
    check.check_data_zero,
    check.check_new_leaf,
    check.check_detach_inplace,
]


@pytest.mark.parametrize("function,answer", RIGHT_ANSWERS, ids=name_of)
def test_right_predictions_are_praised(capsys, function, answer) -> None:
    solved, text = run(capsys, function, answer)
    assert solved and flat(text).count(flat(message("well-done"))) == 1, text
    ran = {c.__name__: f"a{i}.ran" for i, c in enumerate(PREDICTION_CHECKS, start=1)}
    assert says(text, ran[function.__name__])  # it also shows what really happens


@pytest.mark.parametrize("function,answer,key", WRONG_ANSWERS, ids=name_of)
def test_wrong_predictions_are_told_what_is_wrong(capsys, function, answer, key) -> None:
    solved, text = run(capsys, function, answer)
    assert not solved and says(text, "not-yet") and says(text, key), text


@pytest.mark.parametrize("function", PREDICTION_CHECKS, ids=lambda f: f.__name__)
def test_no_prediction_yet(capsys, function) -> None:
    solved, text = run(capsys, function, None)
    assert not solved and says(text, "no-answer") and says(text, "unanswered"), text
    assert not says(text, "not-yet")  # nothing is given away before the learner answers


# ---- part B: repair a training loop ----------------------------------------------------------

CHECK_OF = {
    "B1": check.check_loss_accumulation,
    "B2": check.check_weight_decay,
    "B3": check.check_gan_d_step,
    "B4": check.check_weight_log,
    "B5": check.check_tbptt,
    "B6": check.check_eval_loop,
}
GIVEN_OF = {
    "B1": "train_epoch",
    "B2": "train_step",
    "B3": "d_step",
    "B4": "record_weights",
    "B5": "train_rnn",
    "B6": "fit",
}


@dataclass(frozen=True)
class Fix:
    """An attempt at a part B exercise: the given function with `old` replaced by `new`."""

    exercise: str
    old: str
    new: str

    before: Fix | None = None  # an edit made first, for an attempt that changes two places

    def source(self) -> str:
        if self.before is None:
            source = given.SOURCES[GIVEN_OF[self.exercise]]
        else:
            source = self.before.source()
        assert source.count(self.old) == 1, f"{self.exercise}: {self.old!r} is not in it once"
        return source.replace(self.old, self.new)

    def then(self, old: str, new: str) -> Fix:
        """This attempt, then a second edit."""
        return Fix(self.exercise, old, new, self)

    def function(self):
        """The learner's function, defined as a notebook cell defines it."""
        name = GIVEN_OF[self.exercise]
        namespace = {"mg": mg, "F": F, "nn": nn, "optim": optim, "np": np}
        exec(compile(self.source(), f"<{self.exercise} attempt>", "exec"), namespace)
        return namespace[name]

    def __str__(self) -> str:
        first = f"{self.before}; " if self.before else f"{self.exercise}: "
        return f"{first}{self.old.strip()!r} -> {self.new.strip()!r}"


# Lines of the given functions that the fixes below change.
B1_ADD, B1_RETURN = "        total = total + loss\n", "    return total / len(batches)\n"
B2_SHRINK = "    w.data.mul_(0.9)  # weight decay: shrink w by 10 %\n"
B2_STEP = "    loss.backward()\n    with mg.no_grad():\n        w.sub_(lr * w.grad)\n"
B3_D_LOSS = "D(fake), mg.zeros(16, 1)"
B3_BACKWARD = "    loss.backward()\n"
B4_LOG = "        history.append(w.numpy())\n"
B5_CHUNK = "        loss = 0.0\n"
B5_STEP = "            h = cell(xs[t : t + 1], h)\n"
B6_LOOP = """\
    with mg.no_grad():  # validation needs no graph ...
        for x, y in batches:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            val_losses.append(F.mse_loss(model(val_x), val_y).item())
"""


def b6(validation: str, step: str = "", before: str = "", after: str = "") -> str:
    """fit's loop without the outer no_grad: `step` and `validation` as written (8 spaces in)."""
    return (
        "    for x, y in batches:\n"
        + before
        + (step or "        loss = F.mse_loss(model(x), y)\n")
        + "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n"
        + validation
        + after
    )


VALIDATE = "        val_losses.append(F.mse_loss(model(val_x), val_y).item())\n"
VALIDATE_NO_GRAD = (
    "        with mg.no_grad():\n"
    "            val_losses.append(F.mse_loss(model(val_x), val_y).item())\n"
)

WRONG_FIXES = [  # (the attempt, the message its check must give)
    # B1: the graphs must be freed batch by batch, not when the epoch ends
    (Fix("B1", B1_RETURN, "    return (total / len(batches)).detach()\n"), "b1.lingering"),
    (Fix("B1", B1_RETURN, "    return (total / len(batches)).item()\n"), "b1.lingering"),
    (Fix("B1", B1_RETURN, "    return float(total / len(batches))\n"), "b1.lingering"),
    (
        Fix(
            "B1",
            "    for x, y in batches:\n",
            "    for i in range(len(batches)):\n        x, y = batches[i]\n",
        ).then(B1_RETURN, "    return (total / len(batches)).detach()\n"),
        "b1.lingering",
    ),
    (
        Fix(
            "B1",
            B1_ADD + B1_RETURN,
            "        total = total + loss\n        total = total * 1\n"
            "    return (total / len(batches)).item()\n",
        ),
        "b1.lingering",
    ),
    (
        Fix("B1", B1_ADD + B1_RETURN, "        total += loss.item()\n    return total\n"),
        "b1.wrong-value",
    ),
    (
        Fix("B1", B1_ADD + B1_RETURN, "        total = loss.item()\n    return total\n"),
        "b1.wrong-value",
    ),
    (
        Fix(
            "B1",
            B1_ADD + B1_RETURN,
            '        total += loss.item()\n    return f"{total / 4:.4f}"\n',
        ),
        "b1.not-a-number",
    ),
    (
        Fix("B1", "        opt.step()\n" + B1_ADD, "        total += loss.item()\n"),
        "b1.training-changed",
    ),
    (
        Fix(
            "B1",
            "        loss = F.mse_loss(model(x), y)\n",
            "        loss = F.mse_loss(model(x), y).detach()\n",
        ),
        "sandbox.raised",
    ),
    # B2: the gradient at the weights of the forward pass, one step and one shrink of w itself
    (Fix("B2", B2_SHRINK, "    with mg.no_grad():\n        w.mul_(0.9)\n"), "b2.version-error"),
    (Fix("B2", B2_SHRINK, "    w.detach().mul_(0.9)\n"), "b2.version-error"),
    (Fix("B2", B2_SHRINK, "    w.data = w.data * 0.9\n"), "b2.given-gradient"),
    (Fix("B2", B2_SHRINK, ""), "b2.no-shrink"),
    (Fix("B2", B2_SHRINK + B2_STEP, B2_STEP + "    w = w * 0.9\n"), "b2.no-shrink"),
    (
        Fix(
            "B2", B2_SHRINK + "    loss.backward()\n", "    loss.backward()\n    w.grad.mul_(0.9)\n"
        ),
        "b2.wrong-gradient",
    ),
    (Fix("B2", B2_SHRINK, "    loss = loss + 0.05 * (w**2).sum()\n"), "b2.wrong-gradient"),
    (
        Fix("B2", B2_SHRINK + B2_STEP, B2_STEP + "        w.mul_(0.9)\n        w.mul_(0.9)\n"),
        "b2.wrong-update",
    ),
    # B3: no gradient may reach G, D takes its step, fake stays connected to G
    (Fix("B3", "    fake = G(z)\n", "    fake = G(z).detach()\n"), "b3.fake-cut"),
    (
        Fix("B3", "    fake = G(z)\n", "    with mg.no_grad():\n        fake = G(z)\n"),
        "b3.fake-cut",
    ),
    (Fix("B3", "    fake = G(z)\n", "    fake = G(z)\n    fake.detach_()\n"), "b3.fake-cut"),
    (Fix("B3", B3_BACKWARD, B3_BACKWARD + "    G.zero_grad()\n"), "b3.g-reached"),
    (
        Fix("B3", B3_BACKWARD, "    loss.backward(retain_graph=True)\n    G.zero_grad()\n"),
        "b3.g-reached",
    ),
    (
        Fix(
            "B3",
            "    fake = G(z)\n",
            "    fake = G(z)\n    for p in G.parameters():\n        p.requires_grad_(False)\n",
        ),
        "b3.g-reached",
    ),
    (Fix("B3", "    return fake\n", "    return fake.detach()\n"), "b3.g-has-grad"),
    (Fix("B3", B3_D_LOSS, "D(fake.detach()), mg.ones(16, 1)"), "b3.d-wrong-step"),
    (
        Fix("B3", " + bce(D(fake), mg.zeros(16, 1))", ""),
        "b3.d-wrong-step",
    ),
    (
        Fix(
            "B3",
            B3_D_LOSS + ")\n    loss.backward()\n    opt_D.step()\n",
            "D(fake.detach()), mg.zeros(16, 1))\n    loss.backward()\n",
        ),
        "b3.d-untrained",
    ),
    # B4: snapshots, as numpy arrays or numbers, after each of the three steps
    (Fix("B4", "w.numpy()", "w.detach().numpy()"), "b4.shares-memory"),
    (Fix("B4", "w.numpy()", "w.data.numpy()"), "b4.shares-memory"),
    (Fix("B4", "w.numpy()", "np.asarray(w.detach())"), "b4.shares-memory"),
    (
        Fix("B4", B4_LOG, "        with mg.no_grad():\n            history.append(w.numpy())\n"),
        "b4.shares-memory",
    ),
    (Fix("B4", "w.numpy()", "w"), "b4.w-itself"),
    (Fix("B4", "w.numpy()", "w.clone()"), "b4.tensor-with-graph"),
    (Fix("B4", "w.numpy()", "w.detach()"), "b4.tensor-shares-memory"),
    (Fix("B4", "w.numpy()", "w.data"), "b4.tensor-shares-memory"),
    (Fix("B4", "w.numpy()", "w.detach().clone()"), "b4.tensor"),
    (Fix("B4", "w.numpy()", "w.item"), "b4.not-values"),
    (
        Fix(
            "B4",
            "        loss = ((w - 2.0) ** 2).sum()\n        opt.zero_grad()\n"
            "        loss.backward()\n        opt.step()\n" + B4_LOG,
            "        history.append(w.item())\n        loss = ((w - 2.0) ** 2).sum()\n"
            "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n",
        ),
        "b4.before-steps",
    ),
    (
        Fix(
            "B4",
            B4_LOG + "    return history\n",
            "    history.append(w.item())\n    return history\n",
        ),
        "b4.count",
    ),
    # B5: h keeps its value from chunk to chunk, and its history only within a chunk
    (Fix("B5", B5_CHUNK, "        h = mg.zeros(1, cell.hidden_size)\n" + B5_CHUNK), "b5.restarted"),
    (Fix("B5", B5_CHUNK, "        h = h.detach() * 0\n" + B5_CHUNK), "b5.restarted"),
    (
        Fix("B5", B5_STEP, "            h = cell(xs[t : t + 1], h.detach())\n"),
        "b5.cut-inside-chunk",
    ),
    (Fix("B5", B5_STEP, B5_STEP + "            h = h.detach()\n"), "b5.cut-inside-chunk"),
    (
        Fix("B5", "        loss.backward()\n", "        loss.backward(retain_graph=True)\n"),
        "b5.retained",
    ),
    (
        Fix(
            "B5",
            "        losses.append(loss.item())\n",
            "        losses.append(loss)\n        h = h.detach()\n",
        ),
        "b5.losses-keep-graphs",
    ),
    (Fix("B5", "        opt.step()\n", "        h = h.detach()\n"), "b5.untrained"),
    # B6: training records its graph, validation records none, one loss after each step
    (Fix("B6", B6_LOOP, b6(VALIDATE)), "b6.validation-recorded"),
    (
        Fix(
            "B6",
            B6_LOOP,
            b6("        val_losses.append(F.mse_loss(model(val_x), val_y).detach().item())\n"),
        ),
        "b6.validation-recorded",
    ),
    (
        Fix(
            "B6",
            B6_LOOP,
            b6("        val_losses.append(F.mse_loss(model(val_x.detach()), val_y).item())\n"),
        ),
        "b6.validation-recorded",
    ),
    (
        Fix("B6", B6_LOOP, b6("        model.eval()\n" + VALIDATE + "        model.train()\n")),
        "b6.validation-recorded",
    ),
    (
        Fix(
            "B6",
            "        for x, y in batches:\n",
            "        for x, y in batches:\n            mg.set_grad_enabled(True)\n",
        ),
        "b6.validation-recorded",
    ),
    (
        Fix(
            "B6",
            "    with mg.no_grad():  # validation needs no graph ...\n",
            "    with mg.set_grad_enabled(False):\n",
        ),
        "b6.training-not-recorded",
    ),
    (
        Fix("B6", B6_LOOP, b6("        mg.set_grad_enabled(False)\n" + VALIDATE)),
        "b6.training-not-recorded",
    ),
    (
        Fix(
            "B6",
            B6_LOOP,
            b6(
                "        mg.set_grad_enabled(False)\n" + VALIDATE,
                before="        mg.set_grad_enabled(True)\n",
            ),
        ),
        "b6.left-off",
    ),
    (
        Fix("B6", "            loss.backward()\n", "            loss.detach().backward()\n"),
        "b6.training-not-recorded",
    ),
    (
        Fix(
            "B6",
            B6_LOOP,
            b6(VALIDATE_NO_GRAD).replace(
                "        loss.backward()", "        loss.detach().backward()"
            ),
        ),
        "b6.loss-cut",
    ),
    (Fix("B6", B6_LOOP, b6("", before=VALIDATE_NO_GRAD)), "b6.before-step"),
]

RIGHT_FIXES = [
    Fix("B1", B1_ADD, "        total += loss.item()\n"),
    Fix("B1", B1_ADD, "        total = total + loss.item()\n"),
    Fix("B1", B1_ADD, "        total = total + loss.detach()\n"),
    Fix("B1", B1_ADD, "        total = (total + loss).detach()\n"),
    Fix("B2", B2_SHRINK + B2_STEP, B2_STEP + "        w.mul_(0.9)\n"),
    Fix(
        "B2",
        B2_SHRINK + B2_STEP,
        "    loss.backward()\n    with mg.no_grad():\n"
        "        w.mul_(0.9)\n        w.sub_(lr * w.grad)\n",
    ),
    Fix("B2", B2_SHRINK + "    loss.backward()\n", "    loss.backward()\n" + B2_SHRINK),
    Fix(
        "B2",
        "    loss = ((x * w - y) ** 2).mean() + (w**2).sum()\n" + B2_SHRINK,
        "    with mg.no_grad():\n        w.mul_(0.9)\n"
        "    loss = ((x * w - y) ** 2).mean() + (w**2).sum()\n",
    ),
    Fix("B3", B3_D_LOSS, "D(fake.detach()), mg.zeros(16, 1)"),
    Fix("B3", B3_D_LOSS, "D(fake.clone().detach()), mg.zeros(16, 1)"),
    Fix("B3", B3_D_LOSS, "D(fake.data), mg.zeros(16, 1)"),
    Fix("B4", "w.numpy()", "w.detach().numpy().copy()"),
    Fix("B4", "w.numpy()", "w.data.numpy().copy()"),
    Fix("B4", "w.numpy()", "w.item()"),
    Fix("B4", "w.numpy()", "w.tolist()"),
    Fix("B4", "w.numpy()", "float(w)"),
    Fix("B4", "w.numpy()", "np.array(w.detach())"),
    Fix("B5", B5_CHUNK, "        h = h.detach()\n" + B5_CHUNK),
    Fix("B5", "        opt.step()\n", "        opt.step()\n        h = h.detach()\n"),
    Fix("B5", B5_CHUNK, "        h.detach_()\n" + B5_CHUNK),
    Fix("B5", B5_CHUNK, "        h = h.clone().detach()\n" + B5_CHUNK),
    Fix("B6", B6_LOOP, b6(VALIDATE_NO_GRAD)),
    Fix(
        "B6",
        B6_LOOP,
        b6("        with mg.inference_mode():\n" + VALIDATE.replace("        ", "            ", 1)),
    ),
    Fix(
        "B6",
        B6_LOOP,
        b6(
            "        mg.set_grad_enabled(False)\n"
            + VALIDATE
            + "        mg.set_grad_enabled(True)\n"
        ),
    ),
    Fix(
        "B6",
        "            loss = F.mse_loss(model(x), y)\n",
        "            with mg.enable_grad():\n                loss = F.mse_loss(model(x), y)\n",
    ),
]


@pytest.mark.parametrize("fix,key", WRONG_FIXES, ids=lambda v: str(v) if isinstance(v, Fix) else v)
def test_wrong_fixes_are_told_what_is_wrong(capsys, fix, key) -> None:
    solved, text = run(capsys, CHECK_OF[fix.exercise], fix.function())
    assert not solved and says(text, "not-yet") and says(text, key), text


@pytest.mark.parametrize("fix", RIGHT_FIXES, ids=str)
def test_right_fixes_are_praised(capsys, fix) -> None:
    solved, text = run(capsys, CHECK_OF[fix.exercise], fix.function())
    assert solved and says(text, f"{fix.exercise.lower()}.solved"), text


@pytest.mark.parametrize("exercise", sorted(CHECK_OF))
def test_the_function_as_given_is_no_answer_yet(capsys, exercise) -> None:
    """Before the learner has tried, a check gives nothing away: no hint, no diagnosis."""
    solved, text = run(capsys, CHECK_OF[exercise], given.function(GIVEN_OF[exercise]))
    assert not solved and says(text, "no-answer") and says(text, "untried"), text
    assert not says(text, "hint")
    # The same code with a comment added is still the function as given.
    source = given.SOURCES[GIVEN_OF[exercise]].replace("\n", "  # my note\n", 1)
    namespace = {"mg": mg, "F": F, "nn": nn, "optim": optim}
    exec(compile(source, "<cell>", "exec"), namespace)
    assert says(run(capsys, CHECK_OF[exercise], namespace[GIVEN_OF[exercise]])[1], "untried")


def test_b2_praise_notes_a_shrink_the_version_counter_did_not_see(capsys) -> None:
    fix = Fix("B2", B2_SHRINK + "    loss.backward()\n", "    loss.backward()\n" + B2_SHRINK)
    assert says(run(capsys, check.check_weight_decay, fix.function())[1], "b2.solved-uncounted")
    fix = RIGHT_FIXES[4]
    assert not says(run(capsys, check.check_weight_decay, fix.function())[1], "b2.solved-uncounted")


# ---- the notebooks ----------------------------------------------------------------------------


def code_cells(path: Path) -> list[dict]:
    return [
        c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
    ]


def check_cells(path: Path) -> list[tuple[str, str, str]]:
    """(check name, argument name, stored stdout) of every check cell of a notebook."""
    found = []
    for cell in code_cells(path):
        call = re.fullmatch(r"check\.(check_\w+)\((\w+)\)", "".join(cell["source"]).strip())
        if call:
            out = "".join(
                "".join(o.get("text", "")) for o in cell["outputs"] if o.get("name") == "stdout"
            )
            found.append((call.group(1), call.group(2), out))
    return found


def answers(path: Path) -> dict[str, object]:
    """The learner's answers a notebook defines: its `prediction_...` and `def` cells, run."""
    namespace = {"mg": mg, "F": F, "nn": nn, "optim": optim}
    for cell in code_cells(path):
        source = "".join(cell["source"])
        if source.startswith(("prediction_", "def ", "class ")):
            exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


def test_the_exercises_notebook_gives_exactly_the_given_functions() -> None:
    sources = {"".join(c["source"]).strip() for c in code_cells(NOTEBOOKS / "12_exercises.ipynb")}
    for name in given.GIVEN_IN["12_exercises"]:
        source = given.SOURCES[name]
        assert source.strip() in sources, f"12_exercises.ipynb has no cell defining {name} as given"


@pytest.mark.parametrize("folder", [NOTEBOOKS, NOTEBOOKS / "zh"], ids=["en", "zh"])
def test_stored_outputs_of_the_exercises_show_no_answer_yet(folder, language) -> None:
    """The stored outputs (what a learner sees before running anything) give no hint away."""
    speaks = "zh" if folder.name == "zh" else "en"
    cells = check_cells(folder / "12_exercises.ipynb")
    assert len(cells) == 11
    for name, _, out in cells:
        if speaks != language:
            continue
        assert says(out, "no-answer") and not says(out, "hint") and not says(out, "not-yet"), name


@pytest.mark.parametrize("folder", [NOTEBOOKS, NOTEBOOKS / "zh"], ids=["en", "zh"])
def test_stored_outputs_of_the_solutions_are_all_praise(folder, language) -> None:
    speaks = "zh" if folder.name == "zh" else "en"
    cells = check_cells(folder / "12_exercises_solutions.ipynb")
    assert len(cells) == 11 + 8  # 12's exercises, then 09's and 10's
    if speaks == language:
        assert all(says(out, "well-done") for _, _, out in cells), cells


@pytest.mark.parametrize(
    "name,solved", [("12_exercises", False), ("12_exercises_solutions", True)], ids=str
)
def test_the_notebooks_answers_as_the_checks_judge_them_now(capsys, name, solved) -> None:
    """Run each notebook's answers through the checks: every solution is praised, and every
    exercise as given is 'No answer yet'."""
    path = NOTEBOOKS / f"{name}.ipynb"
    namespace = answers(path)
    cells = check_cells(path)
    assert len(cells) == (11 + 8 if solved else 11)  # the solutions: 09's and 10's too
    for check_name, argument, _ in cells:
        got, text = run(capsys, getattr(check, check_name), namespace[argument])
        assert got is solved, (check_name, text)


# ---- never raising ----------------------------------------------------------------------------

LOOP_CHECKS = list(CHECK_OF.values())


class Unprintable:
    """A learner's object whose __str__ and __repr__ both fail."""

    def __repr__(self) -> str:
        raise RuntimeError("repr fails")

    __str__ = __repr__


class UnprintableError(Exception):
    """An exception whose message cannot be turned into text."""

    def __str__(self) -> str:
        raise ValueError("str fails")


def raises_value_error(*args):
    raise ValueError("oops")


def raises_unprintable(*args):
    raise UnprintableError()


def calls_exit(*args):
    sys.exit(3)


def raises_base_exception(*args):
    raise GeneratorExit("unusual")


def returns_unprintable(*args):
    return Unprintable()


def returns_endless(*args):
    return itertools.count()


def turns_grad_off_and_fails(*args):
    mg.set_grad_enabled(False)
    raise ValueError("after switching grad mode off")


BAD_FUNCTIONS = [
    raises_value_error,
    raises_unprintable,
    calls_exit,
    raises_base_exception,
    returns_unprintable,
    returns_endless,
    turns_grad_off_and_fails,
    None,
    "not a function",
]
BAD_PREDICTIONS = [Unprintable(), itertools.repeat("a"), float("nan"), -1, True, b"B", ["A"]]


@pytest.fixture(params=[True, False], ids=["grad-on", "grad-off"])
def grad_mode(request):
    """Run the test with grad mode on and off in the caller; restore it on for other tests."""
    mg.set_grad_enabled(request.param)
    yield request.param
    mg.set_grad_enabled(True)


def assert_not_yet(capsys, function, answer, mode) -> str:
    assert function(answer) is None
    text = capsys.readouterr().out
    assert says(text, "not-yet") or says(text, "no-answer"), text
    assert not says(text, "well-done")
    assert mg.is_grad_enabled() is mode  # the caller's mode comes back
    return text


@pytest.mark.parametrize("function", LOOP_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("answer", BAD_FUNCTIONS, ids=lambda a: getattr(a, "__name__", str(a)))
def test_loop_checks_survive_bad_answers(capsys, grad_mode, function, answer) -> None:
    text = assert_not_yet(capsys, function, answer, grad_mode)
    if answer is calls_exit:
        assert says(text, "sandbox.exit")
    if answer is raises_unprintable:
        assert "UnprintableError" in text and says(text, "error.unprintable")
    if answer is raises_value_error:
        assert says(text, "sandbox.raised") and "ValueError: oops" in text


@pytest.mark.parametrize("function", PREDICTION_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("answer", BAD_PREDICTIONS, ids=lambda a: type(a).__name__)
def test_prediction_checks_survive_bad_answers(capsys, grad_mode, function, answer) -> None:
    assert_not_yet(capsys, function, answer, grad_mode)


@pytest.mark.parametrize("fix", [f for f in RIGHT_FIXES if f.exercise in ("B1", "B6")], ids=str)
def test_right_answers_pass_whatever_the_callers_grad_mode(capsys, grad_mode, fix) -> None:
    """A `set_grad_enabled(False)` left over in the notebook must not fail a correct answer."""
    assert CHECK_OF[fix.exercise](fix.function()) is None
    assert says(capsys.readouterr().out, "well-done")
    assert mg.is_grad_enabled() is grad_mode


def test_a_hanging_answer_is_cut_off(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "TIME_LIMIT", 0.2)
    release = threading.Event()

    def hangs(*args):
        release.wait(30)  # stands for an endless loop, without burning a core in the test

    try:
        text = assert_not_yet(capsys, check.check_loss_accumulation, hangs, True)
    finally:
        release.set()
    assert says(text, "sandbox.timeout") and says(text, "sandbox.timeout-hint")
    assert flat("0.2") in flat(text)


def test_the_learner_can_still_interrupt(capsys) -> None:
    def interrupted(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check.check_tbptt(interrupted)
    assert mg.is_grad_enabled()


# ---- the two languages ------------------------------------------------------------------------

FEEDBACK_CALLS = {"say", "solved", "not_yet", "no_answer"}
CHINESE_CHARACTER = re.compile(r"[\u4e00-\u9fff]")


def _calls(name: str | None = None) -> list[tuple[str, ast.Call]]:
    """(file name, call) of every call in the package (of `name` only, if given)."""
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (
                name is None or getattr(node.func, "id", None) == name
            ):
                found.append((path.name, node))
    return found


def _bare_words(node: ast.AST) -> list[ast.Constant]:
    """String literals under `node` that are words but not inside a tr(...) call."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tr":
        return []
    if isinstance(node, ast.Constant):
        # A word, not code such as ".grad = " (an attribute after a dot is code).
        words = isinstance(node.value, str) and re.search(r"(?<![.\w])[A-Za-z]{3,}", node.value)
        return [node] if words else []
    return [found for child in ast.iter_child_nodes(node) for found in _bare_words(child)]


def test_every_message_is_written_once_in_english_under_a_key(language) -> None:
    calls = _calls("tr")
    assert len(calls) > 120  # every check's messages, not a handful
    seen: dict[str, str] = {}
    for file, call in calls:
        where = f"course_checks/{file} line {call.lineno}"
        key, english = call.args[:2] if len(call.args) >= 2 else (None, None)
        assert isinstance(key, ast.Constant) and isinstance(english, ast.Constant), (
            f"{where}: tr(key, english, **fields) with both as plain string literals"
        )
        assert len(call.args) == 2, f"{where}: the values go in as keyword fields"
        assert not CHINESE_CHARACTER.search(english.value), f"{where}: the text is not English"
        assert seen.setdefault(key.value, english.value) == english.value, (
            f"{where}: the key {key.value} already names another message"
        )
        given_fields = {k.arg for k in call.keywords}
        assert set(translations.fields(english.value)) <= given_fields, (
            f"{where}: a {{field}} is missing"
        )
    for file, call in _calls():
        if getattr(call.func, "id", None) in FEEDBACK_CALLS:
            bare = [n for arg in call.args for n in _bare_words(arg)]
            assert not bare, f"course_checks/{file} line {call.lineno}: text outside tr(...)"


def test_every_message_has_its_chinese_with_the_same_fields(language) -> None:
    status = translations.main(["check", translations.CHECKS])
    assert status == 0
    for key, english in ENGLISH.items():
        assert CHINESE_CHARACTER.search(CHINESE[key]) or key == "choice.not-a-letter-hint", key
        assert translations.fields(CHINESE[key]) == translations.fields(english), key


@pytest.fixture
def messages_copy(tmp_path: Path) -> translations.Paths:
    """The checks and their translation file, copied into a course of its own."""
    layout = translations.Paths.of(tmp_path)
    shutil.copytree(PACKAGE, layout.checks, ignore=shutil.ignore_patterns("__pycache__"))
    layout.translations.mkdir(parents=True)
    shutil.copy(
        REPO / "translations" / "zh" / "course_checks.md", layout.translation("course_checks")
    )
    return layout


def test_translations_check_fails_on_a_changed_or_new_message(messages_copy, capsys) -> None:
    assert translations.main(["check", "course_checks"], paths=messages_copy) == 0
    module = messages_copy.checks / "predictions.py"
    text = module.read_text(encoding="utf-8")
    module.write_text(
        text.replace('"e.g. prediction_a1 = 0"', '"for example prediction_a1 = 0"').replace(
            'tr("a2.runs", "runs")', 'tr("a2.runs-fine", "runs")'
        ),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert translations.main(["check", "course_checks"], paths=messages_copy) == 1
    out = capsys.readouterr().out
    assert (
        "English message a1.text-hint of notebooks/course_checks/ changed since it was translated"
        in out
    )
    assert "English message a2.runs-fine of notebooks/course_checks/ has no block" in out
    assert "block a2.runs belongs to no English message (orphan)" in out
    # The fix the messages name: todo shows the text, update adds the block, accept stamps it.
    translations.main(["update", "course_checks"], paths=messages_copy)
    translations.main(["todo", "course_checks"], paths=messages_copy)
    assert "for example prediction_a1 = 0" in capsys.readouterr().out
    translations.main(
        ["accept", "course_checks", "a1.text-hint", "a2.runs-fine"], paths=messages_copy
    )
    translations.main(["build", "course_checks"], paths=messages_copy)
    assert translations.main(["check", "course_checks"], paths=messages_copy) == 0


def test_translations_check_fails_on_other_fields_or_a_stale_catalogue(
    messages_copy, capsys
) -> None:
    path = messages_copy.translation("course_checks")
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("out._version 是 {actual}（", "out._version 是 {actaul}（", 1),
        encoding="utf-8",
    )
    assert translations.main(["check", "course_checks"], paths=messages_copy) == 1
    out = capsys.readouterr().out
    assert "block a1.ran fills in ['actaul', 'c_version']" in out
    assert (
        "notebooks/course_checks/zh.json is not what translations/zh/course_checks.md says" in out
    )


def test_the_language_can_be_set_per_module_and_per_call(capsys, language) -> None:
    other = "en" if language == "zh" else "zh"
    check.check_version(1, lang=other)
    text = capsys.readouterr().out
    assert ("Well done!" if other == "en" else "做得好！") in text
    assert check.get_language() == language  # one call's language does not stick
    with pytest.raises(ValueError, match="unknown feedback language 'fr'; choose one of en, zh"):
        check.set_language("fr")
    with pytest.raises(ValueError, match="unknown feedback language"):
        check.check_version(1, lang="fr")


def test_the_zh_folder_imports_the_same_checks_in_chinese(language) -> None:
    """notebooks/zh/course_checks.py: the zh notebooks' `import course_checks` speaks Chinese."""
    program = (
        "import course_checks as check; print(check.__file__, check.get_language()); "
        "check.check_version(1); check.check_loss_accumulation(None)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=NOTEBOOKS / "zh",
        capture_output=True,
        text=True,
        check=True,
    )
    first, *feedback_lines = done.stdout.splitlines()
    assert first == f"{PACKAGE / '__init__.py'} zh"
    assert "做得好！" in "".join(feedback_lines) and "还没对：" in "".join(feedback_lines)


def test_chinese_feedback_breaks_between_characters_not_inside_code() -> None:
    text = (
        "还没对：train_epoch 返回了 tensor(2.8022, grad_fn=<DivBackward0>)。"
        "它带有 grad_fn，所以仍然指向每个批次的计算图："
        "只要这个结果还在，4 个 MseLossBackward0 节点（每个批次一个）就一直存活。"
    )
    lines = feedback.wrap_zh(text, 40).split("\n")
    assert len(lines) > 2
    # Only punctuation that may not start a line hangs past the width.
    assert all(feedback.columns(line.rstrip("，。：；！？）、")) <= 40 for line in lines)
    assert not any(line[0] in "，。：；！？）、" for line in lines)
    # An opening bracket never ends a line: it goes down with what it opens.
    opened = feedback.wrap_zh("训练步骤是在关闭记录的状态下运行的（在 no_grad 里）", 36)
    assert opened.split("\n") == ["训练步骤是在关闭记录的状态下运行的", "（在 no_grad 里）"]
    # Nothing is lost or split: the lines joined again give the text, code words whole.
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert any("grad_fn=<DivBackward0>)" in line for line in lines)
