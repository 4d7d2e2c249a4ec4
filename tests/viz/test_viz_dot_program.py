"""What a learner sees when Graphviz's `dot` is missing, fails or hangs.

Missing: PATH is pointed at an empty directory. Failing and hanging: a small shell script
called `dot` stands in for the program, which is how these tests check our handling of a
program that exits 1 or never finishes; the picture tests elsewhere use the real `dot`.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import graphviz
import pytest

import minigrad as mg
from minigrad import viz

# the fake programs run with PATH set to an empty directory: they call tools by full path
SLEEP = shutil.which("sleep") or "/bin/sleep"
CAT = shutil.which("cat") or "/bin/cat"

INSTALL_WORDS = (
    "apt-get install graphviz",
    "conda install -c conda-forge graphviz",
    "brew install graphviz",
    "https://graphviz.org/download/",
)


def pictures():
    """A plain picture and a before/after, as a notebook cell would display them."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    names = dict(a=a, out=out, c=c)
    return viz.draw(out, names=names), viz.cut(lambda: c.zero_(), out, names=names), names


def fake_dot(directory: Path, script: str) -> None:
    """Put an executable shell script called `dot` into `directory`."""
    path = directory / "dot"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def path_without_dot(tmp_path, monkeypatch):
    """PATH is one empty directory (a shell script for `dot` may be put there)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("dot") is None
    return tmp_path


def check_last_line(error: BaseException) -> None:
    last = str(error).splitlines()[-1]
    for words in INSTALL_WORDS:
        assert words in last
    assert "viz.summary" in str(error)
    # one error, not a chain of them
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


# ---- missing --------------------------------------------------------------------------------


def test_displaying_without_dot_raises_one_error_that_says_how_to_install_it(path_without_dot):
    graph, comparison, _ = pictures()
    for show in (graph._repr_mimebundle_, comparison._repr_mimebundle_, graph._repr_image_svg_xml):
        with pytest.raises(viz.GraphvizNotFoundError) as caught:
            show()
        check_last_line(caught.value)
        assert "`dot` program is not on PATH" in str(caught.value)
    # graphviz's own class, so code that catches it keeps working
    assert issubclass(viz.GraphvizNotFoundError, graphviz.ExecutableNotFound)


def test_pipe_and_render_without_dot_raise_the_same_error(path_without_dot, tmp_path):
    graph, _, _ = pictures()
    with pytest.raises(viz.GraphvizNotFoundError) as caught:
        graph.pipe(format="png")
    check_last_line(caught.value)
    with pytest.raises(viz.GraphvizNotFoundError) as caught:
        graph.render(filename="graph", directory=tmp_path / "out", format="svg")
    check_last_line(caught.value)


def test_the_text_summary_works_without_dot(path_without_dot):
    graph, comparison, names = pictures()
    assert "SigmoidBackward0" in viz.summary(names["out"], names=names)
    assert comparison.summary().splitlines()[0] == "after c.zero_():"
    assert repr(graph).startswith("<minigrad.viz graph:")  # drawing builds DOT without dot


# ---- failing --------------------------------------------------------------------------------


def test_a_failing_dot_shows_what_it_said(path_without_dot):
    fake_dot(
        path_without_dot,
        f"{CAT} > /dev/null\necho 'Error: <stdin>: syntax error in line 3' >&2\nexit 1\n",
    )
    graph, comparison, _ = pictures()
    for show in (graph._repr_mimebundle_, comparison._repr_mimebundle_):
        with pytest.raises(viz.GraphvizFailedError) as caught:
            show()
        text = str(caught.value)
        assert "failed (exit status 1)" in text
        assert "Error: <stdin>: syntax error in line 3" in text
        check_last_line(caught.value)
        assert caught.value.stderr.strip() == "Error: <stdin>: syntax error in line 3"


def test_render_through_graphviz_reports_a_failing_dot_the_same_way(path_without_dot, tmp_path):
    fake_dot(path_without_dot, "echo 'Warning: could not load a plugin' >&2\nexit 3\n")
    graph, _, _ = pictures()
    with pytest.raises(viz.GraphvizFailedError) as caught:
        graph.render(filename="graph", directory=tmp_path / "out", format="svg")
    assert "exit status 3" in str(caught.value)
    assert "could not load a plugin" in str(caught.value)
    check_last_line(caught.value)


# ---- hanging --------------------------------------------------------------------------------


def test_a_hanging_dot_is_stopped_after_render_timeout(path_without_dot, monkeypatch):
    fake_dot(path_without_dot, f"exec {SLEEP} 60\n")
    graph, comparison, _ = pictures()
    assert graph.render_timeout == 30.0
    graph.render_timeout = 0.5
    start = time.monotonic()
    with pytest.raises(viz.GraphRenderTimeoutError, match=r"more than 0.5 s .*render_timeout"):
        graph._repr_mimebundle_()
    assert time.monotonic() - start < 10
    # set on the class, it holds for every picture
    monkeypatch.setattr(viz.Graph, "render_timeout", 0.5)
    _, comparison, _ = pictures()
    with pytest.raises(viz.GraphRenderTimeoutError):
        comparison._repr_mimebundle_()


# ---- the real program -----------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_with_the_real_dot_every_way_of_rendering_works(tmp_path):
    graph, comparison, _ = pictures()
    svg = graph._repr_image_svg_xml()
    assert svg == graph.pipe(format="svg", encoding="utf-8")
    assert graph.pipe(format="png").startswith(b"\x89PNG")
    bundle = comparison._repr_mimebundle_()[0]
    assert set(bundle) == {"image/svg+xml", "image/png", "text/html", "text/plain"}
    written = Path(graph.render(filename="graph", directory=tmp_path, format="svg"))
    assert written.read_text().count("<svg") == 1
    assert os.environ["PATH"]  # untouched by these tests
