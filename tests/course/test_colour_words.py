"""The notebooks' prose never points at something by its colour alone (WCAG 1.4.1, issue 34).

A learner who cannot tell red from green, or hears the page read aloud, cannot find "the red
node". A sentence may still say a colour, as long as it also names the thing by a mark that
needs no colour: a line style or border ("dashed"), a label quoted as the picture shows it
("labelled `cut by out.detach_()`", "the note `register_hook(...)`"), or what it is ("error
boxes"). Checked in the markdown of every notebook, English and Chinese.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

COLOURS = re.compile(
    r"\b(?:red|blue|green|orange|grey|gray|yellow|purple|pink|violet|teal|cyan|brown|faded|"
    r"greyed|reddened)\b"
    r"|[红蓝绿橙灰黄紫粉青棕]色|变红|标红|变灰|变淡|淡色",
    re.IGNORECASE,
)
# what names the thing besides its colour: a line style or border, a label quoted right after
# the word that introduces it, or the kind of thing it is
NAMED = re.compile(
    r"\b(?:dashed|dotted|bold|border|bar)\b|虚线|点线|粗线|边框"
    r"|\b(?:labell?ed|note|marked|reads)\s+`|(?:标着|注释|写着)\s*`"
    r"|\berror\b|报错",
    re.IGNORECASE,
)
# a sentence ends at . ! ? followed by a space or line end (not the dots of `a.grad`), or at
# a Chinese full stop, exclamation or question mark
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def markdown_sentences() -> list[tuple[str, str]]:
    """(where, sentence) for every sentence of every notebook's markdown cells."""
    found = []
    paths = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "zh").glob("*.ipynb"))
    for path in paths:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for number, cell in enumerate(cells):
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            where = f"{path.relative_to(NOTEBOOKS)} cell {number}"
            found += [(where, s) for s in SENTENCE_END.split(text) if s.strip()]
    return found


def colour_only(sentence: str) -> bool:
    """Whether `sentence` says a colour without naming the thing by another mark."""
    return bool(COLOURS.search(sentence)) and not NAMED.search(sentence)


@pytest.mark.parametrize(
    ("sentence", "alone"),
    [
        ("The picture shows their graph ending at the cut, in red.", True),
        ("hands it to the hook (the red note in the picture).", True),
        ("The faded nodes are the old graph.", True),
        ("图中它们的计算图在切断处结束，用红色标出。", True),
        ("变淡的节点是旧的计算图。", True),
        ("the arrow into `out` is cut (red, dashed).", False),
        ("a red arrow into a note labelled `cut: .detach()`.", False),
        ("the note `register_hook(lambda g: g * 0)`, in red", False),
        ("红色虚线，标着 `被 out.detach_() 切断`", False),
        ("**Red error boxes on purpose:** some cells are meant to fail.", False),
        ("它然后才把它换成零（白算了一遍）。", False),  # 白 here means "in vain"
    ],
)
def test_the_rule_tells_a_colour_alone_from_a_named_mark(sentence, alone):
    assert colour_only(sentence) is alone


def test_no_notebook_prose_names_a_thing_by_colour_alone():
    sentences = markdown_sentences()
    assert len(sentences) > 1000  # the notebooks were found, in both languages
    assert any("zh/" in where for where, _ in sentences)
    found = [f"{where}: {' '.join(s.split())}" for where, s in sentences if colour_only(s)]
    assert found == [], "name the thing by its shape, line style or label too:\n" + "\n".join(found)
