"""What a run prints: the aligned table, the headline ratios, times with units."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .harness import Result
from .workloads import MLP_BATCH, MLP_HIDDEN


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
    """The headline comparisons, as 'how many times slower than' (median / median)."""
    out: dict[str, float] = {}

    def ratio(
        label: str, row: str, case: str, top: str, bottom: str, note: str = "", top_note: str = ""
    ) -> None:
        a = find(results, row, case, top, top_note)
        b = find(results, row, case, bottom, note)
        if a is not None and b is not None:
            out[label] = a.stats()["median"] / b.stats()["median"]

    for shape in ("(3,)", "(64, 64)"):
        ratio(
            f"overhead {shape}: minigrad / torch", "overhead", f"shape {shape}", "minigrad", "torch"
        )
        ratio(
            f"overhead {shape}: minigrad / numpy fwd only",
            "overhead",
            f"shape {shape}",
            "minigrad",
            "numpy",
            "fwd only",
        )
    for row, kept in (("large", ""), ("large-kept", ", memory kept")):
        for n in ("1e6", "1e7"):
            for impl in ("minigrad", "torch"):
                label = f"large n={n}{kept}: {impl} / numpy floor"
                ratio(label, row, f"n={n}", impl, "numpy")
    case_mlp = f"batch {MLP_BATCH}, hidden {MLP_HIDDEN}"
    ratio("mlp step: minigrad / torch", "mlp", case_mlp, "minigrad", "torch")
    for gc_state in ("gc on", "gc off"):
        label = f"mlp step: micrograd ({gc_state}) / minigrad"
        ratio(label, "mlp", case_mlp, "micrograd", "minigrad", top_note=gc_state)
    return out


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
