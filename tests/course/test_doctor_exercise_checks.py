"""The checks behind notebook 13's exercises (notebooks/course_checks/doctor.py): E1 makes
weights that are leaves, E2 a gate the gradient can pass. Each check asks the gradient doctor.

As in test_lesson_exercise_checks.py: right fixes are praised, wrong ones are told what the
doctor still finds, the code as given is "No answer yet", and the stored outputs show that.
Every test runs in both feedback languages.
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

STEM = "13_your_own_model"
CHECK_OF = {
    "make_weights": (check.check_leaf_weights, "doctor-e1.solved"),
    "gate_values": (check.check_soft_gate, "doctor-e2.solved"),
}
WEIGHTS = "def make_weights():\n    {w}\n    b = mg.zeros(1, requires_grad=True)\n    return w, b\n"
GATE = "def gate_values(scores):\n    return {body}\n"

RIGHT_FIXES = [
    ("make_weights", WEIGHTS.format(w="w = (mg.randn(3, 1) * 0.01).requires_grad_()")),
    ("make_weights", WEIGHTS.format(w="w = mg.randn(3, 1).mul_(0.01).requires_grad_(True)")),
    ("gate_values", GATE.format(body="scores.sigmoid()")),
    ("gate_values", GATE.format(body="1 / (1 + (-scores).exp())")),
]
WRONG_FIXES = [
    (
        "make_weights",
        WEIGHTS.format(w="w = mg.randn(3, 1, requires_grad=True) * 0.02"),
        "doctor-e1.report",
    ),
    ("make_weights", WEIGHTS.format(w="w = mg.randn(3, 1, requires_grad=True)"), "doctor-e1.scale"),
    ("gate_values", GATE.format(body="(scores > 0).float() * 1.0"), "doctor-e2.report"),
    ("gate_values", GATE.format(body="scores.detach().sigmoid()"), "doctor-e2.report"),
    ("gate_values", GATE.format(body="scores.tanh()"), "doctor-e2.values"),
]


def define(source: str, name: str):
    """Compile a learner's cell the way the notebook does, with `mg` in scope."""
    namespace = {"mg": mg}
    exec(compile(source, f"<answer {name}>", "exec"), namespace)
    return namespace[name]


@pytest.mark.parametrize("name,source", RIGHT_FIXES)
def test_right_fixes_are_praised(capsys, name, source) -> None:
    function, praise = CHECK_OF[name]
    solved, text = run(capsys, function, define(source, name))
    assert solved and says(text, praise), text


@pytest.mark.parametrize("name,source,key", WRONG_FIXES)
def test_wrong_fixes_are_told_what_the_doctor_finds(capsys, name, source, key) -> None:
    function, _ = CHECK_OF[name]
    solved, text = run(capsys, function, define(source, name))
    assert not solved and says(text, "not-yet") and says(text, key), text


@pytest.mark.parametrize("name", sorted(CHECK_OF))
def test_the_code_as_given_is_no_answer_yet(capsys, name) -> None:
    function, _ = CHECK_OF[name]
    solved, text = run(capsys, function, given.function(name))
    assert not solved and says(text, "no-answer") and says(text, "untried"), text
    assert not says(text, "hint")


def test_the_notebook_gives_exactly_the_code_the_checks_know() -> None:
    sources = {"".join(c["source"]).strip() for c in code_cells(NOTEBOOKS / f"{STEM}.ipynb")}
    for name in given.GIVEN_IN[STEM]:
        assert given.SOURCES[name].strip() in sources, f"{STEM}.ipynb gives no {name} as given"


@pytest.mark.parametrize("folder", [NOTEBOOKS, NOTEBOOKS / "zh"], ids=["en", "zh"])
def test_stored_outputs_show_no_answer_yet(folder) -> None:
    cells = check_cells(folder / f"{STEM}.ipynb")
    assert len(cells) == 2
    if ("zh" if folder.name == "zh" else "en") != check.get_language():
        return
    for name, _, out in cells:
        assert says(out, "no-answer") and not says(out, "hint") and not says(out, "not-yet"), name
