"""Lay a notebook out as a deck for a 1280x720 projector: what goes on which slide, and the notes.

scripts/build_slides.py gives this module a notebook whose cells ran with the projector theme
(`viz.set_theme("projector")`) and gets back a notebook for nbconvert's reveal.js exporter whose
every cell fits one slide. The rules, in order:

- Off the slides: cells whose stored slide type is "skip" (scripts/slides_metadata.py: the
  set-up cell, the torch-comparison section, empty cells), and outputs only a widget can show.
- A `#`/`##` heading starts a new column of slides, a `###` heading a new slide below it.
- Prose stays on the slides, all of it (a slide too full goes on below, between paragraphs, list
  items or table rows); sentences only a notebook needs ("run that cell", "Switch on *predict
  first*") are left off, and the title slide's time is the session plan's. A section whose
  heading is "Summary" (or "What you practised") goes, shortened, into the notes of the slide
  after it (its "Check yourself" questions stay on a slide).
- Code is shown at once, wrapped at the slide's width; its outputs appear on the next key press
  (fragments: the room predicts first, the notes say what to ask and what to expect). A long
  text output goes on over the next slides, cut between lines into even parts.
- A picture is shown whole, as large as the room allows (up to PICTURE_WIDTH wide; viz drew
  it in the layout that shows largest on a slide, minigrad/viz/slide_fit.py; a before/after
  is laid out again for 16:9 by slide_pictures.for_slide). The legend the projector theme
  adds under a notebook's first picture is a picture of its own, on the next slide; so is a
  before/after's legend when the pair fits the room only without it (legend_apart). When a
  picture's labels are still under 18 px, its slide says why (data-course-unfit: the size it
  needs) and closer looks follow, each whole on a slide of its own, each with its own name
  and description: before and after side by side without the legend (or each alone) and the
  legend; a single graph band by band, cut between its ranks.
- The stepper (viz.stepper, viz.cut_stepper) becomes one slide per step: the step's code as the
  title over the step's whole frame, with the step's text summary in the notes.
- A code slide that asks the room to predict never opens with an earlier output on it.
- Anything that would push a slide past BUDGET_PX starts the next slide below it.
- Speaker notes from docs/speaker_notes/ (by heading) come first in a slide's notes; a slide
  they do not cover gets a short note of what to do with it.

Heights are estimated from the sizes the deck's style sheet sets (docs/slides_template/); the
browser test (tests/browser/test_classroom_in_browser.py) measures the real slides.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import math
import re
import struct
from dataclasses import dataclass, field, replace

from scripts.slide_pictures import (
    MAX_SCALE,
    MIN_TEXT_PX,
    PX_PER_PT,
    Picture,
    for_slide,
    half_text,
    labels_in_view,
    legend_apart,
    own_text,
    panels,
    parse,
    parts,
    tiles,
    with_own_text,
    with_size,
    without_legend,
)
from scripts.slides_metadata import skipped_cells

# The slide, in CSS px (= screen px at 1280x720: the decks are laid out at that size, no margin).
SLIDE_WIDTH = 1280
SLIDE_HEIGHT = 720
CONTENT_WIDTH = 1200  # the slide minus its padding (the style sheet's section padding)
# a picture may also use most of the side padding (the style sheet's .jp-RenderedSVG margin)
PICTURE_WIDTH = 1264
BUDGET_PX = 640  # content height planned per slide: 720 minus padding and a safety margin
PICTURE_PX = 660  # a slide holding pictures only: 720 minus the padding and the gaps
TEXT_PX, TEXT_LINE = 26, 26 * 1.4
CODE_PX, CODE_LINE = 24, 24 * 1.3
HEADING = {1: (46, 20), 2: (40, 16), 3: (34, 14)}  # level -> (font px, space below)
BLOCK_GAP = 14  # between two items on a slide
CODE_PAD = 26  # padding and border around a code cell or an output
OUTPUT_LINES = 8  # a longer text output: its number of lines goes into the notes
SUMMARY_HEADINGS = ("summary", "what you practised")
TORCH_TAG = "torch-parity"

WORDS = {
    "en": {
        "said": "Say (from the notebook):",
        "output": "The whole output:",
        "step": "Step {n} of {total}",
        "summary": "Summary (from the notebook):",
        "picture": "{label}",
        "before": "before",
        "after": "after",
        "zoom": "a band of the picture",
        "pair": "before and after",
        "legend": "what the colours mean",
        "legend_title": "What the marks in the pictures mean (colours, lines, shapes)",
        "before_name": "before {action}: the graph as it was",
        "band_name": "part {n} of {total} of the picture: {name}",
        "band_desc": "this part shows: ",
        "sep": "; ",
        "legend_note": "The legend of every picture: name each mark with the room once.",
        "legend_heading": "What the marks mean",
        "ask_output": (
            "Ask before the key press: what will this print?\nExpect:\n\n```\n{answer}\n```"
        ),
        "ask_error": "Ask before the key press: does this run?\nExpect: no, `{answer}`",
        "ask_before": "Ask first: what will `{action}` change? Then compare the two halves.",
        "ask_after": "Point at what is drawn red or thick: that is what `{action}` changed.",
        "whole": "The whole picture first: let the room find before, after and the legend.",
        "detail": 'A closer look at the "{label}" part of the picture on the slide before.',
        "continued": "The output goes on (same cell).",
        "heading_note": "Introduce the section: {heading}. Ask what the room expects it to show.",
        "text_note": "Read the slide with the room; ask one learner to say it in their own words.",
        "code_note": "Read the code aloud, line by line, before going on.",
        "output_note": "Let the room read the output; ask what surprised them.",
        "picture_note": "Point at the picture: name each box and arrow before going on.",
        "lines": "({n} lines on the slide.)",
        "deck_minutes": "[{minutes} min for this deck in the session plan, docs/teaching.md]",
        "column_minutes": "[about {minutes} min for this section]",
    },
    "zh": {
        "said": "要讲的内容（来自 notebook）：",
        "output": "完整输出：",
        "step": "第 {n} 步，共 {total} 步",
        "summary": "小结（来自 notebook）：",
        "picture": "{label}",
        "before": "之前",
        "after": "之后",
        "zoom": "图的一段",
        "pair": "之前和之后",
        "legend": "颜色的含义",
        "legend_title": "图中各种标记（颜色、线条、形状）的含义",
        "before_name": "执行 {action} 之前：原来的图",
        "band_name": "图的第 {n} 部分，共 {total} 部分：{name}",
        "band_desc": "这一部分显示：",
        "sep": "；",
        "legend_note": "所有图的图例：和大家一起把每种标记认一遍。",
        "legend_heading": "图中标记的含义",
        "ask_output": "按键之前先问：这会打印出什么？\n预期：\n\n```\n{answer}\n```",
        "ask_error": "按键之前先问：这能运行吗？\n预期：不能，`{answer}`",
        "ask_before": "先提问：`{action}` 会改变什么？再对比图的两半。",
        "ask_after": "指出画成红色或粗线的地方：那就是 `{action}` 改变的东西。",
        "whole": "先看整张图：请大家找出“之前”“之后”和图例。",
        "detail": "放大看上一张幻灯片中图的“{label}”部分。",
        "continued": "输出接着上一张（同一个单元格）。",
        "heading_note": "介绍这一节：{heading}。先问大家预计会看到什么。",
        "text_note": "和大家一起读这张幻灯片；请一位同学用自己的话复述。",
        "code_note": "逐行把代码读出来，再往下讲。",
        "output_note": "让大家读一读输出；问问哪里出乎意料。",
        "picture_note": "指着图讲：先说出每个方框和箭头，再往下讲。",
        "lines": "（幻灯片上共 {n} 行。）",
        "deck_minutes": "[课程安排（docs/zh/teaching.md）给这份幻灯片 {minutes} 分钟]",
        "column_minutes": "[这一节约 {minutes} 分钟]",
    },
}

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
CJK_MARGIN = 1.3


def source_text(cell: dict) -> str:
    """A cell's source as one string."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def text_width(text: str, px: float, mono: bool = False) -> float:
    """Estimated width of one line of text in px (CJK characters are one em wide)."""
    wide = len(CJK.findall(text))
    narrow = len(text) - wide
    return (wide * 1.0 + narrow * (0.61 if mono else 0.56)) * px


def wrapped_lines(text: str, px: float, width: float, mono: bool = False) -> int:
    """How many screen lines `text` takes when wrapped at `width` px."""
    total = 0
    for line in text.split("\n"):
        total += max(1, math.ceil(text_width(line, px, mono) / width))
    return total


def plain(markdown: str) -> str:
    """Markdown without most of its markup, for estimating its length."""
    text = re.sub(r"`([^`]*)`", r"\1", markdown)
    text = re.sub(r"\*\*|__|\*|_(?=\w)|(?<=\w)_", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\$([^$]*)\$", r"\1", text)
    return text


def markdown_blocks(text: str) -> list[str]:
    """A markdown text cut at blank lines, keeping fenced code and one list together."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    merged: list[str] = []
    item = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")
    for block in blocks:
        lead_in = merged and "\n" not in merged[-1] and len(merged[-1]) < 80
        if lead_in and item.match(block) and not item.match(merged[-1]):
            merged[-1] += "\n\n" + block  # "**By the end you will be able to**" + its list
        elif merged and item.match(block) and item.match(merged[-1].split("\n\n")[-1]):
            merged[-1] += "\n" + block  # the next item of a loose list
        elif merged and block.startswith(("   ", "  -", "\t")) and item.match(merged[-1]):
            merged[-1] += "\n" + block  # a paragraph inside a list item
        else:
            merged.append(block)
    return merged


# Sentences that only make sense in a notebook (a room does not run cells): left off the slides.
NOTEBOOK_ONLY = re.compile(
    r"[^.。!?！？\n]*(?:Switch on \*predict first\*|cell above|run that cell|run this cell"
    r"|打开 \*predict first\*|上面的?单元格|运行那个单元格|运行这个单元格)"
    r"[^.。!?！？\n]*[.。!?！？]\s*"
)
_TIME_LINE = re.compile(r"^\*(Time: about|用时：约) (\d+) (minutes\.|分钟。)(.*)\*$", re.MULTILINE)
# A check cell's answer when nothing was filled in: an instruction for the notebook.
NO_ANSWER = ("No answer yet", "还没有作答")


def for_room(text: str, minutes: int = 0) -> str:
    """Prose as a slide shows it: without notebook-only sentences, and with the session plan's
    minutes in the title slide's "Time: about N minutes" (the guide's number, not the
    notebook's self-study time)."""
    text = NOTEBOOK_ONLY.sub("", text)
    if minutes:
        text = _TIME_LINE.sub(lambda m: f"*{m.group(1)} {minutes} {m.group(3)}{m.group(4)}*", text)
    return text


def split_list(block: str) -> list[str]:
    """A long block cut before each top-level list item (a lead-in line stays with the first
    item), so that a slide too full goes on below between two items; other blocks whole."""
    pieces: list[list[str]] = [[]]
    item = re.compile(r"^(?:[-*+]|\d+\.)\s")
    for line in block.split("\n"):
        if item.match(line) and any(item.match(x) for x in pieces[-1]):
            pieces.append([])
        pieces[-1].append(line)
    return ["\n".join(piece) for piece in pieces]


def is_table(block: str) -> bool:
    """Whether a markdown block is a table (every line starts with |)."""
    lines = block.strip().split("\n")
    return len(lines) >= 2 and all(line.lstrip().startswith("|") for line in lines)


def table_cells(line: str) -> list[str]:
    """The cells of one table row."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_row_height(line: str, columns: int) -> float:
    """Estimated height of one table row (its tallest cell, wrapped in an equal share)."""
    width = CONTENT_WIDTH / max(columns, 1) - 16
    tallest = max(wrapped_lines(plain(c), TEXT_PX, width) for c in table_cells(line))
    return tallest * TEXT_LINE * 1.15 + 14  # a margin: the browser shares widths unevenly


def split_table(block: str, budget: float) -> list[str]:
    """A table cut into tables of at most `budget` px each, every one with the header."""
    lines = block.strip().split("\n")
    header, rule, rows = lines[0], lines[1], lines[2:]
    columns = len(table_cells(header))
    head = table_row_height(header, columns)
    out: list[list[str]] = [[]]
    used = head
    for row in rows:
        height = table_row_height(row, columns)
        if out[-1] and used + height > budget:
            out.append([])
            used = head
        out[-1].append(row)
        used += height
    return ["\n".join([header, rule, *part]) for part in out]


def text_height(markdown: str) -> float:
    """Estimated height of a block of prose (or a table) on a slide."""
    fence = re.match(r"^\s*```[^\n]*\n(.*?)\n\s*```\s*$", markdown, re.DOTALL)
    if fence:  # a code block in the prose: set like code
        return code_height(fence.group(1)) - BLOCK_GAP
    if is_table(markdown):
        lines = markdown.strip().split("\n")
        columns = len(table_cells(lines[0]))
        return sum(table_row_height(line, columns) for i, line in enumerate(lines) if i != 1)
    lines = 0
    for line in plain(markdown).split("\n"):
        indent = 44 if re.match(r"^\s*(?:[-*+]|\d+\.)\s", line) else 0
        lines += wrapped_lines(line.strip(), TEXT_PX, CONTENT_WIDTH - indent)
    # Chinese mixed with inline code breaks lines earlier than the estimate (measured: 510 px
    # estimated, 700 px drawn for a zh question list): a margin for it
    return lines * TEXT_LINE * (CJK_MARGIN if CJK.search(markdown) else 1.0)


_AFTER_TITLE = re.compile(r"<title>cluster_after</title>.*?<text\b[^>]*>([^<]*)</text>", re.DOTALL)


def after_action(svg: str) -> str:
    """The call a before/after picture shows ("out.detach()" from its "after out.detach()")."""
    match = _AFTER_TITLE.search(svg)
    if match is None:
        return ""
    title = html.unescape(match.group(1)).strip()
    return title.split(" ", 1)[1] if " " in title else ""


def joined_streams(outputs: list[dict]) -> list[dict]:
    """Outputs with consecutive prints to the same stream joined into one (as shown)."""
    out: list[dict] = []
    for output in outputs:
        last = out[-1] if out else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            out[-1] = {**last, "text": stream_text(last) + stream_text(output)}
        else:
            out.append(output)
    return out


def picture_id(svg: str) -> str:
    """A short name for one output picture, the same on every slide that shows it or a part."""
    return hashlib.sha1(svg.encode("utf-8")).hexdigest()[:12]


def readable(picture: Picture, width_px: float, height_px: float) -> bool:
    """Whether the picture, scaled to fit the box, has labels of at least MIN_TEXT_PX."""
    fit = min(width_px / (picture.width * PX_PER_PT), height_px / (picture.height * PX_PER_PT))
    return picture.smallest_font * PX_PER_PT * min(fit, MAX_SCALE) >= MIN_TEXT_PX - 0.05


def unfit_reason(picture: Picture, room: float) -> str:
    """Why a picture is shown with labels under MIN_TEXT_PX: the size its labels need, in
    its largest layout (viz tried top-down and left-right, tight and loose, for a slide; a
    before/after's halves side by side or stacked), against the room the slide has."""
    width, height = picture.size_at(picture.scale_for_text())
    return (
        f"needs {width:.0f}x{height:.0f} px for {MIN_TEXT_PX:.0f} px labels in its largest"
        f" layout; the slide has {PICTURE_WIDTH}x{room:.0f} px"
    )


# a <title> that is the first child of a group: Graphviz's ids of graphs, clusters, nodes, edges
_SVG_TITLE = re.compile(r"(<g\b[^>]*>\s*)<title>[^<]*</title>\s*")


def without_titles(svg: str) -> str:
    """The SVG without Graphviz's <title> elements: a browser shows them as tooltips, and
    they hold internal ids ("%3", "cluster_before", "after_F0"). The picture's own title (the
    first child of <svg>: its accessible name, written by minigrad.viz) stays."""
    return _SVG_TITLE.sub(r"\1", svg)


def tagged(svg: str, ident: str, part: str, unfit: str = "") -> str:
    """The SVG's root marked with the picture it is (data-course-picture), the part shown
    (data-course-part) and, when its labels are under MIN_TEXT_PX, data-course-overview and
    the reason (data-course-unfit: how large it would have to be)."""
    extra = f' data-course-picture="{ident}" data-course-part="{part}"'
    if unfit:
        extra += f' data-course-overview="true" data-course-unfit="{html.escape(unfit)}"'
    return re.sub(r"<svg\b", "<svg" + extra, svg, count=1)


def code_height(source: str) -> float:
    """Estimated height of a code box holding `source`."""
    lines = wrapped_lines(source, CODE_PX, CONTENT_WIDTH - CODE_PAD, mono=True)
    return lines * CODE_LINE + CODE_PAD + BLOCK_GAP


def split_code(source: str, budget: float) -> list[str]:
    """Code cut into pieces of at most `budget` px, at blank lines where possible."""
    pieces: list[str] = []
    current: list[str] = []
    for line in source.split("\n"):
        if current and code_height("\n".join([*current, line])) > budget:
            blanks = [i for i, text in enumerate(current) if not text.strip() and i > 0]
            cut = blanks[-1] if blanks and blanks[-1] > len(current) // 3 else len(current)
            pieces.append("\n".join(current[:cut]).strip("\n"))
            current = current[cut:]
            while current and not current[0].strip():
                current.pop(0)
        current.append(line)
    if current:
        pieces.append("\n".join(current).strip("\n"))
    return [piece for piece in pieces if piece]


def heading_of(cell: dict) -> tuple[int, str, str] | None:
    """(level, heading text, the rest) of a markdown cell starting with a heading."""
    if cell.get("cell_type") != "markdown":
        return None
    text = source_text(cell).lstrip("\n")
    first, _, rest = text.partition("\n")
    match = re.match(r"^(#{1,6}) (.*)$", first)
    if match is None:
        return None
    return len(match.group(1)), match.group(2).strip(), rest.strip("\n")


@dataclass
class Item:
    """One thing on a slide: a heading, prose, code with its text output, or a picture."""

    cell: dict
    height: float
    kind: str  # "heading", "text", "code", "picture"
    level: int = 0  # heading level (1-3)
    heading: str = ""
    picture: Picture | None = None
    own_slide: bool = False  # a picture part or a step: a slide of its own
    notes: list[str] = field(default_factory=list)
    ident: str = ""  # a picture: which output it is (the same for the whole and its parts)
    part: str = ""  # a picture: "whole", or the part shown ("before", "after", "legend")
    step: bool = False  # a stepper's frame: under its step's title, on that slide
    at_once: bool = False  # shown with its slide, not on a key press (nothing to predict)


@dataclass
class Slide:
    """One slide: its items, whether it starts a column ("slide") or goes below ("subslide")."""

    kind: str
    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    heading: str = ""
    used: float = 0.0


def markdown_cell(text: str) -> dict:
    """A new markdown cell."""
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def output_cell(outputs: list[dict]) -> dict:
    """A code cell whose input is hidden (tag course-output-only): just outputs."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"tags": ["course-output-only"]},
        "outputs": outputs,
        "source": "",
    }


def svg_output(svg: str, alt: str = "") -> dict:
    """A display_data output holding one SVG picture."""
    return {
        "output_type": "display_data",
        "data": {"image/svg+xml": svg, "text/plain": alt or "<picture>"},
        "metadata": {},
    }


def stream_text(output: dict) -> str:
    """The text of a stream or text/plain output."""
    if output.get("output_type") == "stream":
        value = output.get("text", "")
    else:
        value = output.get("data", {}).get("text/plain", "")
    return "".join(value) if isinstance(value, list) else value


def png_size(data: str) -> tuple[int, int]:
    """Width and height of a base64 PNG (from its header)."""
    raw = base64.b64decode(data[:64])
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


class Layout:
    """Turns the cells of one executed notebook into slides (see the module docstring)."""

    def __init__(self, language: str, notes: dict[str, str], minutes: int = 0) -> None:
        self.minutes = minutes  # the session plan's minutes for the deck (0: unknown)
        self.words = WORDS["zh" if language.startswith("zh") else "en"]
        self.notes = dict(notes)  # heading text -> speaker notes; used ones are removed
        self.slides: list[Slide] = []
        self.pending_notes: list[str] = []  # a summary's text, for the next slide
        self.in_summary = False
        self.problems: list[str] = []

    # ---- items from cells ------------------------------------------------------------------

    def items_of_markdown(self, cell: dict, english_heading: str | None) -> list[Item]:
        """A heading item (if the cell starts with one) and the prose kept on the slide."""
        items: list[Item] = []
        found = heading_of(cell)
        text = source_text(cell).strip("\n")
        if found is not None:
            level, title, text = found
            level = min(level, 3)
            size, gap = HEADING[level]
            lines = wrapped_lines(plain(title), size, CONTENT_WIDTH)
            head = Item(
                markdown_cell("#" * level + " " + title),
                lines * size * 1.2 + gap,
                "heading",
                level=level,
                heading=title,
            )
            if level <= 2:
                key = (english_heading or title).lower()
                self.in_summary = key.startswith(SUMMARY_HEADINGS)
            if self.in_summary and level <= 2:
                self.pending_notes.append(f"**{title}**")
                if text:
                    self.pending_notes.append(text)
                return []
            items.append(head)
        elif self.in_summary:
            self.pending_notes.append(text)
            return []
        # All of the prose stays on the slides (a slide too full goes on below, at a block):
        # what a slide says is not moved into the notes.
        for block in markdown_blocks(for_room(text, self.minutes)):
            if is_table(block):
                pieces = split_table(block, BUDGET_PX - 80)
            elif text_height(block) > BUDGET_PX / 2:
                pieces = split_list(block)
            else:
                pieces = [block]
            for piece in pieces:
                items.append(Item(markdown_cell(piece), text_height(piece) + BLOCK_GAP, "text"))
        return items

    def items_of_code(self, cell: dict) -> list[Item]:
        """The code (shown at once), then its outputs: text and pictures appear on the next key
        press (fragments), so the room can predict first. A long text output goes on over the
        next slides, cut between lines; nothing of it is moved into the notes."""
        source = source_text(cell).rstrip("\n")
        outputs: list[Item] = []
        for output in joined_streams(cell.get("outputs", [])):
            data = output.get("data", {})
            if "application/vnd.course.frames+json" in data:
                frames = data["application/vnd.course.frames+json"]["frames"]
                outputs += self.items_of_frames(frames)
            elif "image/svg+xml" in data:
                svg = data["image/svg+xml"]
                svg = "".join(svg) if isinstance(svg, list) else svg
                outputs += self.items_of_svg(svg)
            elif "image/png" in data:
                outputs.append(self.item_of_png(output))
            elif "text/html" in data and "text/plain" not in data:
                outputs.append(self.output_item(output))
            elif output.get("output_type") in ("stream", "execute_result", "display_data"):
                if not (set(data) - {"text/plain", "application/vnd.jupyter.widget-view+json"}):
                    if (
                        "application/vnd.jupyter.widget-view+json" in data
                        and not stream_text(output).strip()
                    ):
                        continue
                if stream_text(output).lstrip().startswith(NO_ANSWER):
                    continue  # "fill in the cell above": for the notebook, not the room
                outputs += self.output_items(output)
            elif output.get("output_type") == "error":
                outputs.append(self.output_item(output))
        chunks = split_code(source, BUDGET_PX - 70) if source else []
        items = []
        for chunk in chunks:
            code = dict(copy.deepcopy(cell), source=chunk, outputs=[])
            code["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k == "tags"}
            items.append(Item(code, code_height(chunk), "code"))
        if items:
            items[-1].notes = self.predict_notes(cell)
        elif outputs:
            outputs[0].notes = self.predict_notes(cell) + outputs[0].notes
        return items + outputs

    def output_item(self, output: dict) -> Item:
        """One output (text, HTML or error) with no code: a fragment on the slide."""
        return Item(output_cell([output]), self.output_height(output) + BLOCK_GAP, "output")

    def output_items(self, output: dict) -> list[Item]:
        """A text output as items that each fit a slide, cut between lines."""
        text = stream_text(output).rstrip("\n")
        lines = text.split("\n")
        width = CONTENT_WIDTH - CODE_PAD
        budget = BUDGET_PX - 90
        total = wrapped_lines(text, CODE_PX, width, mono=True) * CODE_LINE
        if total > budget:  # as many slides as needed, filled evenly (no one-line leftover)
            budget = total / math.ceil(total / budget) + CODE_LINE
        pieces: list[list[str]] = [[]]
        for line in lines:
            trial = "\n".join([*pieces[-1], line])
            if pieces[-1] and wrapped_lines(trial, CODE_PX, width, mono=True) * CODE_LINE > budget:
                pieces.append([])
            pieces[-1].append(line)
        items = []
        for number, piece in enumerate(pieces):
            chunk = "\n".join(piece) + "\n"
            if output.get("output_type") == "stream":
                part = {**output, "text": chunk}
            else:
                part = {**output, "data": {"text/plain": chunk}}
            item = self.output_item(part)
            if number:
                item.own_slide = True
                item.notes.append(self.words["continued"])
            items.append(item)
        if len(lines) > OUTPUT_LINES:
            items[0].notes.append(self.words["lines"].format(n=len(lines)))
        return items

    def predict_notes(self, cell: dict) -> list[str]:
        """The question a code slide asks the room, and the answer its output gives."""
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                first = re.split(r"(?<=[.!?])\s", str(output.get("evalue", "")), maxsplit=1)[0]
                return [self.words["ask_error"].format(answer=f"{output.get('ename')}: {first}")]
        texts = [
            stream_text(o)
            for o in cell.get("outputs", [])
            if stream_text(o).strip() and not stream_text(o).lstrip().startswith(NO_ANSWER)
        ]
        if texts:
            answer = "\n".join("\n".join(texts).strip().split("\n")[:4])
            return [self.words["ask_output"].format(answer=answer)]
        return []

    def output_height(self, output: dict) -> float:
        """Estimated height of one text output (an error shows its name and message)."""
        if output.get("output_type") == "error":
            text = f"{output.get('ename', '')}: {output.get('evalue', '')}"
        elif "text/html" in output.get("data", {}):
            text = re.sub(r"<[^>]+>", "", output["data"]["text/html"])
            text = html.unescape(text if isinstance(text, str) else "".join(text))
        else:
            text = stream_text(output).rstrip("\n")
        lines = wrapped_lines(text, CODE_PX, CONTENT_WIDTH - CODE_PAD, mono=True)
        return lines * CODE_LINE + CODE_PAD

    def items_of_svg(self, svg: str) -> list[Item]:
        """A picture, whole on one slide (a comparison laid out again for 16:9, see
        slide_pictures.for_slide); when its labels are then under MIN_TEXT_PX, each part of it
        (before, after, legend) follows whole on a slide of its own, as a closer look."""
        picture = parse(svg)
        if picture is None:
            return []
        ident = picture_id(svg)
        action = after_action(svg)
        whole = for_slide(picture, PICTURE_WIDTH / PX_PER_PT, PICTURE_PX / PX_PER_PT)
        split = without_legend(picture, self.words["legend_title"])
        if split is not None and not readable(whole, PICTURE_WIDTH, PICTURE_PX):
            # the legend the decks' theme added under a notebook's first picture: the graph
            # whole on its slide, then the legend, a picture of its own
            graph, legend = split
            return [*self.items_of_picture(graph, ident, action), *self.legend_items(legend)]
        apart = legend_apart(
            picture, PICTURE_WIDTH / PX_PER_PT, PICTURE_PX / PX_PER_PT, self.words["legend_title"]
        )
        if apart is not None and not readable(whole, PICTURE_WIDTH, PICTURE_PX):
            pair, legend = apart
            if readable(pair, PICTURE_WIDTH, PICTURE_PX):
                # a before/after with the notebook's own legend: the pair whole on its slide
                # (the picture's name and description), then the legend, a picture of its own
                return [*self.items_of_picture(pair, ident, action), *self.legend_items(legend)]
        return self.items_of_picture(picture, ident, action)

    def legend_items(self, legend: Picture) -> list[Item]:
        """A picture's legend on a slide of its own, under a title that says what it is."""
        head = Item(
            markdown_cell(f"### {self.words['legend_heading']}"),
            HEADING[3][0] * 1.2 + HEADING[3][1],
            "text",
            own_slide=True,
        )
        key = self.picture_item(legend, picture_id(legend.svg), "whole")
        key.step = True  # (like a stepper's frame: under its title, on that slide)
        key.at_once = True
        key.notes.append(self.words["legend_note"])
        return [head, key]

    def items_of_picture(self, picture: Picture, ident: str, action: str) -> list[Item]:
        """The items of one picture (see items_of_svg)."""
        whole = for_slide(picture, PICTURE_WIDTH / PX_PER_PT, PICTURE_PX / PX_PER_PT)
        item = self.picture_item(whole, ident, "whole")
        if whole.fits(PICTURE_WIDTH, BUDGET_PX):
            return [item]
        item.own_slide = True
        if action:
            item.notes.append(self.words["ask_before"].format(action=action))
        if readable(whole, PICTURE_WIDTH, PICTURE_PX):
            if action:
                item.notes.append(self.words["ask_after"].format(action=action))
            return [item]
        item.notes.append(self.words["whole"] if parts(picture) else self.words["picture_note"])
        items = [item]
        has_legend = "legend" in panels(picture)
        pieces = parts(picture)
        pair = for_slide(picture, PICTURE_WIDTH / PX_PER_PT, PICTURE_PX / PX_PER_PT, legend=False)
        if has_legend and readable(pair, PICTURE_WIDTH, PICTURE_PX):
            # before and after side by side without the legend, then the legend
            pieces = [replace(pair, label="pair"), *(p for p in pieces if p.label == "legend")]
        if not pieces:  # one graph: zoom in on it, band by band (cut between its ranks)
            bands = tiles(picture, PICTURE_WIDTH, PICTURE_PX)
            pieces = [replace(t, label=f"detail-{n}") for n, t in enumerate(bands, start=1)]
        for piece in pieces:
            if piece.label == "legend" and not has_legend:
                continue  # only empty space beside the two boxes
            piece = self.part_text(piece, picture, action, len(pieces))
            detail = self.picture_item(piece, ident, piece.label)
            detail.own_slide = True
            zoom = piece.label.startswith("detail")
            label = self.words["zoom" if zoom else piece.label]
            detail.notes.append(self.words["detail"].format(label=label))
            if piece.label in ("after", "pair") and action:
                detail.notes.append(self.words["ask_after"].format(action=action))
            items.append(detail)
        return items

    def part_text(self, piece: Picture, whole: Picture, action: str, count: int) -> Picture:
        """A cut-out part with its own accessible name and description (what it shows, not
        the whole picture's): a half of a before/after its half of the description, the
        legend its title, a band of a graph the labels it shows."""
        name, desc = own_text(whole.svg)
        if piece.label == "before":
            name = self.words["before_name"].format(action=action)
            desc = half_text(desc, "before")
        elif piece.label == "after":
            desc = half_text(desc, "after")
        elif piece.label == "legend":
            name, desc = self.words["legend_title"], ""
        elif piece.label.startswith("detail"):
            number = piece.label.removeprefix("detail-")
            name = self.words["band_name"].format(n=number, total=count, name=name)
            desc = self.words["band_desc"] + self.words["sep"].join(labels_in_view(piece))
        else:
            return piece  # before and after together: the whole picture's text is theirs
        return replace(piece, svg=with_own_text(piece.svg, name, desc))

    def picture_item(self, picture: Picture, ident: str = "", part: str = "whole") -> Item:
        """An item for one picture, planned at the size its labels need (or the slide's)."""
        _, height = picture.size_at(picture.scale_for_text())
        height = min(height, PICTURE_PX)
        cell = output_cell([svg_output(picture.svg)])
        item = Item(cell, height + BLOCK_GAP, "picture", picture=picture)
        item.ident, item.part = ident, part
        return item

    def item_of_png(self, output: dict) -> Item:
        """A PNG picture (a matplotlib plot), shown at most as large as the slide allows."""
        data = output["data"]["image/png"]
        data = "".join(data) if isinstance(data, list) else data
        width, height = png_size(data)
        scale = min(1.0, CONTENT_WIDTH / width, (BUDGET_PX - 60) / height)
        out = copy.deepcopy(output)
        # the PNG at this size; not the text/html <img> of it (for JupyterLab: viz.show_plot)
        out["data"] = {mime: text for mime, text in out["data"].items() if mime != "text/html"}
        size = {"width": int(width * scale), "height": int(height * scale)}
        alt = output.get("metadata", {}).get("image/png", {}).get("alt")
        out["metadata"] = {"image/png": {**size, "alt": alt} if alt else size}  # (viz.show_plot)
        return Item(output_cell([out]), height * scale + BLOCK_GAP, "picture")

    def items_of_frames(self, frames: list[dict]) -> list[Item]:
        """One slide per step of a stepper: the step's code as the slide's title, the step's
        whole frame (before and after) under it, and the step's text summary in the notes."""
        items: list[Item] = []
        for number, frame in enumerate(frames, start=1):
            step = self.words["step"].format(n=number, total=len(frames))
            title = f"### `{frame['label']}`"
            head = Item(
                markdown_cell(title),
                HEADING[3][0] * 1.2 + HEADING[3][1],
                "text",
                own_slide=True,
            )
            summary = frame["summary"].rstrip().split("\n")
            short = "\n".join(summary[:6])
            head.notes.append(f"{step}.\n\n```\n{short}\n```")
            items.append(head)
            picture = parse(frame["svg"])
            if picture is None:
                continue
            room = PICTURE_PX - head.height - BLOCK_GAP
            whole = for_slide(picture, PICTURE_WIDTH / PX_PER_PT, room / PX_PER_PT)
            item = self.picture_item(whole, picture_id(frame["svg"]), "step")
            item.height = min(item.height, room)
            item.step = True
            items.append(item)
        return items

    # ---- placing items on slides -------------------------------------------------------------

    def new_slide(self, kind: str, heading: str = "") -> Slide:
        """Start a slide ("slide": a new column; "subslide": below the current one)."""
        if not self.slides:
            kind = "slide"
        slide = Slide(kind, heading=heading)
        if self.pending_notes:
            slide.notes.append(f"{self.words['summary']} " + short_summary(self.pending_notes))
            self.pending_notes = []
        self.slides.append(slide)
        return slide

    @staticmethod
    def limit(slide: Slide, item: Item) -> float:
        """How tall the slide's content may be once `item` is on it: a picture's height is
        exact, so beside headings and pictures it may use the whole slide; estimated text
        keeps a margin."""
        exact = all(i.kind in ("picture", "heading") for i in [*slide.items, item])
        return PICTURE_PX if exact else BUDGET_PX

    @staticmethod
    def code_to_keep_with(slide: Slide, item: Item) -> Item | None:
        """The code item to move to the next slide with a short text output that does not fit
        under it (taken off `slide`), or None. A one- or two-line output alone on a slide is a
        sliver the room cannot place; its code beside it is what the question is about."""
        if item.kind != "output" or item.height > 3 * CODE_LINE + CODE_PAD + BLOCK_GAP:
            return None
        if len(slide.items) < 2 or slide.items[-1].kind != "code":
            return None
        code = slide.items[-1]
        if code.height + item.height > BUDGET_PX:
            return None
        slide.items.pop()
        slide.used -= code.height
        return code

    def place(self, item: Item) -> None:
        """Put one item on the current slide, or on a new one when it does not fit."""
        current = self.slides[-1] if self.slides else None
        if item.kind == "heading" and item.level <= 2:
            current = self.new_slide("slide", item.heading)
        elif item.kind == "heading":
            current = self.new_slide("subslide", item.heading)
        elif current is None:
            current = self.new_slide("slide")
        elif item.step:
            pass  # a stepper's frame stays under its step's title
        elif item.own_slide and current.items:
            only_heading = all(i.kind == "heading" for i in current.items)
            if not only_heading or current.used + item.height > BUDGET_PX:
                current = self.new_slide("subslide", current.heading)
        elif current.used + item.height > self.limit(current, item) and current.items:
            moved = self.code_to_keep_with(current, item)
            current = self.new_slide("subslide", current.heading)
            if moved is not None:  # a short output stays with its code, not alone on a sliver
                current.items.append(moved)
                current.used += moved.height
        elif item.picture is not None and current.items:
            room = max(self.limit(current, item) - current.used, 0)
            if not readable(item.picture, PICTURE_WIDTH, room):
                current = self.new_slide("subslide", current.heading)
        if item.picture is not None:
            room = max(PICTURE_PX - current.used - BLOCK_GAP, 0) if item.step else None
            if room is None:
                room = max(self.limit(current, item) - current.used, 0)
            picture = item.picture
            fit = min(
                PICTURE_WIDTH / (picture.width * PX_PER_PT),
                room / (picture.height * PX_PER_PT),
                MAX_SCALE,
            )
            width, height = picture.size_at(fit)
            svg = without_titles(with_size(picture.svg, width, height))
            unfit = "" if readable(picture, PICTURE_WIDTH, room) else unfit_reason(picture, room)
            item.cell = output_cell([svg_output(tagged(svg, item.ident, item.part, unfit))])
            item.height = math.ceil(height) + BLOCK_GAP
        current.items.append(item)
        current.used += item.height
        if item.kind == "heading" and item.heading in self.notes:
            current.notes.insert(0, self.notes.pop(item.heading))
        current.notes += item.notes

    def keep_together(self, items: list[Item]) -> None:
        """A code cell and its first text output on one slide: when both do not fit under what
        the current slide holds, the code starts the next slide (else the output would open
        the next slide, visible before the room is asked to predict it)."""
        current = self.slides[-1] if self.slides else None
        if current is None or not current.items or not items or items[0].kind != "code":
            return
        asks = any(i.kind == "code" and i.notes for i in items)
        if asks and current.items[0].kind in ("output", "picture"):
            # this code asks the room to predict: not under an output seen on arrival
            items[0].own_slide = True
            return
        if len(items) < 2 or items[1].kind != "output":
            return
        together = items[0].height + items[1].height
        if current.used + together > BUDGET_PX and together <= BUDGET_PX - current_heading(current):
            items[0].own_slide = True

    def add_minutes(self, minutes: int) -> None:
        """The session plan's minutes for the deck on its first slide, shared out over its
        columns by their slides (an estimate, said as one) at the top of each column's notes."""
        total = len(self.slides)
        columns: list[list[Slide]] = []
        for slide in self.slides:
            if slide.kind == "slide" or not columns:
                columns.append([])
            columns[-1].append(slide)
        for column in columns[1:]:
            share = max(1, round(minutes * len(column) / total))
            column[0].notes.insert(0, self.words["column_minutes"].format(minutes=share))
        if self.slides:
            self.slides[0].notes.insert(0, self.words["deck_minutes"].format(minutes=minutes))

    def default_note(self, slide: Slide) -> str:
        """A short note for a slide the notes files and the notebook say nothing about."""
        kinds = [i.kind for i in slide.items]
        if "picture" in kinds:
            return self.words["picture_note"]
        if "output" in kinds:
            return self.words["output_note"]
        if "code" in kinds:
            return self.words["code_note"]
        if kinds and kinds[0] == "heading" and len(kinds) == 1:
            return self.words["heading_note"].format(heading=slide.items[0].heading)
        return self.words["text_note"]

    def cells(self) -> list[dict]:
        """The deck as notebook cells with slide types for nbconvert."""
        if self.pending_notes and self.slides:
            self.slides[-1].notes.append(
                f"{self.words['summary']} " + short_summary(self.pending_notes)
            )
            self.pending_notes = []
        out: list[dict] = []
        for slide in self.slides:
            if not any(n.strip() for n in slide.notes):
                slide.notes.append(self.default_note(slide))
            for index, item in enumerate(slide.items):
                cell = item.cell
                if index == 0:
                    kind = slide.kind
                elif (
                    item.kind in ("output", "picture")
                    and cell.get("cell_type") == "code"
                    and not item.at_once
                ):
                    kind = "fragment"  # an output appears on a key press: predict first
                else:
                    kind = "-"
                cell.setdefault("metadata", {})["slideshow"] = {"slide_type": kind}
                out.append(cell)
            if slide.notes:
                notes = markdown_cell("\n\n".join(n for n in slide.notes if n.strip()))
                notes["metadata"] = {"slideshow": {"slide_type": "notes"}}
                out.append(notes)
        return out


NOTE_CHARS = 320  # a summary in the notes: about three lines of a speaker view


def short_summary(parts: list[str]) -> str:
    """A notebook's summary section for the notes: its prose without tables or headings, cut
    at a sentence end after at most NOTE_CHARS characters (the room has the notebook)."""
    lines = [
        line.strip()
        for part in parts
        for line in part.split("\n")
        if line.strip()
        and not line.lstrip().startswith(("|", "#"))
        and not re.fullmatch(r"\*\*[^*]+\*\*", line.strip())
    ]
    text = re.sub(r"\s+", " ", " ".join(lines)).strip()
    if len(text) <= NOTE_CHARS:
        return text
    ends = [m.end() for m in re.finditer(r"[.!?。！？](?=\s|$)", text[:NOTE_CHARS])]
    return text[: ends[-1]] if ends else text[:NOTE_CHARS].rstrip() + "…"


def current_heading(slide: Slide) -> float:
    """The height of the headings at the top of a slide (they stay when code moves on)."""
    return sum(i.height for i in slide.items if i.kind == "heading")


def split_at_headings(cell: dict) -> list[dict]:
    """A markdown cell cut before each heading line (outside code fences): a heading in the
    middle of a cell starts its own slide like one at the top. Parts get ids "<id>#<n>"."""
    if cell.get("cell_type") != "markdown":
        return [cell]
    parts: list[list[str]] = [[]]
    fenced = False
    for line in source_text(cell).split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"^#{1,6} \S", line) and any(x.strip() for x in parts[-1]):
            parts.append([])
        parts[-1].append(line)
    if len(parts) == 1:
        return [cell]
    return [
        {**cell, "id": f"{cell.get('id', '')}#{n}", "source": "\n".join(lines).strip("\n")}
        for n, lines in enumerate(parts)
    ]


def lay_out(
    nb: dict, english: dict | None, notes: dict[str, str], language: str, minutes: int = 0
) -> tuple[list[dict], list[str], list[str]]:
    """The deck's cells, the notes keys no heading used, and problems found.

    `english` is the English notebook of a Chinese one (for the same cells' English headings,
    by cell id), or None; `minutes` the time the session plan gives the deck (0: unknown).
    """
    layout = Layout(language, notes, minutes)
    english_headings: dict[str, str] = {}
    for cell in (english or nb)["cells"]:
        for part in split_at_headings(cell):
            found = heading_of(part)
            if found is not None and "id" in part:
                english_headings[part["id"]] = found[1]
    units = [part for cell in nb["cells"] for part in split_at_headings(cell)]
    skipped = skipped_cells(units)  # set-up cell, torch section, empty (slides_metadata.py)
    for index, cell in enumerate(units):
        if index in skipped:
            continue
        if cell.get("cell_type") == "markdown":
            items = layout.items_of_markdown(cell, english_headings.get(cell.get("id", "")))
        elif cell.get("cell_type") == "code":
            items = [] if layout.in_summary else layout.items_of_code(cell)
            layout.keep_together(items)
        else:
            items = []
        for item in items:
            layout.place(item)
    if minutes:
        layout.add_minutes(minutes)
    return layout.cells(), sorted(layout.notes), layout.problems
