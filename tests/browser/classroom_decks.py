"""Measure the course's slide decks as a 1280x720 projector shows them (headless Chromium).

Used by test_classroom_in_browser.py; also a command for whoever works on the decks:

    .venv/bin/python tests/browser/classroom_decks.py build/slides [DECK ...]

serves the folder on 127.0.0.1, opens every deck (or the named ones, e.g. 02_detach or
zh/02_detach) at 1280x720, shows every slide with all its fragments and prints, per deck, the
slides taller than the screen, pictures cut off, code lines clipped, the smallest text, the share
of slides with speaker notes and any request that left the local server.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROBE_JS = HERE / "deck_probe.js"
PROJECTOR = {"width": 1280, "height": 720}
SMALLEST_PX = 24.0  # no text on a slide under this
SMALLEST_PICTURE_PX = 18.0  # no label in a picture under this (but see "unfit" below)
NOTES_SHARE = 0.6  # at least this share of slides carry speaker notes


class QuietHandler(SimpleHTTPRequestHandler):
    """http.server's handler without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve `folder` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@dataclass
class DeckReport:
    """What one deck measured, and the problems found in it."""

    deck: str
    lang: str
    slides: list[dict[str, Any]]
    requests: list[str] = field(default_factory=list)
    glyphs: dict[str, Any] = field(default_factory=dict)  # zh decks: deckProbe.cjkGlyphs()

    @property
    def tall(self) -> list[dict[str, Any]]:
        """Slides taller than the screen."""
        return [s for s in self.slides if s["height"] > PROJECTOR["height"] + 1]

    @property
    def cut_pictures(self) -> list[dict[str, Any]]:
        """Slides with a picture cut off."""
        return [s for s in self.slides if s["cutPictures"]]

    @property
    def clipped_code(self) -> list[dict[str, Any]]:
        """Slides with a code line wider than its box, or text past the right edge."""
        return [s for s in self.slides if s["clippedCode"] or s["overflowRight"] > 1]

    @property
    def smallest_text(self) -> float:
        """The smallest text on any slide, in screen pixels."""
        return min((s["smallestText"] for s in self.slides), default=float("inf"))

    @property
    def smallest_picture_text(self) -> float:
        """The smallest text inside any picture, in screen pixels."""
        return min((s["smallestPicture"] for s in self.slides), default=float("inf"))

    @property
    def with_notes(self) -> int:
        """How many slides carry speaker notes."""
        return sum(1 for s in self.slides if s["notes"])

    def small(self) -> list[dict[str, Any]]:
        """Slides with text or picture text under SMALLEST_PX."""
        return [
            s
            for s in self.slides
            if s["smallestText"] < SMALLEST_PX - 0.05
            or s["smallestPicture"] < SMALLEST_PICTURE_PX - 0.05
        ]

    @property
    def blank(self) -> list[dict[str, Any]]:
        """Slides that show nothing."""
        return [s for s in self.slides if not s["text"].strip() and not s["pictures"]]

    @property
    def slivers(self) -> list[dict[str, Any]]:
        """Slides with no heading, no picture and at most one line of text."""
        return [
            s
            for s in self.slides
            if s["text"].strip() and not s["pictures"] and not s["headings"] and s["lines"] <= 1
        ]

    @property
    def in_the_notes(self) -> list[dict[str, Any]]:
        """Slides whose text sends the room to the notes for the rest."""
        ends = ("in the notes", "见演讲者备注")
        return [s for s in self.slides if s["text"].strip().rstrip(".。 ").endswith(ends)]

    @property
    def predict_shown(self) -> list[dict[str, Any]]:
        """Slides whose notes ask the room to predict, with an output already on screen."""
        return [s for s in self.slides if s["askPredict"] and s["outputsOnArrival"]]

    @property
    def duplicates(self) -> list[dict[str, Any]]:
        """Slides showing the same as the slide before them."""
        out = []
        for before, after in zip(self.slides, self.slides[1:], strict=False):
            same = [(p["id"], p["part"]) for p in before["shown"]] == [
                (p["id"], p["part"]) for p in after["shown"]
            ]
            if before["text"] == after["text"] and same:
                out.append(after)
        return out

    def pictures(self) -> dict[str, dict[str, Any]]:
        """Per picture (data-course-picture): whether some slide shows it whole, its largest
        labels there, whether it is an overview (whole only with labels under
        SMALLEST_PICTURE_PX), the builder's reason why (data-course-unfit) and the parts shown
        whole after it."""
        out: dict[str, dict[str, Any]] = {}
        for slide in self.slides:
            for shown in slide["shown"]:
                entry = out.setdefault(
                    shown["id"],
                    {
                        "whole": False,
                        "label": 0.0,
                        "overview": True,
                        "unfit": "",
                        "parts": set(),
                        "step": False,
                    },
                )
                entry["step"] = entry["step"] or shown["part"] == "step"
                if shown["part"] in ("whole", "step") and shown["whole"]:
                    entry["whole"] = True
                    entry["label"] = max(entry["label"], shown["label"])
                    small = shown["label"] < SMALLEST_PICTURE_PX - 0.05
                    entry["overview"] = entry["overview"] and small
                    entry["unfit"] = entry["unfit"] or shown.get("unfit", "")
                elif shown["whole"]:
                    entry["parts"].add(shown["part"])
        return out

    def overviews(self) -> list[str]:
        """Pictures whose whole has labels under SMALLEST_PICTURE_PX on every slide."""
        return [k for k, v in self.pictures().items() if v["whole"] and v["overview"]]

    def unfit(self) -> list[str]:
        """The pictures shown whole only under SMALLEST_PICTURE_PX that the builder proved
        cannot fit a slide at that size, each with its reason ("id: needs WxH px ...")."""
        return [
            f"{self.deck} {k}: {v['unfit']}"
            for k, v in self.pictures().items()
            if v["whole"] and v["overview"] and v["unfit"]
        ]

    def problems(self) -> list[str]:
        """One line per problem, naming the slide (h/v as reveal.js counts them)."""
        out = []

        def where(s: dict[str, Any]) -> str:
            return f"{self.deck} slide {s['h']}/{s['v']} ({s['title'][:40]!r})"

        out += [f"{where(s)}: {s['height']} px tall" for s in self.tall]
        out += [f"{where(s)}: picture cut off {s['cutPictures'][:2]}" for s in self.cut_pictures]
        out += [
            f"{where(s)}: code clipped {s['clippedCode'][:2]}, past the edge {s['overflowRight']}"
            for s in self.clipped_code
        ]
        out += [
            f"{where(s)}: text {s['smallestText']} px ({s['smallestTextSample']!r}),"
            f" pictures {s['smallestPicture']} px"
            for s in self.small()
        ]
        out += [f"{self.deck}: request left the server: {url}" for url in self.requests]
        out += [f"{where(s)}: blank" for s in self.blank]
        out += [f"{where(s)}: sliver ({s['text'][:40]!r})" for s in self.slivers]
        out += [f"{where(s)}: ends 'in the notes'" for s in self.in_the_notes]
        out += [f"{where(s)}: predict slide shows its output" for s in self.predict_shown]
        out += [f"{where(s)}: same as the slide before" for s in self.duplicates]
        for ident, entry in self.pictures().items():
            if not entry["whole"]:
                out.append(f"{self.deck}: picture {ident} never whole on a slide")
            elif entry["overview"] and not entry["unfit"]:
                out.append(
                    f"{self.deck}: picture {ident} whole only at {entry['label']} px labels,"
                    " with no reason why it cannot be larger"
                )
            elif (
                entry["overview"]
                and not entry["step"]
                and not {"before", "after"} <= entry["parts"]
                and "pair" not in entry["parts"]
                and not any(part.startswith("detail") for part in entry["parts"])
            ):
                out.append(
                    f"{self.deck}: picture {ident} whole only at {entry['label']} px labels"
                    f" ({entry['unfit']}), and its parts not shown whole"
                    f" ({sorted(entry['parts'])})"
                )
        if self.glyphs.get("missing"):
            out.append(f"{self.deck}: no glyph in the bundled font for {self.glyphs['missing']}")
        if self.glyphs.get("notFirst"):
            first = self.glyphs["notFirst"][:3]
            out.append(f"{self.deck}: picture text not in the CJK font first: {first}")
        return out

    def line(self) -> str:
        """A one-line summary."""
        return (
            f"{self.deck}: {len(self.slides)} slides, {len(self.tall)} taller than 720 px,"
            f" {len(self.cut_pictures)} with a picture cut off, {len(self.clipped_code)} with"
            f" clipped code, smallest text {self.smallest_text} px, in pictures"
            f" {self.smallest_picture_text} px, notes on {self.with_notes}, lang {self.lang},"
            f" {len(self.requests)} outside requests, {len(self.pictures())} pictures"
            f" ({len(self.pictures()) - len(self.overviews())} whole at >="
            f" {SMALLEST_PICTURE_PX:.0f} px labels, {len(self.unfit())} proved too large),"
            f" {len(self.blank)} blank, {len(self.slivers)} slivers,"
            f" {len(self.predict_shown)} predict slides showing the output,"
            f" CJK glyphs {self.glyphs.get('chars', '-')} ({len(self.glyphs.get('missing', []))}"
            " missing)"
        )


def measure_deck(context: Any, base: str, deck: str) -> DeckReport:
    """Open build/slides/<deck>.slides.html at 1280x720 and measure every slide."""
    page = context.new_page()
    requests: list[str] = []
    allowed = (base, "data:", "blob:", "about:")
    page.on("request", lambda r: None if r.url.startswith(allowed) else requests.append(r.url))
    try:
        page.set_default_timeout(30_000)
        page.goto(f"{base}/{deck}.slides.html")
        page.wait_for_function("() => window.courseReveal && window.courseReveal.isReady()")
        page.add_script_tag(content=PROBE_JS.read_text(encoding="utf-8"))
        result = page.evaluate("() => deckProbe.measureAll()")
        glyphs = page.evaluate("() => deckProbe.cjkGlyphs()") if deck.startswith("zh/") else {}
        return DeckReport(deck, result["lang"], result["slides"], requests, glyphs)
    finally:
        page.close()


def decks_in(folder: Path) -> list[str]:
    """Every deck under folder, as paths without .slides.html (zh/02_detach, ...)."""
    return sorted(
        p.relative_to(folder).as_posix().removesuffix(".slides.html")
        for p in folder.rglob("*.slides.html")
    )


def new_context(browser: Any) -> Any:
    """A browser context the size of a 720p projector."""
    return browser.new_context(viewport=PROJECTOR, device_scale_factor=1)


def main(argv: list[str]) -> int:
    """Measure and print; exit 1 when any deck has a problem."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(HERE))
    from conftest import CHROMIUM_FLAGS  # the same quiet Chromium as the tests

    folder = Path(argv[0] if argv else "build/slides").resolve()
    wanted = argv[1:] or decks_in(folder)
    reports = []
    with serve(folder) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=_chromium(), headless=True, args=CHROMIUM_FLAGS
        )
        context = new_context(browser)
        for deck in wanted:
            report = measure_deck(context, base, deck)
            reports.append(report)
            print(report.line(), flush=True)
        browser.close()
    problems = [p for r in reports for p in r.problems()]
    slides = sum(len(r.slides) for r in reports)
    noted = sum(r.with_notes for r in reports)
    print(
        f"total: {slides} slides, {sum(len(r.tall) for r in reports)} taller than 720 px,"
        f" {sum(len(r.cut_pictures) for r in reports)} with pictures cut off,"
        f" {sum(len(r.clipped_code) for r in reports)} with clipped code, smallest text"
        f" {min(r.smallest_text for r in reports)} px, in pictures"
        f" {min(r.smallest_picture_text for r in reports)} px, notes on {noted}"
        f" ({noted / max(slides, 1):.0%})"
    )
    Path("build").mkdir(exist_ok=True)
    Path("build/deck_measurements.json").write_text(
        json.dumps([r.__dict__ for r in reports], indent=1, ensure_ascii=False), encoding="utf-8"
    )
    unfit = [line for r in reports for line in r.unfit()]
    print(f"{len(unfit)} pictures whole only under {SMALLEST_PICTURE_PX:.0f} px labels, because:")
    print("\n".join(unfit))
    for problem in problems[:80]:
        print(problem)
    return 1 if problems else 0


def _chromium() -> str:
    import shutil

    path = shutil.which("chromium")
    if path is None:
        raise SystemExit("chromium not on PATH: run `bash scripts/setup_browser.sh`")
    return path


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


class _Links(HTMLParser):
    """The href/src of every link, picture, script and style sheet on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and name in ("href", "src") and tag in ("a", "img", "script", "link"):
                self.links.append(value)


def crawl(base: str, start: str = "index.html", limit: int = 3000) -> dict[str, list[str]]:
    """Follow every local link from `start` (bounded); returns {missing URL: pages naming it}.

    Links outside the server (GitHub, Binder, ...) and in-page anchors are not followed; a
    page's own HTML, pictures, scripts, style sheets and downloads are fetched.
    """
    seen: set[str] = set()
    missing: dict[str, list[str]] = {}
    queue = [urllib.parse.urljoin(base + "/", start)]
    while queue and len(seen) < limit:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                kind = response.headers.get("Content-Type", "")
                body = response.read() if "html" in kind else b""
        except urllib.error.HTTPError:
            continue  # reported by whoever linked to it
        parser = _Links()
        parser.feed(body.decode("utf-8", "replace"))
        for link in parser.links:
            target = urllib.parse.urljoin(url, link).split("#", 1)[0]
            if not target.startswith(base) or target in seen:
                continue
            try:
                with urllib.request.urlopen(
                    urllib.request.Request(target, method="HEAD"), timeout=10
                ):
                    pass
            except urllib.error.HTTPError:
                missing.setdefault(target.removeprefix(base), []).append(url.removeprefix(base))
                seen.add(target)
                continue
            if target.endswith((".html", "/")):
                queue.append(target)
            else:
                seen.add(target)
    return missing
