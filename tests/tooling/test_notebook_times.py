"""The times the course states (each notebook's first cell, README's table, 00's map) agree with
what scripts/notebook_times.py measures from the stored notebooks, within 5 minutes."""

from __future__ import annotations

import re

import pytest

from scripts import notebook_times as times
from scripts.course import NOTEBOOKS, REPO

MEASURED = {path.stem: times.measure(path).minutes() for path in times.english_notebooks()}


def table_times(text: str) -> dict[str, int]:
    """`| \\`name\\` ... | N min |` rows of a markdown table -> {name: N}."""
    rows = re.findall(r"^\| \[?`(\d\d_\w+)`.*\| (\d+) (?:min|分钟) \|$", text, re.MULTILINE)
    return {name: int(minutes) for name, minutes in rows}


def close(stated: int, name: str) -> bool:
    return abs(stated - MEASURED[name]) <= times.TOLERANCE_MINUTES


def test_a_careful_pass_is_measured_for_every_lesson():
    assert MEASURED and all(minutes >= 5 for minutes in MEASURED.values())
    assert times.main([]) == 0


@pytest.mark.parametrize(
    "document",
    ["README.md", "README.zh-CN.md", "md/00_start_here.md", "translations/zh/00_start_here.md"],
)
def test_the_tables_state_the_measured_times(document):
    stated = table_times((REPO / document).read_text(encoding="utf-8"))
    lessons = {name for name in MEASURED if name != "12_exercises_solutions"}
    assert set(stated) == lessons, f"{document}: the table lists {sorted(stated)}"
    wrong = {
        name: (minutes, MEASURED[name])
        for name, minutes in stated.items()
        if not close(minutes, name)
    }
    assert not wrong, f"{document}: stated vs measured minutes: {wrong}"


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_each_notebook_states_its_measured_time(name):
    stated = times.stated_minutes(NOTEBOOKS / f"{name}.ipynb")
    if stated is None:
        assert "solutions" in name, f"{name} states no time"
        return
    assert close(stated, name), f"{name}: states {stated} min, measures {MEASURED[name]} min"
