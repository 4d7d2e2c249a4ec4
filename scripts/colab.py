"""Open in Colab: the links, and the first two cells of every notebook.

Every English notebook starts with two cells this script writes (and rewrites, idempotently):

- a markdown cell (id `colab-link`) with an "Open in Colab" link to the notebook on GitHub;
- a code cell (id `colab-setup`) that in Google Colab clones the repository and runs
  colab/setup_course.py (minigrad, Graphviz, course_checks), and does nothing anywhere else
  (your machine, Binder, the browser-only site).

Both are tagged `slides-skip` (not on the slides); the code cell also `remove-cell` (not on the
website) and `colab-setup` (tools that look for a notebook's imports cell skip it). The Chinese
notebooks are built from the English ones (scripts/translations.py): this script writes the link
cell's translation block, pointing at notebooks/zh/. It also writes the Colab links of both
READMEs, between the markers `<!-- colab-links:start -->` and `<!-- colab-links:end -->`.

The repository and branch are one setting in pyproject.toml: `Repository` under
`[project.urls]` (a GitHub URL) and `colab-branch` under `[tool.cutting-the-graph]`. The
environment variables COURSE_REPOSITORY ("owner/name" or a URL) and COURSE_BRANCH override them;
the Pages workflow sets them to the repository and branch it builds, so that a fork's published
site sends learners to the fork. Other tools (the website) call `colab_url`.

    python -m scripts.colab apply     write the cells, the translation blocks and the READMEs, then
                                      the md/ twins and the Chinese edition from them (no cell is
                                      executed: the set-up cell prints nothing outside Colab)
    python -m scripts.colab check     exit 1 when any of them is missing or out of date
    python -m scripts.colab url NOTEBOOK    print a notebook's Colab URL
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tomllib
from pathlib import Path

import nbformat

from scripts.course import REPO, find_notebooks

TRANSLATIONS = REPO / "translations" / "zh"
READMES = {"en": REPO / "README.md", "zh": REPO / "README.zh-CN.md"}
# The links go after the paragraph that starts with this (the first time; later in place).
README_ANCHORS = {"en": "Either command first sets everything up", "zh": "两条命令都会先完成安装"}
BRANCH = "main"  # when pyproject.toml names no colab-branch
CLONE_DIR = "cutting-the-graph"  # where the cell clones the repository in Colab (/content/...)
LINK_ID, SETUP_ID = "colab-link", "colab-setup"
LINK_TAGS = ["slides-skip"]
SETUP_TAGS = ["colab-setup", "remove-cell", "slides-skip"]
START, END = "<!-- colab-links:start -->", "<!-- colab-links:end -->"
FIX = "run `python -m scripts.colab apply` and commit the result"

LINK_TEXT = {
    "en": (
        "**Run it without installing anything:** [Open in Colab]({url}).\n"
        "There, the next cell installs minigrad and Graphviz (about a minute); anywhere else it "
        "does nothing."
    ),
    "zh": (
        "**无需安装即可运行：**[在 Colab 中打开]({url})。\n"
        "在 Colab 里，下一个代码单元会装好 minigrad 和 Graphviz（约一分钟）；在别处它什么也不做。"
    ),
}

README_TEXT = {
    "en": (
        "**No install:** open any notebook in Google Colab (its first code cell installs "
        "minigrad and Graphviz there):"
    ),
    "zh": (
        "**无需安装：**在 Google Colab 中打开任意一节"
        "（第一个代码单元会在那里装好 minigrad 和 Graphviz）："
    ),
}

SETUP_CODE = """\
# Google Colab only: get the course, install minigrad and Graphviz (about a minute, once).
# Anywhere else (your machine, Binder, the in-browser site) this cell does nothing.
import sys

if "google.colab" in sys.modules:
    import os
    import runpy
    import subprocess

    repository = "{repository}"
    branch, folder = "{branch}", "{clone}"
    if not os.path.isdir(folder):
        clone = ["git", "clone", "--quiet", "--depth", "1", "--branch", branch, repository, folder]
        subprocess.run(clone, capture_output=True)  # a failed clone leaves no folder
    if os.path.isfile(folder + "/colab/setup_course.py"):
        runpy.run_path(folder + "/colab/setup_course.py")
    else:
        print(
            f"set-up: could not get the course from {{repository}} (branch {{branch}}): check the "
            "address and branch in this cell and that the runtime is online, then run it again."
        )"""


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def repository_url() -> str:
    """The repository's GitHub URL: COURSE_REPOSITORY, else `[project.urls] Repository` in
    pyproject.toml."""
    url = os.environ.get("COURSE_REPOSITORY", "").strip()
    where = "COURSE_REPOSITORY"
    if not url:
        url = pyproject()["project"].get("urls", {}).get("Repository", "")
        where = "pyproject.toml's [project.urls] Repository"
    if re.fullmatch(r"[\w.-]+/[\w.-]+", url):  # owner/name, as GitHub Actions gives it
        url = f"https://github.com/{url}"
    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise SystemExit(
            f'colab: {where} must be "https://github.com/OWNER/NAME" (or OWNER/NAME); got {url!r}'
        )
    return url


def branch_name() -> str:
    """The branch the links and the set-up cell use: COURSE_BRANCH, else `colab-branch` under
    `[tool.cutting-the-graph]` in pyproject.toml, else main."""
    branch = os.environ.get("COURSE_BRANCH", "").strip()
    if not branch:
        branch = pyproject().get("tool", {}).get("cutting-the-graph", {}).get("colab-branch", "")
    branch = branch or BRANCH
    if not re.fullmatch(r"[\w./-]+", branch) or branch.startswith("-"):
        raise SystemExit(f"colab: {branch!r} is not a branch name git accepts here")
    return branch


def colab_url(
    notebook: str | Path, repository: str | None = None, branch: str | None = None
) -> str:
    """The Colab URL of a notebook: a path inside notebooks/ ("02_detach", "zh/02_detach.ipynb")
    or inside the repository ("notebooks/02_detach.ipynb")."""
    rel = Path(notebook).with_suffix(".ipynb").as_posix()
    rel = rel.removeprefix("notebooks/")
    owner_name = (repository or repository_url()).removeprefix("https://github.com/")
    branch = branch or branch_name()
    return f"https://colab.research.google.com/github/{owner_name}/blob/{branch}/notebooks/{rel}"


def english_notebooks() -> list[Path]:
    return find_notebooks(english_only=True)


def link_cell(stem: str, language: str, repository: str) -> str:
    """The link cell's source for notebooks/<stem> ("en") or notebooks/zh/<stem> ("zh")."""
    rel = stem if language == "en" else f"zh/{stem}"
    return LINK_TEXT[language].format(url=colab_url(rel, repository))


def setup_cell(repository: str, branch: str | None = None) -> str:
    return SETUP_CODE.format(clone=CLONE_DIR, repository=repository, branch=branch or branch_name())


def wanted_cells(stem: str, repository: str) -> list[dict]:
    """The two cells as nbformat 4 JSON (the code cell unexecuted: make notebooks runs it)."""
    return [
        {
            "cell_type": "markdown",
            "id": LINK_ID,
            "metadata": {"tags": LINK_TAGS},
            "source": link_cell(stem, "en", repository),
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "id": SETUP_ID,
            # its code folded in JupyterLab (12 lines a learner need not read before lesson 1)
            "metadata": {"tags": SETUP_TAGS, "jupyter": {"source_hidden": True}},
            "outputs": [],
            "source": setup_cell(repository),
        },
    ]


def source_of(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def cells_problem(nb: dict, stem: str, repository: str) -> str | None:
    """What is wrong with a notebook's first two cells (None when they are as wanted)."""
    cells = nb["cells"]
    for index, want in enumerate(wanted_cells(stem, repository)):
        if len(cells) <= index or cells[index].get("id") != want["id"]:
            return f"cell {index + 1} is not the {want['id']} cell"
        have = cells[index]
        if source_of(have) != want["source"] or have["cell_type"] != want["cell_type"]:
            return f"the {want['id']} cell differs from what scripts/colab.py writes"
        for key, value in want["metadata"].items():
            if have.get("metadata", {}).get(key) != value:
                return f"the {want['id']} cell's metadata {key!r} is not {value}"
    return None


def apply_notebook(path: Path, repository: str) -> bool:
    """Insert or refresh the two cells; returns whether the file changed."""
    nb = nbformat.read(path, as_version=4)
    if cells_problem(nb, path.stem, repository) is None:
        return False
    old = {cell.get("id"): cell for cell in nb["cells"][:2]}
    rest = [cell for cell in nb["cells"] if cell.get("id") not in (LINK_ID, SETUP_ID)]
    cells = wanted_cells(path.stem, repository)
    for cell in cells:  # keep other metadata (slide types) and outputs already stored
        previous = old.get(cell["id"])
        if previous is not None:
            cell["metadata"] = {**previous.get("metadata", {}), **cell["metadata"]}
            if cell["cell_type"] == "code":
                # outside Colab the cell prints nothing, whatever its address: what a fresh run
                # stores is what was stored, and the notebook need not be executed again
                cell["outputs"] = previous.get("outputs", [])
                cell["execution_count"] = previous.get("execution_count")
    nb["cells"] = [nbformat.from_dict(cell) for cell in cells] + rest
    nbformat.write(nb, path)  # the layout the notebooks have (Jupyter's)
    return True


def english_hash(source: str) -> str:
    """The hash a translation block stores (as scripts/translations.py computes it)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:8]


def translation_block(stem: str, repository: str) -> str:
    english = link_cell(stem, "en", repository)
    return (
        f"<!-- cell: {LINK_ID} en: {english_hash(english)} -->\n{link_cell(stem, 'zh', repository)}"
    )


def apply_translation(stem: str, repository: str) -> bool:
    """Write the link cell's block as the first block of translations/zh/<stem>.md."""
    path = TRANSLATIONS / f"{stem}.md"
    if not path.exists():
        return False
    text = path.read_text(encoding="utf-8")
    block = translation_block(stem, repository)
    ours = re.compile(
        rf"<!-- cell: {LINK_ID} en: [0-9a-f]{{8}} -->\n.*?(?=\n\n<!-- cell: |\Z)", re.S
    )
    if ours.search(text):
        new = ours.sub(lambda _: block, text, count=1)
    else:
        first = text.find("<!-- cell: ")
        new = (
            text + "\n" + block + "\n" if first < 0 else f"{text[:first]}{block}\n\n{text[first:]}"
        )
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def readme_links(language: str, repository: str) -> str:
    """The README's list of Colab links, one per notebook."""
    folder = "" if language == "en" else "zh/"
    names = [f"[`{p.stem}`]({colab_url(folder + p.stem, repository)})" for p in english_notebooks()]
    return "\n".join([START, README_TEXT[language], "", " · ".join(names), END])


def readme_problem(language: str, repository: str) -> str | None:
    text = READMES[language].read_text(encoding="utf-8")
    if START not in text or END not in text:
        return f"{READMES[language].name}: no {START} ... {END} section"
    current = text[text.index(START) : text.index(END) + len(END)]
    if current != readme_links(language, repository):
        return f"{READMES[language].name}: the Colab links are out of date"
    return None


def apply_readme(language: str, repository: str, anchor: str) -> bool:
    """Write the links section; the first time, after the paragraph that starts with `anchor`."""
    path = READMES[language]
    text = path.read_text(encoding="utf-8")
    section = readme_links(language, repository)
    if START in text and END in text:
        new = text[: text.index(START)] + section + text[text.index(END) + len(END) :]
    else:
        at = text.find(anchor)
        if at < 0:
            raise SystemExit(f"colab: {path.name} has no paragraph starting {anchor!r}")
        end = text.find("\n\n", at)
        new = text[:end] + "\n\n" + section + text[end:]
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def problems() -> list[str]:
    """Everything `check` reports."""
    repository = repository_url()
    found = []
    for path in english_notebooks():
        problem = cells_problem(nbformat.read(path, as_version=4), path.stem, repository)
        if problem:
            found.append(f"notebooks/{path.name}: {problem}")
        translation = TRANSLATIONS / f"{path.stem}.md"
        if translation.exists():
            if translation_block(path.stem, repository) not in translation.read_text("utf-8"):
                found.append(f"translations/zh/{path.stem}.md: no current {LINK_ID} block")
    for language in READMES:
        problem = readme_problem(language, repository)
        if problem:
            found.append(problem)
    return found


def follow_up() -> int:
    """After `apply`: the md/ twins and the Chinese edition written again from the notebooks
    (nothing executed; the zh notebooks keep their stored outputs)."""
    from scripts import notebook_pairs, translations

    paths = [str(p) for p in english_notebooks()]
    status = notebook_pairs.main(["sync", "--from-notebooks", *paths])
    return status or translations.main(["build"])


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "url" and len(argv) == 2:
        print(colab_url(argv[1]))
        return 0
    if command == "check":
        found = problems()
        for problem in found:
            print(f"colab: {problem}; {FIX}", file=sys.stderr)
        print(f"colab: {len(english_notebooks())} notebooks, {len(found)} problems")
        return 1 if found else 0
    if command == "apply":
        repository = repository_url()
        changed = [p.name for p in english_notebooks() if apply_notebook(p, repository)]
        changed += [
            f"translations/zh/{p.stem}.md"
            for p in english_notebooks()
            if apply_translation(p.stem, repository)
        ]
        changed += [
            READMES[lang].name
            for lang in READMES
            if apply_readme(lang, repository, README_ANCHORS[lang])
        ]
        print(f"colab: changed {len(changed)} files" + "".join(f"\n  {c}" for c in changed))
        return follow_up()
    print(__doc__.split("\n\n")[-1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
