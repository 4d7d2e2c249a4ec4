"""The one-page cheat sheet: figures/cheatsheet.pdf and figures/cheatsheet.png (`make figures`).

The page is HTML written here (the table of what each tool does, and three of the before/after
pictures that figures/build.py draws), printed to PDF by Debian's Chromium
(`chromium --headless --print-to-pdf`) and photographed to PNG the same way. The page size,
210 mm x 279.4 mm, is A4's width and Letter's height: it prints without scaling or cut-offs
on both. Every fact in the table is shown by a notebook and checked against torch 2.13.

Run through figures/build.py (it calls `build()` after drawing the pictures); needs `chromium`
on PATH (`bash scripts/setup_browser.sh` installs it).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PICTURES = [
    ("detach_compare.svg", "c = out.detach(): a new leaf on the same memory; the edge is gone"),
    ("detach__compare.svg", "b.detach_(): b itself is cut; s = b.sum() keeps its edge"),
    ("data_compare.svg", "d = out.data: same memory, its own version counter"),
]
COLUMNS = ["", "memory", "version counter", "requires_grad · is_leaf · grad_fn", "the graph"]
# (code, memory, version counter, flags, graph): what notebooks 02-05 show (docs/cheatsheet.md).
ROWS = [
    (
        "c = x.detach()",
        "shared with x",
        "shared with x: an in-place change to c is caught by backward",
        "False · True · None",
        "new object, outside the graph; x's graph is untouched; nothing flows back through c",
    ),
    (
        "x.detach_()",
        "unchanged (same object)",
        "unchanged",
        "False · True · None",
        "x itself leaves the graph, for every reference; edges recorded earlier survive; "
        "refuses views",
    ),
    (
        "d = x.data",
        "shared with x",
        "its own fresh counter: changes through d escape the check (silently wrong grads)",
        "False · True · None",
        "untracked alias; x keeps its flags",
    ),
    (
        "y = x.clone()",
        "new copy",
        "its own",
        "as x · False · CloneBackward0 (when x requires grad)",
        "a node in the graph: gradients flow back to x",
    ),
    (
        "x.detach().clone()",
        "new copy",
        "its own",
        "False · True · None",
        "independent snapshot; clone().detach() gives the same after recording a node it drops",
    ),
    (
        "with no_grad(): y = f(x)",
        "new result (a view still shares)",
        "its own; in-place changes under no_grad still count",
        "False · True · None (a view of x keeps requires_grad)",
        "nothing recorded; x keeps requires_grad (optimiser updates go here)",
    ),
]

STYLE = """
@page { size: 210mm 279.4mm; margin: 10mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { width: 190mm; margin: 0 auto; font-family: "DejaVu Sans", Arial, sans-serif;
       font-size: 8pt; color: #111; line-height: 1.25; }
h1 { font-size: 14pt; margin: 0 0 1mm; }
p.lead { margin: 0 0 3mm; color: #333; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 0.3mm solid #999; padding: 0.9mm 1.4mm; vertical-align: top; text-align: left; }
th { background: #e8eef6; }
td:first-child, th:first-child { width: 37mm; }
th:nth-child(2) { width: 27mm; }
th:nth-child(4) { width: 33mm; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 7.8pt; }
td:first-child code { font-weight: bold; }
ul.rules { margin: 2.5mm 0 2mm; padding-left: 5mm; }
ul.rules li { margin: 0.6mm 0; }
.pictures { display: flex; flex-direction: column; gap: 2mm; margin-top: 1mm; }
figure { margin: 0; border: 0.3mm solid #ccc; border-radius: 1.5mm; padding: 1.5mm;
         break-inside: avoid; }
figure img { display: block; margin: 0 auto; max-width: 100%; height: 47mm; }
.row figure img { height: 42mm; }
figcaption { text-align: center; font-size: 8pt; margin-top: 0.8mm; }
.row { display: flex; gap: 2mm; }
.row figure { flex: 1; }
footer { margin-top: 2mm; font-size: 7pt; color: #555; }
"""

RULES = [
    "To log, plot or convert: <code>loss.item()</code>, <code>t.detach().cpu().numpy()</code> "
    "(add <code>.copy()</code> to keep old values).",
    "To update parameters in place: <code>with no_grad(): w -= lr * w.grad</code>, never "
    "<code>w.data</code>.",
    "To freeze a layer: <code>module.requires_grad_(False)</code>; to cut one path: "
    "<code>t.detach()</code>; to build no graph at all: <code>no_grad()</code>.",
    "An in-place change to a tensor saved for backward raises <i>modified by an inplace "
    "operation</i> through <code>detach()</code>, and nothing through <code>.data</code>.",
]


def page_html() -> str:
    """The cheat sheet as one HTML page (pictures referenced next to it in figures/)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "\n".join(
        "<tr>"
        + f"<td><code>{html.escape(code)}</code></td>"
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in cells)
        + "</tr>"
        for code, *cells in ROWS
    )
    figures = [
        f'<figure><img src="{name}" alt="{html.escape(caption)}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for name, caption in PICTURES
    ]
    rules = "".join(f"<li>{rule}</li>" for rule in RULES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Cutting the Graph: cheat sheet</title>
<style>{STYLE}</style></head>
<body>
<h1>Cutting the Graph: detach(), detach_(), .data, clone(), no_grad</h1>
<p class="lead">What each one does to memory, the version counter, the flags and the graph
(PyTorch 2.13; minigrad behaves the same). <code>x</code> is a tensor computed from a leaf that
requires grad.</p>
<table><thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody></table>
<ul class="rules">{rules}</ul>
<div class="pictures">
{figures[0]}
<div class="row">{figures[1]}{figures[2]}</div>
</div>
<footer>Generated by figures/cheatsheet.py (make figures). Light blue: leaves; grey: backward
nodes; orange: saved values; dashed box: a detached tensor; dashed frame: shared memory.</footer>
</body></html>
"""


def chromium(*args: str) -> None:
    """Run headless Chromium once; fail with its output if it does not succeed."""
    executable = shutil.which("chromium")
    if executable is None:
        raise SystemExit(
            "cheatsheet: `chromium` is not on PATH; run `bash scripts/setup_browser.sh` first"
        )
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage"]  # fmt: skip
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [executable, *flags, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode != 0:
        raise SystemExit(f"cheatsheet: chromium failed: {done.stderr.strip()[-800:]}")


def fix_pdf_dates(pdf: Path) -> None:
    """Replace the creation and modification dates with a fixed one, so rebuilding the sheet
    leaves the committed PDF unchanged. Same length, so the PDF's byte offsets stay valid."""
    data = pdf.read_bytes()
    data = re.sub(rb"/(CreationDate|ModDate) \(D:\d{14}", rb"/\1 (D:20000101000000", data)
    pdf.write_bytes(data)


def build(out_dir: Path = HERE) -> list[Path]:
    """Write cheatsheet.html (kept in build/), cheatsheet.pdf and cheatsheet.png."""
    work = HERE.parent / "build" / "cheatsheet"
    work.mkdir(parents=True, exist_ok=True)
    for name, _ in PICTURES:
        shutil.copy2(HERE / name, work / name)
    page = work / "cheatsheet.html"
    page.write_text(page_html(), encoding="utf-8")
    pdf, png = out_dir / "cheatsheet.pdf", out_dir / "cheatsheet.png"
    chromium("--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
    fix_pdf_dates(pdf)
    # 210 mm x 279.4 mm at 96 px/inch is 794 x 1056 px; scale 2 keeps small text sharp.
    chromium(
        "--hide-scrollbars",
        "--force-device-scale-factor=2",
        "--window-size=794,1056",
        f"--screenshot={png}",
        page.as_uri(),
    )
    return [pdf, png]
