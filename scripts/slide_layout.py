"""Lay a notebook out as a deck for a 1280x720 projector: what goes on which slide, and the notes.

scripts/build_slides.py gives this module a notebook whose cells ran with the projector theme
(`viz.set_theme("projector")`) and gets back a notebook for nbconvert's reveal.js exporter whose
every cell fits one slide. The rules, in order:

- Off the slides: cells whose stored slide type is "skip" (scripts/slides_metadata.py: the
  set-up cell, the torch-comparison section, empty cells), and outputs only a widget can show.
- A `#`/`##` heading starts a new column of slides, a `###` heading a new slide below it.
- Prose: a markdown cell's first paragraph is on the slide, and so are the next ones while the
  cell's text stays within TEXT_LINES lines; the rest goes into the speaker notes (the teacher
  says it). A section whose heading is "Summary" (or "What you practised") goes into the notes
  of the slide after it (its "Check yourself" questions stay on a slide).
- Code is shown whole, wrapped at the slide's width, and appears on the next key press (a
  fragment: the room predicts first). A text output longer than OUTPUT_LINES lines shows its
  first lines on the slide and all of it in the notes.
- A picture is shown at the size that makes its smallest label at least 24 px (see
  slide_pictures.py): beside its code when there is room, else on a slide of its own; a
  before/after too large for one slide becomes two (before, then after) and the legend a third.
- The stepper (viz.stepper, viz.cut_stepper) becomes one slide per step: the step's code over
  the "after" picture, with the step's text summary in the notes.
- Anything that would push a slide past BUDGET_PX starts the next slide below it.
- Speaker notes from docs/speaker_notes/ (by heading) come first in a slide's notes.

Heights are estimated from the sizes the deck's style sheet sets (docs/slides_template/); the
browser test (tests/browser/test_classroom_in_browser.py) measures the real slides.
"""

from __future__ import annotations

import base64
import copy
import html
import math
import re
import struct
from dataclasses import dataclass, field

from scripts.slide_pictures import MAX_SCALE, PX_PER_PT, Picture, parse, parts, tiles, with_size
from scripts.slides_metadata import skipped_cells

# The slide, in CSS px (= screen px at 1280x720: the decks are laid out at that size, no margin).
SLIDE_WIDTH = 1280
SLIDE_HEIGHT = 720
CONTENT_WIDTH = 1200  # the slide minus its padding (the style sheet's section padding)
BUDGET_PX = 640  # content height planned per slide: 720 minus padding and a safety margin
PICTURE_PX = 660  # a slide holding pictures only: 720 minus the padding and the gaps
TEXT_PX, TEXT_LINE = 26, 26 * 1.4
CODE_PX, CODE_LINE = 24, 24 * 1.3
HEADING = {1: (46, 20), 2: (40, 16), 3: (34, 14)}  # level -> (font px, space below)
BLOCK_GAP = 14  # between two items on a slide
CODE_PAD = 26  # padding and border around a code cell or an output
TEXT_LINES = 8  # prose kept on a slide per markdown cell, in lines
OUTPUT_LINES = 8  # a longer text output is cut on the slide (all of it in the notes)
SUMMARY_HEADINGS = ("summary", "what you practised")
TORCH_TAG = "torch-parity"

WORDS = {
    "en": {
        "said": "Say (from the notebook):",
        "output": "The whole output:",
        "more": "… {n} more lines: in the notes",
        "step": "Step {n} of {total}",
        "summary": "Summary (from the notebook):",
        "picture": "{label}",
        "before": "before",
        "after": "after",
        "legend": "what the colours mean",
        "ask_output": (
            "Ask before the key press: what will this print?\nExpect:\n\n```\n{answer}\n```"
        ),
        "ask_error": "Ask before the key press: does this run?\nExpect: no, `{answer}`",
        "ask_before": "Ask: what will `{action}` change in this picture? Then the next slide.",
        "ask_after": "Point at what is drawn red or thick: that is what `{action}` changed.",
        "tile": "The picture goes on over the next slide (cut between two rows of boxes).",
        "deck_minutes": "[{minutes} min for this deck in the session plan, docs/teaching.md]",
        "column_minutes": "[about {minutes} min for this section]",
    },
    "zh": {
        "said": "要讲的内容（来自 notebook）：",
        "output": "完整输出：",
        "more": "……还有 {n} 行，见演讲者备注",
        "step": "第 {n} 步，共 {total} 步",
        "summary": "小结（来自 notebook）：",
        "picture": "{label}",
        "before": "之前",
        "after": "之后",
        "legend": "颜色的含义",
        "ask_output": "按键之前先问：这会打印出什么？\n预期：\n\n```\n{answer}\n```",
        "ask_error": "按键之前先问：这能运行吗？\n预期：不能，`{answer}`",
        "ask_before": "提问：`{action}` 会让这张图的哪里发生变化？然后翻到下一张。",
        "ask_after": "指出画成红色或粗线的地方：那就是 `{action}` 改变的东西。",
        "tile": "这张图在下一张幻灯片上继续（在两行方框之间切开）。",
        "deck_minutes": "[课程安排（docs/zh/teaching.md）给这份幻灯片 {minutes} 分钟]",
        "column_minutes": "[这一节约 {minutes} 分钟]",
    },
}

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


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
    if is_table(markdown):
        lines = markdown.strip().split("\n")
        columns = len(table_cells(lines[0]))
        return sum(table_row_height(line, columns) for i, line in enumerate(lines) if i != 1)
    lines = 0
    for line in plain(markdown).split("\n"):
        indent = 44 if re.match(r"^\s*(?:[-*+]|\d+\.)\s", line) else 0
        lines += wrapped_lines(line.strip(), TEXT_PX, CONTENT_WIDTH - indent)
    return lines * TEXT_LINE


_AFTER_TITLE = re.compile(r"<title>cluster_after</title>.*?<text\b[^>]*>([^<]*)</text>", re.DOTALL)


def after_action(svg: str) -> str:
    """The call a before/after picture shows ("out.detach()" from its "after out.detach()")."""
    match = _AFTER_TITLE.search(svg)
    if match is None:
        return ""
    title = html.unescape(match.group(1)).strip()
    return title.split(" ", 1)[1] if " " in title else ""


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
    scale: float | None = None  # a picture shown at this scale (the tiles of one picture)
    notes: list[str] = field(default_factory=list)


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

    def __init__(self, language: str, notes: dict[str, str]) -> None:
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
        kept: list[str] = []
        said: list[str] = []
        lines_used = 0.0
        for block in markdown_blocks(text):
            height = text_height(block)
            if said or (kept and lines_used + height > TEXT_LINES * TEXT_LINE):
                said.append(block)
            else:
                kept.append(block)
                lines_used += height
        for block in kept:
            pieces = split_table(block, BUDGET_PX - 80) if is_table(block) else [block]
            for piece in pieces:
                items.append(Item(markdown_cell(piece), text_height(piece) + BLOCK_GAP, "text"))
        if said:
            note = f"{self.words['said']}\n\n" + "\n\n".join(said)
            (items[-1] if items else self._last_item()).notes.append(note)
        return items

    def _last_item(self) -> Item:
        """The item placed last (for notes of prose that has no item of its own)."""
        for slide in reversed(self.slides):
            if slide.items:
                return slide.items[-1]
        dummy = Item(markdown_cell(""), 0, "text")
        return dummy

    def items_of_code(self, cell: dict) -> list[Item]:
        """The code with its text outputs, then one item per picture (or picture part)."""
        source = source_text(cell).rstrip("\n")
        text_outputs: list[dict] = []
        pictures: list[Item] = []
        notes: list[str] = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "application/vnd.course.frames+json" in data:
                frames = data["application/vnd.course.frames+json"]["frames"]
                pictures += self.items_of_frames(frames)
            elif "image/svg+xml" in data:
                svg = data["image/svg+xml"]
                svg = "".join(svg) if isinstance(svg, list) else svg
                pictures += self.items_of_svg(svg)
            elif "image/png" in data:
                pictures.append(self.item_of_png(output))
            elif "text/html" in data and "text/plain" not in data:
                text_outputs.append(output)
            elif output.get("output_type") in ("stream", "execute_result", "display_data"):
                if not (set(data) - {"text/plain", "application/vnd.jupyter.widget-view+json"}):
                    if (
                        "application/vnd.jupyter.widget-view+json" in data
                        and not stream_text(output).strip()
                    ):
                        continue
                text_outputs.append(self.cut_output(output, notes))
            elif output.get("output_type") == "error":
                text_outputs.append(output)
        outputs_height = sum(self.output_height(o) for o in text_outputs)
        chunks = split_code(source, BUDGET_PX - 70) if source else []
        items = []
        for number, chunk in enumerate(chunks):
            code = dict(copy.deepcopy(cell), source=chunk, outputs=[])
            code["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k == "tags"}
            height = code_height(chunk)
            last = number == len(chunks) - 1
            if last and height + outputs_height <= BUDGET_PX - 70:
                code["outputs"] = text_outputs
                height += outputs_height
                text_outputs = []
            items.append(Item(code, height, "code", notes=notes if last else []))
        if text_outputs:  # too tall to share a slide with its code: right after it
            items.append(Item(output_cell(text_outputs), outputs_height + BLOCK_GAP, "code"))
        if items:
            items[-1].notes = self.predict_notes(cell) + notes
        return items + pictures

    def predict_notes(self, cell: dict) -> list[str]:
        """The question a code slide asks the room, and the answer its output gives."""
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                first = re.split(r"(?<=[.!?])\s", str(output.get("evalue", "")), maxsplit=1)[0]
                return [self.words["ask_error"].format(answer=f"{output.get('ename')}: {first}")]
        texts = [stream_text(o) for o in cell.get("outputs", []) if stream_text(o).strip()]
        if texts:
            answer = "\n".join("\n".join(texts).strip().split("\n")[:4])
            return [self.words["ask_output"].format(answer=answer)]
        return []

    def cut_output(self, output: dict, notes: list[str]) -> dict:
        """A text output of at most OUTPUT_LINES screen lines; all of it goes into `notes`."""
        text = stream_text(output)
        lines = text.rstrip("\n").split("\n")
        width = CONTENT_WIDTH - CODE_PAD
        if wrapped_lines("\n".join(lines), CODE_PX, width, mono=True) <= OUTPUT_LINES:
            return output
        kept: list[str] = []
        for line in lines:
            if wrapped_lines("\n".join([*kept, line]), CODE_PX, width, mono=True) >= OUTPUT_LINES:
                break
            kept.append(line)
        more = self.words["more"].format(n=len(lines) - len(kept))
        notes.append(f"{self.words['output']}\n\n```\n{text.rstrip()}\n```")
        short = "\n".join(kept) + f"\n{more}\n"
        if output.get("output_type") == "stream":
            return {**output, "text": short}
        return {**output, "data": {"text/plain": short}}

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
        """A picture, or its parts when it is too large for a slide with readable labels.

        A before/after becomes before, after and legend; a part (or a picture) still too
        large is cut into tiles between its ranks (slide_pictures.tiles).
        """
        picture = parse(svg)
        if picture is None:
            return []
        if picture.fits(CONTENT_WIDTH, BUDGET_PX):
            return [self.picture_item(picture, False)]
        pieces = parts(picture) or [picture]
        action = after_action(svg)
        items = []
        for piece in pieces:
            pieces_items = self.tile_items(piece, PICTURE_PX, own_slide=True)
            for number, item in enumerate(pieces_items, start=1):
                if number < len(pieces_items):
                    item.notes.append(self.words["tile"])
                elif piece.label == "before" and action:
                    item.notes.append(self.words["ask_before"].format(action=action))
                elif piece.label == "after" and action:
                    item.notes.append(self.words["ask_after"].format(action=action))
                items.append(item)
        return items

    def tile_items(self, picture: Picture, height: float, own_slide: bool) -> list[Item]:
        """A picture as slide-sized tiles (one, when it fits), all shown at one scale."""
        pieces = tiles(picture, CONTENT_WIDTH, height)
        # One scale for every tile of a picture, so that they join up when panning.
        shared = min(
            min(CONTENT_WIDTH / (t.width * PX_PER_PT), height / (t.height * PX_PER_PT))
            for t in pieces
        )
        shared = max(min(shared, MAX_SCALE), picture.scale_for_text())
        items = []
        for number, tile in enumerate(pieces):
            item = self.picture_item(tile, own_slide or number > 0)
            item.scale = shared
            item.height = tile.size_at(shared)[1] + BLOCK_GAP
            items.append(item)
        return items

    def picture_item(self, picture: Picture, own_slide: bool) -> Item:
        """An item for one picture, planned at the size its labels need."""
        _, height = picture.size_at(picture.scale_for_text())
        cell = output_cell([svg_output(picture.svg)])
        return Item(cell, height + BLOCK_GAP, "picture", picture=picture, own_slide=own_slide)

    def item_of_png(self, output: dict) -> Item:
        """A PNG picture (a matplotlib plot), shown at most as large as the slide allows."""
        data = output["data"]["image/png"]
        data = "".join(data) if isinstance(data, list) else data
        width, height = png_size(data)
        scale = min(1.0, CONTENT_WIDTH / width, (BUDGET_PX - 60) / height)
        out = copy.deepcopy(output)
        size = {"width": int(width * scale), "height": int(height * scale)}
        out["metadata"] = {"image/png": size}
        return Item(output_cell([out]), height * scale + BLOCK_GAP, "picture")

    def items_of_frames(self, frames: list[dict]) -> list[Item]:
        """One slide per step of a stepper: the step's code, its "after" picture, notes."""
        items: list[Item] = []
        for number, frame in enumerate(frames, start=1):
            title = self.words["step"].format(n=number, total=len(frames))
            label = f"**{title}:** `{frame['label']}`"
            head = Item(
                markdown_cell(label), text_height(label) + BLOCK_GAP, "text", own_slide=True
            )
            head.notes.append(f"```\n{frame['summary'].rstrip()}\n```")
            items.append(head)
            picture = parse(frame["svg"])
            if picture is None:
                continue
            pieces = parts(picture)
            after = next((p for p in pieces if p.label == "after"), picture)
            items += self.tile_items(after, PICTURE_PX - head.height, own_slide=False)
        return items

    # ---- placing items on slides -------------------------------------------------------------

    def new_slide(self, kind: str, heading: str = "") -> Slide:
        """Start a slide ("slide": a new column; "subslide": below the current one)."""
        if not self.slides:
            kind = "slide"
        slide = Slide(kind, heading=heading)
        if self.pending_notes:
            slide.notes.append(f"{self.words['summary']}\n\n" + "\n\n".join(self.pending_notes))
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

    def place(self, item: Item) -> None:
        """Put one item on the current slide, or on a new one when it does not fit."""
        current = self.slides[-1] if self.slides else None
        if item.kind == "heading" and item.level <= 2:
            current = self.new_slide("slide", item.heading)
        elif item.kind == "heading":
            current = self.new_slide("subslide", item.heading)
        elif current is None:
            current = self.new_slide("slide")
        elif item.own_slide and current.items:
            only_heading = all(i.kind == "heading" for i in current.items)
            if not only_heading or current.used + item.height > BUDGET_PX:
                current = self.new_slide("subslide", current.heading)
        elif current.used + item.height > self.limit(current, item) and current.items:
            current = self.new_slide("subslide", current.heading)
        if item.picture is not None and item.scale is not None:
            width, height = item.picture.size_at(item.scale)
            item.cell = output_cell([svg_output(with_size(item.picture.svg, width, height))])
            item.height = height + BLOCK_GAP
        elif item.picture is not None:
            room = max(self.limit(current, item) - current.used, 0)
            svg, _, height = item.picture.sized(CONTENT_WIDTH, room)
            item.cell = output_cell([svg_output(svg)])
            item.height = height + BLOCK_GAP
        current.items.append(item)
        current.used += item.height
        if item.kind == "heading" and item.heading in self.notes:
            current.notes.insert(0, self.notes.pop(item.heading))
        current.notes += item.notes

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

    def cells(self) -> list[dict]:
        """The deck as notebook cells with slide types for nbconvert."""
        if self.pending_notes and self.slides:
            self.slides[-1].notes.append(
                f"{self.words['summary']}\n\n" + "\n\n".join(self.pending_notes)
            )
            self.pending_notes = []
        out: list[dict] = []
        for slide in self.slides:
            for index, item in enumerate(slide.items):
                cell = item.cell
                if index == 0:
                    kind = slide.kind
                elif item.kind in ("code", "picture") and cell.get("cell_type") == "code":
                    kind = "fragment"
                else:
                    kind = "-"
                cell.setdefault("metadata", {})["slideshow"] = {"slide_type": kind}
                out.append(cell)
            if slide.notes:
                notes = markdown_cell("\n\n".join(n for n in slide.notes if n.strip()))
                notes["metadata"] = {"slideshow": {"slide_type": "notes"}}
                out.append(notes)
        return out


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
    layout = Layout(language, notes)
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
        else:
            items = []
        for item in items:
            layout.place(item)
    if minutes:
        layout.add_minutes(minutes)
    return layout.cells(), sorted(layout.notes), layout.problems
