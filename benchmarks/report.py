"""What a run prints: the aligned tables, the headline ratios, times with units."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .harness import Result, ratio


def size_text(n: int) -> str:
    """10**7 -> '1e7', 1000 -> '1e3', 200 -> '200'."""
    exponent = round(math.log10(n)) if n > 0 else 0
    return f"1e{exponent}" if n >= 1000 and 10**exponent == n else str(n)


def find(
    results: Sequence[Result], row: str, case: str, impl: str, note: str = ""
) -> Result | None:
    """The first measured result with these keys whose note contains `note`, if any."""
    for result in results:
        if (result.row, result.case, result.impl) == (row, case, impl) and not result.skipped:
            if note in result.note:
                return result
    return None


def ratios(results: Sequence[Result]) -> dict[str, float]:
    """The headline comparisons other than minigrad / torch (which `vs_torch_table` shows), as
    "how many times slower than": per-round ratios where measured together (`harness.ratio`)."""
    out: dict[str, float] = {}

    def add(label: str, row: str, case: str, top: tuple[str, str], bottom: tuple[str, str]) -> None:
        a, b = find(results, row, case, *top), find(results, row, case, *bottom)
        if a is not None and b is not None:
            out[label] = ratio(a, b)

    for shape in ("(3,)", "(64, 64)"):
        case = f"tiny graph {shape}"
        add(
            f"{case}: minigrad / numpy fwd only",
            "vs-torch",
            case,
            ("minigrad", ""),
            ("numpy", "fwd only"),
        )
    for row, kept in (("large", ""), ("large-kept", ", memory kept")):
        for n in ("1e6", "1e7"):
            for impl in ("minigrad", "torch"):
                label = f"large n={n}{kept}: {impl} / numpy floor"
                add(label, row, f"n={n}", (impl, ""), ("numpy", ""))
    case = "mlp step 8-64-1, batch 64"
    for gc_state in ("gc on", "gc off"):
        label = f"mlp step: micrograd ({gc_state}) / minigrad"
        add(label, "micrograd", case, ("micrograd", gc_state), ("minigrad", ""))
    return out


def vs_torch_table(rows: Sequence[dict[str, Any]]) -> str:
    """The minigrad / torch workloads as aligned text (rows from `rows_vs_torch.summary`)."""
    lines = [
        "minigrad / torch: one process, alternating rounds, one thread, "
        "median of the per-round ratios:",
        f"  {'workload':48} {'minigrad':>10} {'torch':>10} {'ratio':>7}  target",
    ]
    for row in rows:
        name = ("  - " if row["variant_of"] else "") + row["name"]
        flag = "" if row["meets_target"] else "  <-- over"
        lines.append(
            f"  {name:48} {format_seconds(row['minigrad_s']):>10} "
            f"{format_seconds(row['torch_s']):>10} {row['ratio']:6.2f}x  <= {row['target']:g}x"
            f"{' ' + row['unit'] if row['unit'] != 'per call' else ''}{flag}"
        )
    compared = [row for row in rows if row.get("after_vs_before") is not None]
    if compared:
        lines.append("")
        lines.append(
            f"today's minigrad / {compared[0]['before']} (A/B: the same rounds, one process):"
        )
        noise = [row["noise"] for row in compared if row.get("noise") is not None]
        for row in compared:
            name = ("  - " if row["variant_of"] else "") + row["name"]
            same = f"   noise {row['noise']:6.3f}x" if row.get("noise") is not None else ""
            lines.append(f"  {name:48} {row['after_vs_before']:6.3f}x{same}")
        if noise:
            lines.append(
                f"  noise: {compared[0]['before']} against a second copy of itself, in the same "
                f"rounds: {min(noise):.3f}x to {max(noise):.3f}x; a difference inside that range "
                "is not measured"
            )
    return "\n".join(lines)


def format_seconds(seconds: float) -> str:
    """A time with a unit that keeps three or four significant digits."""
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def table(results: Sequence[Result]) -> str:
    """The results as an aligned text table: median, quartiles, min-max, repeats x loops."""
    header = ("row", "case", "impl", "median", "IQR (q1-q3)", "min-max", "runs", "note")
    lines = [header]
    for r in results:
        if r.skipped:
            lines.append((r.row, r.case, r.impl, "-", "-", "-", "-", r.note))
            continue
        s = r.stats()
        lines.append(
            (
                r.row,
                r.case,
                r.impl,
                format_seconds(s["median"]),
                f"{format_seconds(s['q1'])} - {format_seconds(s['q3'])}",
                f"{format_seconds(s['min'])} - {format_seconds(s['max'])}",
                f"{len(r.times)}x{r.number}",
                r.note,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    text = []
    for index, line in enumerate(lines):
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        text.append("  ".join([*cells, line[-1]]).rstrip())
        if index == 0:
            text.append("  ".join("-" * w for w in widths) + "  ----")
    return "\n".join(text)
