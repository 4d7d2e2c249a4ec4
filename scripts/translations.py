"""The Chinese edition: notebooks/zh/ generated from the English notebooks and translations/zh/.

A zh notebook is never edited by hand. It is the English notebook with every markdown cell
replaced by its translation from ``translations/zh/<stem>.md``; code cells (source, tags, slide
metadata) are copied unchanged, except that their comments are in Chinese (see below) and a cell
importing viz also calls ``viz.set_language("zh")``: the numbers printed are the same in both
languages, and what viz draws or prints speaks Chinese. The translation file holds one block per
English markdown cell, in notebook order:

    <!-- cell: cell-04 en: 403a8f60 -->
    ## 前后对比，一张图看清
    ...

``cell`` is the English cell's id, ``en`` the first 8 hex digits of the sha256 of the English
cell's source that the block translates. When the English text changes, the hash no longer
matches and ``check`` fails until the block is retranslated and ``accept``-ed.

    python -m scripts.translations build [--execute] [NAME ...]   write notebooks/zh/<stem>.ipynb
    python -m scripts.translations check [NAME ...]     exit 1 when the edition is out of step
    python -m scripts.translations todo [NAME ...]      what needs (re)translating, with the text
    python -m scripts.translations update [NAME ...]    add blocks for new English cells, order
                                                        them, drop orphans (alias: skeleton)
    python -m scripts.translations accept STEM CELL_ID ...   stamp the current English hash on
                                                        blocks you have just retranslated

NAME is a stem (``02_detach``) or a path to the English or zh notebook, its md/ twin or its
translation file; no NAME means every English notebook. ``build --execute`` then runs the built
notebooks with scripts.run_notebooks (``make notebooks`` does both).

The comments of the code cells are translated too (d2l-zh does the same), through
translations/zh/code_comments.md: under a ``## <stem>`` heading, one ``en:`` line holding an
English comment as the code has it and the ``zh:`` line right below it holding its Chinese.
``build`` swaps the comment tokens it finds there (Python's tokenize, so code, strings and
outputs stay exactly as in English); ``check`` requires every zh code cell to equal its English
cell once comments are removed, and warns about table entries no English comment uses;
``todo`` also lists the comments not translated yet.

The feedback of the exercise checks (the package notebooks/course_checks/) is translated the
same way, under the name ``course_checks``: each message is written once in the code as
``tr("b1.solved", "English text {field}", field=...)``; its key stands for the cell id, and
translations/zh/course_checks.md holds one ``<!-- message: KEY en: HASH -->`` block per message.
``build`` (every time) writes the Chinese messages to notebooks/course_checks/zh.json, which the
checks read; ``check`` also fails when a block names other {fields} than its English message.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import io
import json
import re
import string
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
LANGUAGE = "zh-CN"  # stored in the zh notebooks' metadata as "language"
MIN_CHINESE = 0.9  # share of a zh notebook's markdown cells that must contain Chinese
# A block for an English cell nobody has translated yet (written by `update`): no English text
# has this hash, so `check` reports it until a translator writes the text and runs `accept`.
NEVER_TRANSLATED = "00000000"
# TEMPORARY (issue 17): until the translators' work is merged, translations/zh/*.md hold the
# English text as placeholders. While this is True, a file with no Chinese at all is reported
# as a warning instead of failing the 90 % rule. Set it to False once the translations land.
ALLOW_UNTRANSLATED_PLACEHOLDERS = False

MARKER = re.compile(r"^<!-- (cell|message): (\S+) en: ([0-9a-f]{8}) -->$", re.MULTILINE)
CHINESE = re.compile(r"[\u4e00-\u9fff]")
HEADER = (
    "<!-- Chinese (zh-CN) translation of notebooks/{stem}.ipynb: one block per markdown cell.\n"
    "     'cell' is the English cell's id, 'en' the first 8 hex digits of the sha256 of the "
    "English\n     cell's source at the time of translation (scripts.translations todo lists "
    "stale blocks). -->\n"
)
CHECKS = "course_checks"  # the exercise checks' messages: a package, not a notebook
# translations/zh/code_comments.md: the Chinese of the code cells' comments, by notebook
COMMENTS = "code_comments"
COMMENTS_HEADER = (
    "<!-- Chinese comments for the code cells of notebooks/zh/: under '## <stem>', an 'en:' line "
    "holds\n     an English comment exactly as the code has it, the 'zh:' line below it its "
    "Chinese.\n     scripts.translations build puts them into the zh notebooks; todo lists the "
    "missing ones. -->\n"
)
CHECKS_HEADER = (
    "<!-- Chinese (zh-CN) messages of the exercise checks, notebooks/course_checks/: one block "
    "per\n     message. 'message' is its key in the code (tr(key, english, ...)), 'en' the first "
    "8 hex\n     digits of the sha256 of its English text; keep every {field} as it is. -->\n"
)


@dataclass(frozen=True)
class Paths:
    """Where the English notebooks, the zh notebooks and the translation files live."""

    english: Path
    zh: Path
    translations: Path

    @classmethod
    def of(cls, repo: Path) -> Paths:
        """The course's layout inside ``repo``."""
        return cls(repo / "notebooks", repo / "notebooks" / "zh", repo / "translations" / "zh")

    def english_notebook(self, stem: str) -> Path:
        """notebooks/<stem>.ipynb"""
        return self.english / f"{stem}.ipynb"

    def zh_notebook(self, stem: str) -> Path:
        """notebooks/zh/<stem>.ipynb"""
        return self.zh / f"{stem}.ipynb"

    def translation(self, stem: str) -> Path:
        """translations/zh/<stem>.md"""
        return self.translations / f"{stem}.md"

    def stems(self) -> list[str]:
        """Every English notebook's stem (the top folder only: subfolders are editions)."""
        return sorted(p.stem for p in self.english.glob("*.ipynb"))

    @property
    def checks(self) -> Path:
        """notebooks/course_checks/, the package of the exercise checks"""
        return self.english / CHECKS

    @property
    def comments(self) -> Path:
        """translations/zh/code_comments.md, the Chinese of the code cells' comments"""
        return self.translations / f"{COMMENTS}.md"

    def translated(self) -> list[str]:
        """What translations/zh/ translates: every notebook, then the checks' messages."""
        return self.stems() + ([CHECKS] if self.checks.is_dir() else [])


@dataclass(frozen=True)
class Block:
    """One translated markdown cell: the English cell's id, the hash it translates, the text."""

    cell_id: str
    en_hash: str
    text: str


@dataclass(frozen=True)
class Translation:
    """A translation file: the comment above the first block, then the blocks in order."""

    header: str
    blocks: list[Block]
    label: str = "cell"  # what a block translates: "cell" (a notebook's) or "message"

    def by_id(self) -> dict[str, Block]:
        """The blocks by English cell id."""
        return {block.cell_id: block for block in self.blocks}


def english_hash(source: str) -> str:
    """The short hash a block stores for the English source it translates."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:8]


def is_chinese(text: str) -> bool:
    """Whether ``text`` contains at least one Chinese character."""
    return CHINESE.search(text) is not None


def parse(text: str) -> Translation:
    """Split a translation file into its header and blocks (a block's text loses its blank
    lines at both ends, as the cell source has none)."""
    marks = list(MARKER.finditer(text))
    header = text[: marks[0].start()] if marks else text
    blocks = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        blocks.append(Block(mark.group(2), mark.group(3), text[mark.end() : end].strip("\n")))
    return Translation(header, blocks, marks[0].group(1) if marks else "cell")


def render(translation: Translation) -> str:
    """The file text of ``translation`` (parse(render(t)) == t)."""
    label = translation.label
    parts = [f"<!-- {label}: {b.cell_id} en: {b.en_hash} -->\n{b.text}" for b in translation.blocks]
    return translation.header.rstrip("\n") + "\n\n" + "\n\n".join(parts) + "\n"


def read_translation(path: Path) -> Translation:
    """The translation file at ``path``; an empty one (no blocks) when it does not exist."""
    if not path.exists():
        if path.stem == CHECKS:
            return Translation(CHECKS_HEADER, [], "message")
        return Translation(HEADER.format(stem=path.stem), [])
    return parse(path.read_text(encoding="utf-8"))


def markdown_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The notebook's markdown cells, in order."""
    return [cell for cell in nb.cells if cell.cell_type == "markdown"]


def check_messages(package: Path) -> dict[str, str]:
    """The exercise checks' messages, key -> English, in the order of the package's files:
    every call tr("key", "English ...", ...) whose key and text are string literals."""
    messages: dict[str, str] = {}
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            if getattr(call.func, "id", None) == "tr":
                key, english = (getattr(arg, "value", None) for arg in call.args[:2])
                if isinstance(key, str) and isinstance(english, str):
                    messages.setdefault(key, english)
    return messages


def english_texts(stem: str, paths: Paths) -> dict[str, str]:
    """What translations/zh/<stem>.md translates, by id, in order: the notebook's markdown
    cells, or for course_checks the checks' messages."""
    if stem == CHECKS:
        return check_messages(paths.checks)
    english = read_notebook(paths.english_notebook(stem))
    return {cell.id: cell.source for cell in markdown_cells(english)}


def english_name(stem: str, text_id: str, kind: str = "markdown cell") -> str:
    """How a message names the English text with id `text_id` (a cell of that kind)."""
    if stem == CHECKS:
        return f"English message {text_id} of notebooks/{CHECKS}/"
    return f"English {kind} {text_id} of notebooks/{stem}.ipynb"


def fields(text: str) -> list[str]:
    """The {fields} a message fills in, sorted (a translation must use the same ones)."""
    try:
        return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:  # a lone { or }: the message cannot be filled in
        return ["(a lone brace)"]


# A code cell that imports viz gets one more line in the zh notebook, right after the import:
# the pictures, summaries and steppers then speak Chinese. Every other line of code is the same.
VIZ_IMPORT = re.compile(r"^from minigrad import (?:[\w, ]*, )?viz(?:, [\w, ]*)?$", re.MULTILINE)
VIZ_IN_CHINESE = 'viz.set_language("zh")  # 图、摘要和步进器里的文字用中文'


def code_in_chinese(source: str) -> str:
    """A code cell's source as the zh notebook has it (see VIZ_IN_CHINESE): the line goes
    after the import block that imports viz, with a blank line before it, as ruff wants."""
    match = VIZ_IMPORT.search(source)
    if match is None or VIZ_IN_CHINESE in source:
        return source
    lines = source.split("\n")
    last = source[: match.end()].count("\n")  # the line that imports viz
    while last + 1 < len(lines) and lines[last + 1].startswith(("import ", "from ")):
        last += 1  # (more imports right below it)
    return "\n".join([*lines[: last + 1], "", VIZ_IN_CHINESE, *lines[last + 1 :]])


def comment_tokens(source: str) -> list[tokenize.TokenInfo] | None:
    """The comment tokens of a code cell, in order; None when Python cannot tokenize it (a cell
    of IPython magics, say): such a cell keeps its comments as they are."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return [token for token in tokens if token.type == tokenize.COMMENT]


def without_comments(source: str) -> str:
    """A code cell's source with every comment removed (and the spaces before it): what must be
    the same in both editions. A line that held only a comment goes altogether."""
    tokens = comment_tokens(source)
    if tokens is None:
        return source
    original = source.split("\n")
    lines: list[str | None] = list(original)
    for token in tokens:  # (one per line at most: a comment ends its line)
        row, col = token.start
        code = original[row - 1][:col].rstrip()
        lines[row - 1] = code if code else None
    return "\n".join(line for line in lines if line is not None)


def translate_comments(source: str, table: dict[str, str]) -> str:
    """`source` with each comment that `table` translates (English -> Chinese) replaced; only
    comment tokens change, so the code is the same token for token."""
    tokens = comment_tokens(source)
    if not tokens or not table:
        return source
    lines = source.split("\n")
    for token in tokens:
        if token.string in table:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col] + table[token.string]
    return "\n".join(lines)


def read_comments(path: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    """translations/zh/code_comments.md as {stem: {English comment: Chinese comment}}, and the
    problems of its lines (an en: without its zh:, a zh: that is no single comment...)."""
    table: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    if not path.exists():
        return table, problems
    where = f"translations/zh/{path.name}"
    stem, english = None, None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("## "):
            stem, english = line[3:].strip(), None
            table.setdefault(stem, {})
        elif line.startswith("en: "):
            if english is not None:
                problems.append(f"{where}:{number}: 'en:' follows an 'en:' without its 'zh:'.")
            english = line[4:]
        elif line.startswith("zh: "):
            chinese = line[4:]
            if stem is None or english is None:
                problems.append(f"{where}:{number}: 'zh:' without an 'en:' line (and ## stem).")
            elif not (english.startswith("#") and chinese.startswith("#")):
                problems.append(f"{where}:{number}: both lines must hold a comment, from '#'.")
            elif not is_chinese(chinese):
                problems.append(f"{where}:{number}: the 'zh:' line has no Chinese.")
            else:
                table[stem][english] = chinese
            english = None
    if english is not None:
        problems.append(f"{where}: the last 'en:' line has no 'zh:' line.")
    return table, problems


# A comment that only tells a tool something (noqa, type:, fmt:) has nothing to translate.
DIRECTIVE = re.compile(r"#\s*(noqa|type:|fmt:|pragma)\b[^()]*$")


def english_comments(stem: str, paths: Paths) -> list[str]:
    """Every comment of the English notebook's code cells, once each, in order."""
    english = read_notebook(paths.english_notebook(stem))
    found: dict[str, None] = {}
    for cell in english.cells:
        if cell.cell_type == "code":
            found.update((token.string, None) for token in comment_tokens(cell.source) or [])
    return list(found)


def comment_problems(stems: list[str], paths: Paths) -> tuple[list[str], list[str]]:
    """Lines of translations/zh/code_comments.md that are malformed or name no notebook, and
    (as warnings: an unused line changes no notebook) those that translate a comment the named
    English notebooks no longer have."""
    table, problems = read_comments(paths.comments)
    orphans: list[str] = []
    where = f"translations/zh/{COMMENTS}.md"
    for stem, entries in table.items():
        if stem not in paths.stems():
            problems.append(f"{where}: '## {stem}' names no English notebook.")
        elif stem in stems:
            used = set(english_comments(stem, paths))
            for english in entries:
                if english not in used:
                    orphans.append(
                        f"{where}: under ## {stem}, 'en: {english}' is no comment of "
                        f"notebooks/{stem}.ipynb (any more). Fix: give it the English comment's "
                        "current text and check its Chinese, or delete the two lines."
                    )
    return problems, orphans


def build_notebook(
    english: nbformat.NotebookNode,
    translation: Translation,
    previous: nbformat.NotebookNode | None = None,
    comments: dict[str, str] | None = None,
) -> nbformat.NotebookNode:
    """The zh notebook: ``english`` with its markdown translated (an English cell without a block
    keeps its English text, and `check` reports it).

    Code cells are copied from the English notebook with their outputs (a cell importing viz
    also switches viz to Chinese: `code_in_chinese`), and with their comments in Chinese where
    ``comments`` (English -> Chinese) has them. When ``previous`` (the zh notebook as it was)
    has the same code, comments aside, in a cell of the same id, that cell's outputs are kept
    instead: they differ where the code prints in the notebook's language (course_checks).
    Either way ``make notebooks`` executes the result, so the stored outputs are a fresh run.
    """
    zh = copy.deepcopy(english)
    zh.metadata["language"] = LANGUAGE
    blocks = translation.by_id()
    old_code = {}
    if previous is not None:
        old_code = {c.get("id"): c for c in previous.cells if c.cell_type == "code"}
    for cell in zh.cells:
        if cell.cell_type == "markdown" and cell.get("id") in blocks:
            cell.source = blocks[cell.id].text
        elif cell.cell_type == "code":
            cell.source = translate_comments(code_in_chinese(cell.source), comments or {})
            old = old_code.get(cell.get("id"))
            # (comments change no output: a retranslated comment keeps the zh outputs too)
            if old is not None and without_comments(old.source) == without_comments(cell.source):
                cell.outputs = copy.deepcopy(old.outputs)
                cell.execution_count = old.execution_count
    return zh


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` (sources as strings)."""
    return nbformat.read(path, as_version=4)


def build_messages(translation: Translation) -> str:
    """The text of notebooks/course_checks/zh.json: the Chinese message of every block."""
    messages = {"//": f"written by scripts.translations build from translations/zh/{CHECKS}.md"}
    messages.update((b.cell_id, b.text) for b in translation.blocks)
    return json.dumps(messages, ensure_ascii=False, indent=1) + "\n"


def build(stem: str, paths: Paths) -> Path:
    """Write notebooks/zh/<stem>.ipynb from the English notebook and the translation file (for
    course_checks: notebooks/course_checks/zh.json)."""
    if stem == CHECKS:
        target = paths.checks / "zh.json"
        text = build_messages(read_translation(paths.translation(stem)))
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        return target
    english = read_notebook(paths.english_notebook(stem))
    target = paths.zh_notebook(stem)
    previous = read_notebook(target) if target.exists() else None
    comments = read_comments(paths.comments)[0].get(stem, {})
    zh = build_notebook(english, read_translation(paths.translation(stem)), previous, comments)
    text = nbformat.writes(zh)
    text += "" if text.endswith("\n") else "\n"  # as nbformat.write ends a file
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


# ---- check -----------------------------------------------------------------------------------


def translation_problems(stem: str, paths: Paths) -> list[str]:
    """Blocks out of step with the English notebook: missing, stale, orphaned or out of order."""
    texts = english_texts(stem, paths)
    path = paths.translation(stem)
    where = f"translations/zh/{stem}.md"
    if not path.exists():
        return [
            f"{where}: missing. Fix: `python -m scripts.translations update {stem}` writes one "
            "block per English markdown cell; translate them, then `accept`."
        ]
    translation = read_translation(path)
    blocks = translation.by_id()
    wanted = list(texts)
    problems = []
    for text_id, source in texts.items():
        block = blocks.get(text_id)
        if block is None:
            problems.append(
                f"{where}: {english_name(stem, text_id)} has no "
                f"block. Fix: `python -m scripts.translations update {stem}`, translate the new "
                f"block, then `python -m scripts.translations accept {stem} {text_id}`."
            )
        elif block.en_hash == NEVER_TRANSLATED:
            problems.append(
                f"{where}: block {text_id} is not translated yet. Fix: translate it, then "
                f"`python -m scripts.translations accept {stem} {text_id}`."
            )
        elif block.en_hash != english_hash(source):
            problems.append(
                f"{where}: {english_name(stem, text_id, 'cell')} changed since it was "
                f"translated (hash {block.en_hash}, now {english_hash(source)}). Fix: "
                f"`python -m scripts.translations todo {stem}` shows the new English text; "
                f"retranslate the block, then `python -m scripts.translations accept {stem} "
                f"{text_id}`."
            )
        elif stem == CHECKS and fields(block.text) != fields(source):
            problems.append(
                f"{where}: block {text_id} fills in {fields(block.text)}, its English message "
                f"{fields(source)}. Fix: use the English message's {{fields}} in the block."
            )
    for block in translation.blocks:
        if block.cell_id not in wanted:
            problems.append(
                f"{where}: block {block.cell_id} belongs to no "
                f"{'English message' if stem == CHECKS else 'English markdown cell'} (orphan). "
                f"Fix: `python -m scripts.translations update {stem}` drops it."
            )
    present = [b.cell_id for b in translation.blocks if b.cell_id in wanted]
    ids = [b.cell_id for b in translation.blocks]
    if present != [i for i in wanted if i in present] or len(ids) != len(set(ids)):
        problems.append(
            f"{where}: blocks are duplicated or not in the notebook's order. Fix: "
            f"`python -m scripts.translations update {stem}` puts them in order."
        )
    return problems


def chinese_share(nb: nbformat.NotebookNode) -> float:
    """The share of the notebook's non-empty markdown cells that contain Chinese."""
    cells = [c for c in markdown_cells(nb) if c.source.strip()]
    return sum(is_chinese(c.source) for c in cells) / len(cells) if cells else 1.0


def notebook_problems(stem: str, paths: Paths) -> tuple[list[str], list[str]]:
    """Problems of notebooks/zh/<stem>.ipynb against what `build` would write, and the stem
    again as a warning when it is an untranslated placeholder that is allowed for now."""
    if stem == CHECKS:
        built = build_messages(read_translation(paths.translation(stem)))
        target = paths.checks / "zh.json"
        if not target.exists() or target.read_text(encoding="utf-8") != built:
            return [
                f"notebooks/{CHECKS}/zh.json is not what translations/zh/{CHECKS}.md says. "
                f"Fix: `python -m scripts.translations build {CHECKS}`."
            ], []
        return [], []
    zh_path = paths.zh_notebook(stem)
    shown = f"notebooks/zh/{stem}.ipynb"
    fix = f"Fix: `make notebooks NB=notebooks/{stem}.ipynb` (or translations.py build {stem})"
    if not zh_path.exists():
        return [f"{shown}: missing. {fix}."], []
    english = read_notebook(paths.english_notebook(stem))
    zh = read_notebook(zh_path)
    comments = read_comments(paths.comments)[0].get(stem, {})
    expected = build_notebook(english, read_translation(paths.translation(stem)), None, comments)
    problems = []
    stale_markdown = []
    if [c.get("id") for c in zh.cells] != [c.get("id") for c in expected.cells]:
        problems.append(f"{shown}: its cells are not the English notebook's cells. {fix}.")
        return problems, []
    for have, want in zip(zh.cells, expected.cells, strict=True):
        what = [
            name
            for name, a, b in (
                ("type", have.cell_type, want.cell_type),
                ("source", have.source, want.source),
                ("metadata", have.metadata, want.metadata),
            )
            if a != b
        ]
        if not what:
            continue
        if (
            want.cell_type == "code"
            and what == ["source"]
            and (without_comments(have.source) == without_comments(want.source))
        ):
            problems.append(
                f"{shown}: the comments of code cell {want.id} are not what "
                f"translations/zh/{COMMENTS}.md says. Edit that file, not the notebook. {fix}."
            )
        elif want.cell_type == "code":
            problems.append(
                f"{shown}: code cell {want.id} differs from notebooks/{stem}.ipynb "
                f"({', '.join(what)}). Code cells must be identical apart from comments: change "
                f"the English notebook, never the zh one. {fix}."
            )
        else:
            stale_markdown.append(want.id)
    if stale_markdown:
        some = ", ".join(stale_markdown[:5]) + (", ..." if len(stale_markdown) > 5 else "")
        problems.append(
            f"{shown}: {len(stale_markdown)} markdown cell(s) ({some}) are not what "
            f"translations/zh/{stem}.md says. Edit the translation file, not the notebook. {fix}."
        )
    if zh.metadata.get("language") != LANGUAGE:
        problems.append(f'{shown}: metadata "language" is not "{LANGUAGE}". {fix}.')
    warnings = []
    share = chinese_share(expected)
    if share < MIN_CHINESE:
        message = (
            f"{shown}: only {share:.0%} of its markdown cells are in Chinese (at least "
            f"{MIN_CHINESE:.0%} must be). Fix: `python -m scripts.translations todo {stem}` "
            f"lists the untranslated blocks of translations/zh/{stem}.md."
        )
        if ALLOW_UNTRANSLATED_PLACEHOLDERS and share == 0.0:
            warnings.append(stem)
        else:
            problems.append(message)
    return problems, warnings


def edition_problems(paths: Paths) -> list[str]:
    """zh notebooks or translation files that belong to no English notebook."""
    stems = set(paths.translated())
    problems = []
    for nb in sorted(paths.zh.glob("*.ipynb")):
        if nb.stem not in stems:
            problems.append(
                f"notebooks/zh/{nb.name}: no English notebook notebooks/{nb.name}. Fix: "
                f"`git rm notebooks/zh/{nb.name}` (and translations/zh/{nb.stem}.md)."
            )
    for md in sorted(paths.translations.glob("*.md")):
        if md.stem not in stems and md.stem != COMMENTS:
            problems.append(
                f"translations/zh/{md.name}: no English notebook notebooks/{md.stem}.ipynb. Fix: "
                f"rename it with the notebook, or `git rm translations/zh/{md.name}`."
            )
    return problems


def check(stems: list[str], paths: Paths, whole_edition: bool) -> int:
    """Print every problem of the named notebooks' translations; return 1 if there is one."""
    problems = edition_problems(paths) if whole_edition else []
    found, unused = comment_problems(stems, paths)
    problems += found
    for message in unused:
        print(f"translations: warning: {message}")
    warnings = []
    for stem in stems:
        problems += translation_problems(stem, paths)
        found, warned = notebook_problems(stem, paths)
        problems += found
        warnings += warned
    if warnings:
        print(
            f"translations: warning: {len(warnings)} zh notebook(s) have no Chinese yet (English "
            "placeholders), allowed while ALLOW_UNTRANSLATED_PLACEHOLDERS is True: "
            + ", ".join(warnings)
        )
    for message in problems:
        print(f"translations: {message}")
    if problems:
        print(f"translations: {len(problems)} problem(s); the Chinese edition is out of step")
        return 1
    notebooks = [stem for stem in stems if stem != CHECKS]
    messages = " and the checks' messages" if CHECKS in stems else ""
    print(f"translations: {len(notebooks)} zh notebook(s){messages} in step with the English ones")
    return 0


# ---- todo, update, accept --------------------------------------------------------------------


def todo(stems: list[str], paths: Paths) -> int:
    """List the blocks to (re)translate, with the current English text; return how many."""
    count = 0
    for stem in stems:
        blocks = read_translation(paths.translation(stem)).by_id()
        for text_id, source in english_texts(stem, paths).items():
            block = blocks.get(text_id)
            if block is None:
                reason = "no block yet (run `update` first)"
            elif block.en_hash == NEVER_TRANSLATED or not is_chinese(block.text):
                reason = "not translated"
            elif block.en_hash != english_hash(source):
                reason = "the English text changed since the translation"
            else:
                continue
            count += 1
            where = (
                f"notebooks/{CHECKS}/  message"
                if stem == CHECKS
                else f"notebooks/{stem}.ipynb  cell"
            )
            print(f"== {where} {text_id}: {reason}")
            print(f"   then: python -m scripts.translations accept {stem} {text_id}")
            print(source)
            print()
    table = read_comments(paths.comments)[0]
    comments = 0
    for stem in stems:
        if stem == CHECKS:
            continue
        missing = [
            comment
            for comment in english_comments(stem, paths)
            if comment not in table.get(stem, {}) and not DIRECTIVE.match(comment)
        ]
        if missing:
            comments += len(missing)
            print(f"== notebooks/{stem}.ipynb  {len(missing)} code comment(s) not translated;")
            print(f"   add under '## {stem}' in translations/zh/{COMMENTS}.md:")
            print("\n".join(f"en: {comment}\nzh: " for comment in missing))
            print()
    more = f", and {comments} code comment(s)" if comments else ""
    print(f"translations: {count} block(s) to translate{more}")
    return count + comments


def update(stem: str, paths: Paths) -> bool:
    """Rewrite translations/zh/<stem>.md with one block per English markdown cell, in order.

    Existing blocks keep their text and their old hash (so `check` still reports a stale one);
    a new English cell gets a block holding its English text and the hash NEVER_TRANSLATED,
    unless an orphan block translates exactly that text (a cell whose id changed). Orphans are
    dropped, and printed so their text is not lost silently. Returns whether the file changed.
    """
    texts = english_texts(stem, paths)
    path = paths.translation(stem)
    old = read_translation(path)
    blocks = old.by_id()
    orphans = {b.en_hash: b for b in old.blocks if b.cell_id not in texts}
    new_blocks = []
    for text_id, source in texts.items():
        if text_id in blocks:
            new_blocks.append(blocks[text_id])
        elif english_hash(source) in orphans:
            moved = orphans.pop(english_hash(source))
            new_blocks.append(Block(text_id, moved.en_hash, moved.text))
            print(f"translations: {stem}: block {moved.cell_id} is now {text_id}")
        else:
            new_blocks.append(Block(text_id, NEVER_TRANSLATED, source))
            print(f"translations: {stem}: new block {text_id} (English text as placeholder)")
    for orphan in orphans.values():
        print(f"translations: {stem}: dropped orphan block {orphan.cell_id}:\n{orphan.text}\n")
    header = old.header if old.header.strip() else HEADER.format(stem=stem)
    text = render(Translation(header, new_blocks, old.label))
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def accept(stem: str, cell_ids: list[str], paths: Paths) -> int:
    """Stamp the current English hash on the named blocks (after they were retranslated)."""
    english = english_texts(stem, paths)
    path = paths.translation(stem)
    translation = read_translation(path)
    blocks = translation.by_id()
    unknown = [i for i in cell_ids if i not in blocks or i not in english]
    if unknown:
        print(
            f"translations: {stem}: no block or no English text with id "
            f"{', '.join(unknown)}; `python -m scripts.translations todo {stem}` lists the ids"
        )
        return 1
    for cell_id in cell_ids:
        if not is_chinese(blocks[cell_id].text):
            print(f"translations: warning: {stem} block {cell_id} has no Chinese text yet")
    stamped = [
        Block(b.cell_id, english_hash(english[b.cell_id]), b.text) if b.cell_id in cell_ids else b
        for b in translation.blocks
    ]
    path.write_text(
        render(Translation(translation.header, stamped, translation.label)), encoding="utf-8"
    )
    print(f"translations: {stem}: accepted {', '.join(cell_ids)}")
    return 0


# ---- command line ----------------------------------------------------------------------------


def stem_of(name: str, paths: Paths) -> str | None:
    """The notebook stem ``name`` stands for (a stem or any of its files); None if unknown."""
    stem = Path(name).stem if name.endswith((".ipynb", ".md")) else name
    return stem if stem in paths.translated() else None


def stems_of(names: list[str], paths: Paths) -> list[str | None]:
    """The stems ``names`` stand for; a folder (`make notebooks NB=notebooks/`) means all."""
    stems: list[str | None] = []
    for name in names:
        if Path(name).is_dir():
            stems += paths.translated()
        else:
            stems.append(stem_of(name, paths))
    return stems


def main(argv: list[str] | None = None, paths: Paths | None = None) -> int:
    """Run one command; returns the exit status."""
    paths = paths or Paths.of(REPO)
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser("build", help="write notebooks/zh/<stem>.ipynb")
    build_cmd.add_argument("--execute", action="store_true", help="then run them")
    for name in ("check", "todo", "update", "skeleton"):
        commands.add_parser(name).add_argument("names", nargs="*")
    build_cmd.add_argument("names", nargs="*")
    accept_cmd = commands.add_parser("accept", help="stamp the current hash on blocks")
    accept_cmd.add_argument("stem")
    accept_cmd.add_argument("cell_ids", nargs="+")
    args = parser.parse_args(argv)

    names = [args.stem] if args.command == "accept" else args.names
    stems = stems_of(names, paths) or paths.translated()
    if None in stems:
        bad = [n for n in names if not Path(n).is_dir() and stem_of(n, paths) is None]
        print(f"translations: no English notebook for {', '.join(bad)} (in {paths.english})")
        return 2
    stems = list(dict.fromkeys(s for s in stems if s is not None))

    if args.command == "build":
        if CHECKS in paths.translated() and CHECKS not in stems:
            stems.append(CHECKS)  # the zh notebooks run the checks: their messages come too
        built = [nb for nb in (build(stem, paths) for stem in stems) if nb.suffix == ".ipynb"]
        print(f"translations: built {len(built)} zh notebook(s) in {paths.zh}")
        if not args.execute:
            return 0
        from scripts import run_notebooks  # slow to import (nbconvert): only when executing

        return run_notebooks.main([str(nb) for nb in built])
    if args.command == "check":
        return check(stems, paths, whole_edition=not names)
    if args.command == "todo":
        todo(stems, paths)
        return 0
    if args.command in ("update", "skeleton"):
        changed = [stem for stem in stems if update(stem, paths)]
        print(f"translations: {len(changed)} translation file(s) changed")
        return 0
    return accept(args.stem, args.cell_ids, paths)


if __name__ == "__main__":
    sys.exit(main())
