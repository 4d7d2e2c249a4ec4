"""The README "Performance" sections: Markdown from a run's JSON, written between markers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from . import paths
from .report import format_seconds
from .rows_viz import RENDER_TIMEOUT


def summary_lines(data: dict[str, Any]) -> list[str]:
    """The short table: one line per question, one column per implementation (medians)."""
    results = data["results"]

    def median(row: str, case: str, impl: str, note: str = "") -> str:
        for r in results:
            if (r["row"], r["case"], r["impl"]) == (row, case, impl) and note in r["note"]:
                if r["times"]:
                    return format_seconds(r["median_s"])
                return f"> {RENDER_TIMEOUT:.0f} s" if "took over" in r["note"] else "-"
        return "-"

    def cases(row: str) -> list[str]:
        return list(dict.fromkeys(r["case"] for r in results if r["row"] == row))

    def vs_torch(case: str, impl: str, note: str = "") -> str:
        return median("vs-torch", case, impl, note)

    lines = [
        "| measured (median) | minigrad | torch 2.13 eager | numpy floor | micrograd |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for shape in ("(3,)", "(64, 64)"):
        case = f"tiny graph {shape}"
        if case in cases("vs-torch"):
            floor = vs_torch(case, "numpy", "fwd only")
            lines.append(
                f"| `(a*b + a).sigmoid().sum()` fwd+bwd, {shape} | {vs_torch(case, 'minigrad')} "
                f"| {vs_torch(case, 'torch')} | {floor} (fwd only) | |"
            )
    for row, kept in (("large", ""), ("large-kept", ", allocator keeps freed memory")):
        for case in cases(row):
            lines.append(
                f"| same, {case.removeprefix('n=')} elements{kept} "
                f"| {median(row, case, 'minigrad')} | {median(row, case, 'torch')} "
                f"| {median(row, case, 'numpy')} | |"
            )
    for case in cases("alias"):
        if not case.endswith("n=10"):
            lines.append(
                f"| `{case.split(' n=')[0]}`, {case.split(' n=')[-1]} elements "
                f"| {median('alias', case, 'minigrad')} | {median('alias', case, 'torch')} "
                f"| {median('alias', case, 'numpy')} | |"
            )
    mlp_case = "mlp step 8-64-1, batch 64"
    if mlp_case in cases("vs-torch") or mlp_case in cases("micrograd"):
        lines.append(
            f"| MLP training step 8-64-1, batch 64 | {vs_torch(mlp_case, 'minigrad')} "
            f"| {vs_torch(mlp_case, 'torch')} | "
            f"| {median('micrograd', mlp_case, 'micrograd', 'gc on')} "
            f"({median('micrograd', mlp_case, 'micrograd', 'gc off')} with gc off), scaled from "
            "a smaller batch |"
        )
    for case in cases("chain"):
        lines.append(
            f"| chain of {case}: build / backward "
            f"| {median('chain', case, 'minigrad', 'forward')} / "
            f"{median('chain', case, 'minigrad', 'backward')} "
            f"| {median('chain', case, 'torch', 'forward')} / "
            f"{median('chain', case, 'torch', 'backward')} | | |"
        )
    for case in cases("viz"):
        lines.append(
            f"| `viz.draw` / render to SVG, {case} | {median('viz', case, 'minigrad', 'build')} / "
            f"{median('viz', case, 'minigrad', 'render')} | | | |"
        )
    for r in results:
        if r["row"] == "course":
            figure = format_seconds(r["median_s"]) if r["times"] else "-"
            lines.append(f"| whole course through nbval ({r['case']}) | {figure} | | | |")
    return lines


def markdown(data: dict[str, Any]) -> str:
    """A short 'Performance' section for a README, then every row, from a run's JSON."""
    m = data["machine"]
    load = m.get("load_average_at_start") or [float("nan")]
    peers = f"torch {m['torch']} (one thread)" if m["torch"] else "no torch"
    dot_version = re.search(r"version (\S+)", m["graphviz_dot"] or "")
    dot = f"Graphviz {dot_version.group(1)}" if dot_version else "no Graphviz"
    if load[0] > m["cores"]:
        quiet = f"load average {load[0]:.1f} at the start: other work was sharing the machine."
    else:
        quiet = f"load average {load[0]:.1f} at the start (an otherwise quiet machine)."
    lines = [
        "## Performance",
        "",
        f"Measured by `make bench` on {m['date_utc']} UTC: {m['cpu']}, {m['cores']} cores, "
        f"Python {m['python']}, numpy {m['numpy']}, {peers}, micrograd {m['micrograd']}, "
        f"{dot}; minigrad at commit {m['minigrad_commit']}; {quiet}",
        "",
        *summary_lines(data),
        "",
        "numpy floor: the same arithmetic written by hand in numpy (forward only for the two small "
        "shapes). micrograd is a scalar engine: timed on a smaller batch and scaled up. "
        "`shared w`: one weight reused at every step, as in an unrolled RNN. Method, caveats and "
        "every measured row: `benchmarks/README.md`.",
        "",
        "Ratios from the same run (median / median):",
        "",
        *[f"- {label}: {value:.2f}x" for label, value in data["ratios"].items()],
        "",
        *vs_torch_lines(data.get("vs_torch", [])),
        "### Every row",
        "",
        "| row | case | impl | median | IQR (q1 - q3) | runs | note |",
        "| --- | --- | --- | ---: | --- | --- | --- |",
    ]
    for r in data["results"]:
        if r["times"]:
            median = format_seconds(r["median_s"])
            iqr = f"{format_seconds(r['q1_s'])} - {format_seconds(r['q3_s'])}"
            runs = f"{r['repeats']}x{r['number']}"
        else:
            median = iqr = runs = "-"
        note = r["note"].replace("|", "/")
        lines.append(
            f"| {r['row']} | {r['case']} | {r['impl']} | {median} | {iqr} | {runs} | {note} |"
        )
    lines += ["", "Checks printed by the same run:", ""]
    lines += [f"- {line}" for line in data["checks"]]
    return "\n".join(lines) + "\n"


def vs_torch_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The minigrad / torch table: each bench workload, then the same work as users write it."""
    if not rows:
        return []
    lines = [
        "minigrad / torch, each workload measured in one process, the two taking turns round by "
        "round, one thread each; the ratio is the median of the per-round ratios. Indented "
        "lines are the same work written as users write it (`benchmarks/workloads.py`):",
        "",
        "| workload | minigrad | torch | minigrad / torch | target |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        name = f"&nbsp;&nbsp;{row['name']}" if row["variant_of"] else row["name"]
        unit = f" ({row['unit']})" if row["unit"] != "per call" else ""
        verdict = "" if row["meets_target"] else " **(over)**"
        lines.append(
            f"| {name}{unit} | {format_seconds(row['minigrad_s'])} "
            f"| {format_seconds(row['torch_s'])} | {row['ratio']:.2f}x{verdict} "
            f"| <= {row['target']:g}x |"
        )
    return [*lines, ""]


README_MARKER = (
    "<!-- copied from benchmarks/README.md (python -m benchmarks --readme writes it) -->"
)
BENCH_START = "<!-- performance:start (generated: python -m benchmarks --markdown) -->"
BENCH_END = "<!-- performance:end -->"


def update_readmes(data: dict[str, Any]) -> list[Path]:
    """Write a run's Performance section into benchmarks/README.md and README.md (--readme).

    benchmarks/README.md gets the whole section between its markers; README.md gets the short
    part (the table and the ratios), from its marker line to the link to the full method.
    """
    section = markdown(data)
    written = []
    bench_readme = paths.HERE / "README.md"
    text = bench_readme.read_text()
    if BENCH_START in text and BENCH_END in text:
        head, rest = text.split(BENCH_START, 1)
        tail = rest.split(BENCH_END, 1)[1]
        bench_readme.write_text(f"{head}{BENCH_START}\n{section}{BENCH_END}{tail}")
        written.append(bench_readme)
    readme = paths.REPO / "README.md"
    text = readme.read_text()
    end_marker = "Full method, caveats and every measured row"
    if README_MARKER in text and end_marker in text.split(README_MARKER, 1)[1]:
        head, rest = text.split(README_MARKER, 1)
        tail = rest[rest.index(end_marker) :]
        short = section.split("### Every row", 1)[0].split("\n", 2)[2]  # without "## Performance"
        readme.write_text(f"{head}{README_MARKER}\n{short}{tail}")
        written.append(readme)
    return written
