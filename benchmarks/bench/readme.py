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

    lines = [
        "| measured (median) | minigrad | torch 2.13 eager | numpy floor | micrograd |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for case in cases("overhead"):
        lines.append(
            f"| `(a*b + a).sigmoid().sum()` fwd+bwd, {case.replace('shape ', '')} "
            f"| {median('overhead', case, 'minigrad')} | {median('overhead', case, 'torch')} "
            f"| {median('overhead', case, 'numpy', 'fwd only')} (fwd only) | |"
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
    for case in cases("mlp"):
        lines.append(
            f"| MLP training step 2-64-1, {case} | {median('mlp', case, 'minigrad')} "
            f"| {median('mlp', case, 'torch')} | "
            f"| {median('mlp', case, 'micrograd', 'gc on')} "
            f"({median('mlp', case, 'micrograd', 'gc off')} with gc off), scaled from a smaller "
            "batch |"
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
        *agreement_lines(data.get("agreement")),
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


def agreement_lines(agreement: dict[str, Any] | None) -> list[str]:
    """Issue 12's ratios as this run measured them and as the plain loop did, side by side."""
    if agreement is None:
        return []
    lines = [
        "Issue 12's targets, minigrad / torch, measured twice: by this run (the `vs-torch` row) "
        "and by the plain alternating loop `benchmarks/alternating.py` in a process of its own "
        f"(the two must agree within {agreement['tolerance']:.0%}):",
        "",
    ]
    if "error" in agreement:
        return [*lines, f"**The plain loop did not run:** {agreement['error']}", ""]
    lines += [
        "| workload | make bench | plain loop | difference | target |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for w in agreement["workloads"]:
        flag = "" if w["agree"] else " **(disagree)**"
        lines.append(
            f"| {w['name']} ({w['unit']}) | {w['harness_ratio']:.2f}x | {w['plain_ratio']:.2f}x "
            f"| {w['difference']:+.0%}{flag} | <= {w['target']:g}x |"
        )
    return [*lines, ""]


README_MARKER = "<!-- copied from benchmarks/README.md (make bench writes it) -->"
BENCH_START = "<!-- performance:start (generated: benchmarks/run.py --markdown) -->"
BENCH_END = "<!-- performance:end -->"


def update_readmes(data: dict[str, Any]) -> list[Path]:
    """Write a full run's Performance section into benchmarks/README.md and README.md.

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
