"""Keep every notebook paired with a MyST markdown file that a reviewer can read in a diff.

jupytext.toml pairs ``notebooks/<path>.ipynb`` with ``md/<path>.md`` (subfolders mirrored, so
notebooks/extra/a.ipynb would go with md/extra/a.md). The .ipynb keeps the outputs that nbval
compares and JupyterLab shows; the .md holds the same cells as text, without outputs, and lives
outside notebooks/ so that learners in JupyterLab never see a second copy.

The Chinese notebooks (notebooks/zh/) are the exception: they have no twin. They are generated
by scripts/translations.py from the English notebook and translations/zh/<stem>.md, and that
translation file is their readable form (notebooks/zh/jupytext.toml turns pairing off there).

    python -m scripts.notebook_pairs check [PATH ...]   fail when a pair differs (make test,
                                                        pre-commit); default: every notebook
    python -m scripts.notebook_pairs sync [PATH ...]    bring pairs in line (see cells_come_from
                                                        for which side gives the cells)
    python -m scripts.notebook_pairs sync --from-notebooks   rewrite every .md from its notebook
                                                        (after merging branches)

PATH may be a notebook, a paired .md file or a folder (searched recursively).
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
from jupytext.cli import jupytext as jupytext_cli
from jupytext.config import load_jupytext_config

from scripts import course

# Module constants (not course.REPO at each use) so that tests can point them at a copy.
REPO = course.REPO
NOTEBOOKS = course.NOTEBOOKS
MARKDOWN = REPO / "md"
# Generated notebooks without an md/ twin (see the module docstring).
UNPAIRED = ("zh",)
TEXT_FORMAT = "md:myst"
DIFF_LINES = 16  # how much of a unified diff a failure shows


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (how messages name files)."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def is_paired(notebook: Path) -> bool:
    """Whether ``notebook`` belongs to the course (under notebooks/) and so has a .md twin;
    the generated zh notebooks do not."""
    path = notebook.resolve()
    if not path.is_relative_to(NOTEBOOKS):
        return False
    return not any(path.is_relative_to(NOTEBOOKS / folder) for folder in UNPAIRED)


def md_for(notebook: Path) -> Path:
    """The markdown file paired with ``notebook`` (notebooks/a/b.ipynb -> md/a/b.md)."""
    relative = notebook.resolve().relative_to(NOTEBOOKS)
    return (MARKDOWN / relative).with_suffix(".md")


def notebook_for(md: Path) -> Path:
    """The notebook paired with the markdown file ``md`` (md/a/b.md -> notebooks/a/b.ipynb)."""
    relative = md.resolve().relative_to(MARKDOWN)
    return (NOTEBOOKS / relative).with_suffix(".ipynb")


def find_pairs(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """The notebooks named by ``paths`` (a .md names its notebook), and .md files without one."""
    notebooks: set[Path] = set()
    orphans: set[Path] = set()
    for path in paths:
        path = path.resolve()
        if path.is_dir():
            candidates = list(path.rglob("*.ipynb")) + list(path.rglob("*.md"))
        else:
            candidates = [path]
        for candidate in candidates:
            if course.is_checkpoint(candidate):
                continue
            if candidate.suffix == ".ipynb" and is_paired(candidate):
                notebooks.add(candidate)
            elif candidate.suffix == ".md" and candidate.is_relative_to(MARKDOWN):
                notebook = notebook_for(candidate)
                (notebooks if notebook.exists() else orphans).add(notebook)
    return sorted(notebooks), sorted(md_for(nb) for nb in orphans)


def expected_text(notebook: Path) -> str:
    """The .md text jupytext writes for ``notebook`` with the project's jupytext.toml."""
    config = load_jupytext_config(str(notebook))
    return jupytext.writes(jupytext.read(notebook), fmt=TEXT_FORMAT, config=config)


def _cells(text: str, fmt: str) -> list[tuple[str, str]]:
    nb = jupytext.reads(text, fmt=fmt)
    return [(cell.cell_type, cell.source) for cell in nb.cells]


def first_difference(md: Path, want: str, have: str) -> str:
    """Say which cell differs first (or that only metadata does), for the failure message."""
    try:
        mine, theirs = _cells(want, TEXT_FORMAT), _cells(have, TEXT_FORMAT)
    except Exception as exc:  # a hand-edited .md may not parse; say so instead of crashing
        return f"{shown(md)} cannot be read as MyST markdown: {exc}"
    for number, (a, b) in enumerate(zip(mine, theirs, strict=False), start=1):
        if a != b:
            kind = a[0] if a[0] == b[0] else f"{a[0]} in the notebook, {b[0]} in the .md"
            return f"cell {number} ({kind}) differs"
    if len(mine) != len(theirs):
        return f"the notebook has {len(mine)} cells, the .md {len(theirs)}"
    return "the cells agree, but their metadata or the header differ"


def check_pair(notebook: Path) -> list[str]:
    """Problems with the pair of ``notebook`` (empty when its .md says exactly what it says)."""
    md = md_for(notebook)
    fix = f"run `make notebooks NB={shown(notebook)}`"
    if not md.exists():
        return [f"{shown(notebook)}: no paired markdown file {shown(md)}; {fix} and commit it"]
    try:
        want = expected_text(notebook)
    except Exception as exc:  # nbformat and jupytext raise several kinds on a broken file
        return [f"{shown(notebook)}: cannot be read as a notebook: {exc}"]
    have = md.read_text(encoding="utf-8")
    if want == have:
        return []
    diff = list(
        difflib.unified_diff(
            want.splitlines(),
            have.splitlines(),
            fromfile=f"{shown(notebook)} (as markdown)",
            tofile=shown(md),
            lineterm="",
        )
    )
    shown_diff = "\n".join("    " + line for line in diff[:DIFF_LINES])
    more = f"\n    ... ({len(diff) - DIFF_LINES} more diff lines)" if len(diff) > DIFF_LINES else ""
    return [
        f"{shown(notebook)} and {shown(md)} are out of sync: "
        f"{first_difference(md, want, have)}.\n"
        f"  Fix: {fix} (the side with uncommitted changes gives the cells, then the notebook "
        f"is re-executed; `make notebooks NB={shown(md)}` takes them from the .md), or "
        f"`jupytext --sync {shown(notebook)}` (the file modified last gives them).\n"
        f"{shown_diff}{more}"
    ]


def orphan_problem(md: Path) -> str:
    """The message for a .md whose notebook does not exist (renamed, removed or md-first)."""
    notebook = notebook_for(md)
    return (
        f"{shown(md)}: no notebook {shown(notebook)} to pair with. If the notebook was renamed "
        f"or removed, delete the .md (`git rm {shown(md)}`); if you wrote the .md first, create "
        f"the notebook with `make notebooks NB={shown(md)}`"
    )


def git_state(path: Path) -> str | None:
    """What git says of ``path``: None outside git, else one of "clean", "changed" (tracked,
    with uncommitted changes) and "new" (untracked, added or renamed)."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--", str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    code = done.stdout[:2]
    if not code.strip():
        return "clean"
    return "new" if code == "??" or code[0] in "AR" else "changed"


def cells_come_from(notebook: Path, md: Path, md_named: bool) -> str:
    """Which side of an out-of-sync pair holds the cells to keep: "notebook" or "md".

    Not simply the file modified last (jupytext's rule): a merge or a checkout may write an old
    .md after a newer notebook. So the .md wins when it is named on the command line, or when
    it is the only side with uncommitted changes. A .md that is new beside a notebook git
    already has loses (a copy made from an older state, say by a merge); when both sides have
    changes, or outside git, the file modified last wins; otherwise the notebook does.
    """
    if not md.exists():
        return "notebook"
    if not notebook.exists() or md_named:
        return "md"
    nb_state, md_state = git_state(notebook), git_state(md)
    newer = "md" if md.stat().st_mtime > notebook.stat().st_mtime else "notebook"
    if nb_state is None or md_state is None:
        return newer
    if md_state == "new":
        return newer if nb_state == "new" else "notebook"
    if md_state == "changed":
        return newer if nb_state != "clean" else "md"
    return "notebook"


def sync(notebook_or_md: Path, md_named: bool = False) -> Path:
    """Bring one pair in line (a missing side is created); return the notebook's path.

    From the .md, jupytext replaces the notebook's cells and keeps the stored outputs of the
    cells that did not change; from the notebook, the .md is simply written again.
    """
    path = notebook_or_md.resolve()
    notebook = notebook_for(path) if path.suffix == ".md" else path
    if not is_paired(notebook):
        return notebook  # a notebook outside the course (a test fixture) has no twin
    md = md_for(notebook)
    if notebook.exists() and md.exists() and not check_pair(notebook):
        return notebook
    source = cells_come_from(notebook, md, md_named)
    if source == "notebook":
        write_md(notebook)
        return notebook
    print(f"notebook_pairs: taking the cells of {shown(notebook)} from {shown(md)}")
    before = nbformat.read(notebook, as_version=4) if notebook.exists() else None
    os.utime(md)  # jupytext --sync takes the cells from the file modified last
    status = jupytext_cli(["--sync", "--quiet", str(md)])
    if status:
        raise RuntimeError(f"jupytext --sync {shown(md)} failed (exit {status})")
    nb = nbformat.read(notebook, as_version=4)
    # jupytext notes the .md's code lexer in the notebook; the pairing lives in jupytext.toml.
    nb.metadata.pop("jupytext", None)
    # jupytext may keep an edited cell's outputs (it matches cells by position too); outputs
    # stored under code that is no longer in the notebook describe code nobody can see.
    known = {c.source for c in before.cells if c.cell_type == "code"} if before else set()
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source not in known:
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, notebook)
    write_md(notebook)
    return notebook


def write_md(notebook: Path) -> None:
    """Rewrite the .md of ``notebook`` from the notebook (after it was executed and saved)."""
    if not is_paired(notebook):
        return
    md = md_for(notebook)
    md.parent.mkdir(parents=True, exist_ok=True)
    text = expected_text(notebook)
    if not md.exists() or md.read_text(encoding="utf-8") != text:
        md.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    """``check`` or ``sync`` the pairs under the given paths (default: notebooks/ and md/)."""
    if not argv or argv[0] not in ("check", "sync"):
        print("usage: python -m scripts.notebook_pairs check|sync [--from-notebooks] [PATH ...]")
        return 2
    from_notebooks = "--from-notebooks" in argv
    argv = [a for a in argv if a != "--from-notebooks"]
    command, paths = argv[0], [Path(a) for a in argv[1:]] or [NOTEBOOKS, MARKDOWN]
    missing = [p for p in paths if not p.exists() and p not in (NOTEBOOKS, MARKDOWN)]
    if missing:
        print(f"notebook_pairs: no such path: {', '.join(map(str, missing))}")
        return 1
    notebooks, orphans = find_pairs([p for p in paths if p.exists()])
    if command == "sync":
        # A .md without its notebook becomes one only when named: found by a folder walk, it
        # is more likely the leftover of a renamed notebook.
        named = {p.resolve() for p in paths if p.is_file()}
        todo = [(nb, md_for(nb) in named) for nb in notebooks]
        todo += [(md, True) for md in orphans if md in named]
        for path, md_named in todo:
            if from_notebooks and path.suffix == ".ipynb":
                write_md(path)  # every .md rewritten from its notebook, whatever git says
                notebook = path
            else:
                notebook = sync(path, md_named)
            print(f"notebook_pairs: in sync: {shown(notebook)} <-> {shown(md_for(notebook))}")
        for md in orphans:
            if md not in named:
                print(orphan_problem(md))
        return 0
    problems = [msg for nb in notebooks for msg in check_pair(nb)]
    problems += [orphan_problem(md) for md in orphans]
    for msg in problems:
        print(msg)
    if problems:
        print(f"notebook_pairs: {len(problems)} pair(s) out of sync")
        return 1
    print(f"notebook_pairs: {len(notebooks)} notebook(s) in sync with their md/ pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
