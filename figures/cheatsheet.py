"""The cheat sheet, in English and Chinese, filled in and blank (`make figures`).

    figures/cheatsheet.pdf        front: the table and the rules; back: the pictures
    figures/cheatsheet.png        the front, as a picture (README, website)
    figures/cheatsheet_blank.pdf  the front with only the first column filled in: the
                                  "fill it in from memory" sheet of the teacher's guide
    figures/cheatsheet_zh.pdf, cheatsheet_zh.png, cheatsheet_zh_blank.pdf   the same in Chinese

Each is an HTML page written here, printed to PDF by Debian's Chromium (`chromium --headless
--print-to-pdf`) and photographed to PNG the same way. The page, 210 mm x 279.4 mm, is A4's
width and Letter's height: it prints without scaling or cut-offs on both. The back shows the
before/after pictures that figures/build.py draws, cut to their "after" parts (the part a
call changed, scripts/slide_pictures.py) and printed at PICTURE_SCALE of their size, so their
smallest label prints at 6.75 pt. The Chinese sheets use the Noto Sans SC web font from
vendor/node_modules (scripts/setup_classroom.sh), embedded in the PDF.

Every statement in the table and the rules is what PyTorch 2.13 does;
tests/tooling/test_classroom.py checks each one against torch 2.13 and minigrad. Run through
figures/build.py (it calls `build()` after drawing the pictures); needs `chromium` on PATH.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FONT_CSS = REPO / "vendor" / "node_modules" / "@fontsource" / "noto-sans-sc" / "400.css"
if str(REPO) not in sys.path:  # run as figures/build.py or as a file: scripts is a package here
    sys.path.insert(0, str(REPO))
from scripts.slide_pictures import parse, parts  # noqa: E402 (a picture's before and after parts)

SMALLEST_PRINTED_PT = 6.0  # no label of a picture prints smaller
PICTURE_SCALE = 0.75  # the pictures' smallest labels are 9 pt: printed at 6.75 pt

TEXT = {
    "en": {
        "title": "Cutting the Graph: detach(), detach_(), .data, clone(), no_grad",
        "lead": "What each one does to memory, the version counter, the flags and the graph, as "
        "PyTorch 2.13 does it (minigrad follows). <code>x</code> is a tensor computed from a "
        "leaf that requires grad.",
        "columns": [
            "",
            "memory",
            "version counter",
            "requires_grad · is_leaf · grad_fn",
            "the graph",
        ],  # fmt: skip
        "rows": [
            (
                "c = x.detach()",
                "shared with x",
                "shared with x: an in-place change through c is caught by backward",
                "False · True · None",
                "a new object outside the graph; x's graph is untouched; nothing flows back "
                "through c",
            ),
            (
                "x.detach_()",
                "unchanged (the same object)",
                "unchanged",
                "False · True · None",
                "x itself leaves the graph, for every reference; edges recorded earlier survive, "
                "but a node that saved x raises at backward; refuses views",
            ),
            (
                "d = x.data",
                "shared with x",
                "a fresh counter of its own: changes through d escape the check (silently wrong "
                "gradients)",
                "False · True · None",
                "an untracked alias; x keeps its flags",
            ),
            (
                "y = x.clone()",
                "a new copy",
                "its own",
                "as x · False · CloneBackward0 (when x requires grad)",
                "a node in the graph: gradients flow back to x",
            ),
            (
                "x.detach().clone()",
                "a new copy",
                "its own",
                "False · True · None",
                "an independent snapshot; clone().detach() gives the same after recording a node "
                "it drops",
            ),
            (
                "with no_grad(): y = f(x)",
                "a new result; a view such as x[1:] shares x's",
                "its own; a view shares x's; in-place changes under no_grad still count",
                "False · True · None; a view of x: True · True · None",
                "nothing recorded; x keeps requires_grad (optimiser updates go here)",
            ),
        ],  # fmt: skip
        "rules": [
            "To log, plot or convert: <code>loss.item()</code>, "
            "<code>t.detach().cpu().numpy()</code> (add <code>.copy()</code> to keep old "
            "values).",
            "To update parameters in place: <code>with no_grad(): w -= lr * w.grad</code>, "
            "never <code>w.data</code>.",
            "To freeze a layer: <code>module.requires_grad_(False)</code>; to cut one path: "
            "<code>t.detach()</code>; to build no graph at all: <code>no_grad()</code>.",
            "An in-place change to a tensor saved for backward raises <i>modified by an "
            "inplace operation</i> through <code>detach()</code>, and nothing through "
            "<code>.data</code>.",
            "Why is <code>.grad</code> None? A cut on the path, frozen, not a leaf, or never "
            "used: <code>viz.explain(loss, model)</code> names the cause and the line.",
        ],
        "back": "The pictures (printed at three quarters of their size: the smallest label "
        "is 6.75 pt). Light blue: leaves; grey: backward nodes; orange: saved values; "
        "dashed box: a tensor that does not require grad; dashed frame: shared memory; "
        "thick outline: new; red: changed.",
        "pictures": [
            ("after", "detach_compare", "c = out.detach(): a new leaf on the same memory"),
            (
                "after",
                "detach__compare",
                "b.detach_(): b itself is cut; s = b.sum() keeps its edge",
            ),
            ("after", "data_compare", "d = out.data: the same memory, its own version counter"),
        ],  # fmt: skip
        "blank": "Fill in from memory, then compare with the printed sheet.",
        "footer": "Generated by figures/cheatsheet.py (make figures); every statement is checked "
        "against torch 2.13 by tests/tooling/test_classroom.py.",
    },
    "zh": {
        "title": "切断计算图：detach()、detach_()、.data、clone()、no_grad",
        "lead": "它们各自对内存、版本计数器、标志和计算图做了什么（以 PyTorch 2.13 为准，minigrad "
        "与之一致）。<code>x</code> 是由一个需要梯度的叶子张量计算出来的张量。",
        "columns": ["", "内存", "版本计数器", "requires_grad · is_leaf · grad_fn", "计算图"],
        "rows": [
            (
                "c = x.detach()",
                "与 x 共享",
                "与 x 共享：通过 c 的原地修改会被 backward 发现",
                "False · True · None",
                "计算图之外的一个新对象；x 的计算图不变；梯度不会经 c 回传",
            ),
            (
                "x.detach_()",
                "不变（同一个对象）",
                "不变",
                "False · True · None",
                "x 本身离开计算图，所有引用都看得到；之前记录的边仍然保留，但保存了 x 的节点会在 "
                "backward 时报错；不能用于视图",
            ),
            (
                "d = x.data",
                "与 x 共享",
                "自己的新计数器：通过 d 的修改逃过检查（梯度悄悄出错）",
                "False · True · None",
                "不被追踪的别名；x 的标志不变",
            ),
            (
                "y = x.clone()",
                "新的副本",
                "自己的",
                "与 x 相同 · False · CloneBackward0（x 需要梯度时）",
                "计算图中的一个节点：梯度回传到 x",
            ),
            (
                "x.detach().clone()",
                "新的副本",
                "自己的",
                "False · True · None",
                "独立的快照；clone().detach() 结果相同，只是先记录了一个随后丢弃的节点",
            ),
            (
                "with no_grad(): y = f(x)",
                "新的结果；视图（如 x[1:]）与 x 共享",
                "自己的；视图与 x 共享；在 no_grad 下的原地修改照样计数",
                "False · True · None；x 的视图：True · True · None",
                "什么都不记录；x 仍然需要梯度（优化器的更新写在这里）",
            ),
        ],  # fmt: skip
        "rules": [
            "记录、画图或转换：<code>loss.item()</code>、<code>t.detach().cpu().numpy()</code>"
            "（要保留旧值就再加 <code>.copy()</code>）。",
            "原地更新参数：<code>with no_grad(): w -= lr * w.grad</code>，不要用 "
            "<code>w.data</code>。",
            "冻结一层：<code>module.requires_grad_(False)</code>；切断一条路径："
            "<code>t.detach()</code>；完全不建计算图：<code>no_grad()</code>。",
            "对 backward 要用到的已保存张量做原地修改：经 <code>detach()</code> 会报 "
            "<i>modified by an inplace operation</i>，经 <code>.data</code> 则什么都不报。",
            "<code>.grad</code> 为什么是 None？路径被切断、被冻结、不是叶子或从未用到："
            "<code>viz.explain(loss, model)</code> 指出原因和行号。",
        ],
        "back": "图（按原尺寸的四分之三打印：最小的标签为 6.75 pt）。"
        "浅蓝：叶子张量；灰色：反向节点；橙色：保存的值；虚线框：不需要梯度的张量；"
        "虚线边框：共享内存；粗边框：新建；红色：被改变。",
        "pictures": [
            ("after", "detach_compare_zh", "c = out.detach()：同一块内存上的新叶子"),
            ("after", "detach__compare_zh", "b.detach_()：b 本身被切断；s = b.sum() 保留它的边"),
            ("after", "data_compare_zh", "d = out.data：同一块内存，自己的版本计数器"),
        ],
        "blank": "凭记忆填写，再和印好的速查表对照。",
        "footer": "由 figures/cheatsheet.py 生成（make figures）；"
        "每一条都由 tests/tooling/test_classroom.py 对照 torch 2.13 检查。",
    },
}

STYLE = """
@page { size: 210mm 279.4mm; margin: 10mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { width: 190mm; margin: 0 auto; font-family: "DejaVu Sans", Arial, "Noto Sans SC",
       sans-serif; font-size: 8.5pt; color: #111; line-height: 1.3; }
h1 { font-size: 14pt; margin: 0 0 1mm; }
p.lead { margin: 0 0 3mm; color: #333; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 0.3mm solid #999; padding: 1.2mm 1.4mm; vertical-align: top; text-align: left; }
th { background: #e8eef6; }
td:first-child, th:first-child { width: 37mm; }
th:nth-child(2) { width: 27mm; }
th:nth-child(4) { width: 33mm; }
.blank td { height: 26mm; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 8.2pt; }
td:first-child code { font-weight: bold; }
ul.rules { margin: 3mm 0 2mm; padding-left: 5mm; }
ul.rules li { margin: 1mm 0; }
.back { break-before: page; }
.pictures { display: flex; flex-wrap: wrap; gap: 3mm; align-items: flex-start; }
figure { margin: 0; border: 0.3mm solid #ccc; border-radius: 1.5mm; padding: 1.5mm;
         break-inside: avoid; }
figure img { display: block; margin: 0 auto; }
figcaption { text-align: center; font-size: 8.5pt; margin-top: 0.8mm; max-width: 100%; }
footer { margin-top: 2mm; font-size: 7.5pt; color: #555; }
"""


def picture_files(language: str, work: Path) -> list[tuple[str, float, float, str]]:
    """The back's pictures as SVG files in `work`: (file name, width pt, height pt, caption)
    at PICTURE_SCALE of their size."""
    out = []
    for part, stem, caption in TEXT[language]["pictures"]:
        picture = parse((HERE / f"{stem}.svg").read_text(encoding="utf-8"))
        assert picture is not None, stem
        piece = next(p for p in parts(picture) if p.label == part)
        name = f"{stem}_{part}.svg"
        (work / name).write_text(piece.svg, encoding="utf-8")
        out.append((name, piece.width * PICTURE_SCALE, piece.height * PICTURE_SCALE, caption))
    return out


def page_html(language: str, blank: bool, pictures: list[tuple[str, float, float, str]]) -> str:
    """One cheat sheet as an HTML page (pictures referenced next to it)."""
    text = TEXT[language]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in text["columns"])
    body = "\n".join(
        "<tr>"
        + f"<td><code>{html.escape(code)}</code></td>"
        + "".join(f"<td>{'' if blank else html.escape(cell)}</td>" for cell in cells)
        + "</tr>"
        for code, *cells in text["rows"]
    )
    rules = "".join(f"<li>{rule}</li>" for rule in text["rules"])
    figures = "\n".join(
        f'<figure style="width: {w + 6:.0f}pt"><img src="{name}" style="width: {w:.1f}pt; '
        f'height: {h:.1f}pt" alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}'
        "</figcaption></figure>"
        for name, w, h, caption in pictures
    )
    font = f'<link rel="stylesheet" href="{FONT_CSS.as_uri()}">' if language == "zh" else ""
    lang = "zh-CN" if language == "zh" else "en"
    back = (
        ""
        if blank
        else f'<section class="back"><p class="lead">{text["back"]}</p>'
        f'<div class="pictures">{figures}</div></section>'
    )
    extra = f'<p class="lead"><b>{html.escape(text["blank"])}</b></p>' if blank else ""
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(text["title"])}</title>
{font}<style>{STYLE}</style></head>
<body>
<h1>{html.escape(text["title"])}</h1>
<p class="lead">{text["lead"]}</p>{extra}
<table class="{"blank" if blank else ""}"><thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody></table>
{"" if blank else f'<ul class="rules">{rules}</ul>'}
<footer>{html.escape(text["footer"])}</footer>
{back}
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
             "--disable-dev-shm-usage", "--allow-file-access-from-files",
             "--virtual-time-budget=5000"]  # fmt: skip
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
    """Write every sheet (see the module docstring); returns the files written."""
    if not FONT_CSS.exists():
        raise SystemExit(
            "cheatsheet: the Chinese sheets need vendor/node_modules: run "
            "`bash scripts/setup_classroom.sh`"
        )
    work = REPO / "build" / "cheatsheet"
    work.mkdir(parents=True, exist_ok=True)
    written = []
    for language in ("en", "zh"):
        suffix = "_zh" if language == "zh" else ""
        pictures = picture_files(language, work)
        for blank in (False, True):
            name = f"cheatsheet{suffix}{'_blank' if blank else ''}"
            page = work / f"{name}.html"
            page.write_text(page_html(language, blank, pictures), encoding="utf-8")
            pdf = out_dir / f"{name}.pdf"
            chromium("--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
            fix_pdf_dates(pdf)
            written.append(pdf)
            if not blank:
                # 210 mm x 279.4 mm at 96 px/inch is 794 x 1056 px; scale 2 keeps text sharp.
                png = out_dir / f"{name}.png"
                chromium(
                    "--hide-scrollbars",
                    "--force-device-scale-factor=2",
                    "--window-size=794,1056",
                    f"--screenshot={png}",
                    page.as_uri(),
                )
                written.append(png)
    return written


if __name__ == "__main__":
    for path in build():
        print(f"wrote figures/{path.name}")
