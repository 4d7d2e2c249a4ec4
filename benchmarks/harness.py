"""One measured line of the table (Result) and what every row gets (Context)."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from .timing import Clock, Settings, measure, paired_ratio


@dataclass
class Result:
    """One line of the table: a case of a row, measured for one implementation."""

    row: str
    case: str
    impl: str
    times: list[float] = field(default_factory=list)  # seconds per call, one per round
    number: int = 1  # calls per timed block
    scale: float = 1.0  # factor applied to every time (micrograd's smaller batch, per op)
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    group: int = 0  # results measured together (taking turns) share a group number; 0: alone

    @property
    def skipped(self) -> bool:
        """True when nothing was measured (a peer or module is missing)."""
        return not self.times

    def stats(self) -> dict[str, float]:
        """Median, quartiles and extremes of the per-call times, in seconds."""
        values = sorted(t * self.scale for t in self.times)
        if len(values) >= 2:
            q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
        else:
            q1 = q3 = values[0]
        return {
            "median": statistics.median(values),
            "q1": q1,
            "q3": q3,
            "min": values[0],
            "max": values[-1],
        }

    def to_json(self) -> dict[str, Any]:
        """The result as plain data: raw times plus the summary figures."""
        data = asdict(self)
        data["repeats"] = len(self.times)
        data.update({f"{k}_s": v for k, v in self.stats().items()} if self.times else {})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], row: str | None = None) -> Result:
        """A Result back from `to_json` (a child run's), optionally under another row name."""
        return cls(
            row or data["row"],
            data["case"],
            data["impl"],
            times=data["times"],
            number=data["number"],
            scale=data.get("scale", 1.0),
            note=data["note"],
            extra=data["extra"],
            group=data.get("group", 0),
        )


def ratio(top: Result, bottom: Result) -> float:
    """top / bottom: the median of the per-round ratios when the two were measured together
    (`timing.paired_ratio`), else the ratio of their medians."""
    if top.group and top.group == bottom.group:
        return paired_ratio(
            [t * top.scale for t in top.times], [t * bottom.scale for t in bottom.times]
        )
    return top.stats()["median"] / bottom.stats()["median"]


Entry = tuple[str, Callable[[], object], str]  # (impl, function to time, note)


@dataclass
class Context:
    """What the rows share: settings, the optional peers, and checks to print after the table."""

    settings: Settings
    torch: ModuleType | None
    micrograd: ModuleType | None
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    checks: list[str] = field(default_factory=list)
    load_at_start: list[float] | None = field(
        default_factory=lambda: list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    )
    child_args: list[str] = field(default_factory=list)  # mode options for a child run
    workloads: list[str] | None = None  # the vs-torch workloads to run (None: all of them)
    groups: int = 0  # how many measurements have been made together (Result.group)
    # `--ab REF`: minigrad as it was at REF (baseline.py), timed in the same rounds as today's
    baseline: ModuleType | None = None
    baseline_label: str = ""
    # ... and a second copy of it, timed in the same rounds: REF / its copy is this run's noise
    control: ModuleType | None = None
    frozen_objects: int = 0  # objects a full collection skips (cli.main: gc.freeze)

    def timed(
        self,
        row: str,
        case: str,
        impl: str,
        fn: Callable[[], object],
        note: str = "",
        read: Clock | None = None,
    ) -> Result:
        """Measure `fn` and wrap the figures in a Result (`read`: the clock, see `timing`)."""
        return self.timed_together(row, case, [(impl, fn, note)], read)[0]

    def timed_together(
        self,
        row: str,
        case: str,
        entries: Sequence[Entry],
        read: Clock | None = None,
        calls: int | None = None,
    ) -> list[Result]:
        """Measure several (impl, fn, note) entries together, taking turns (see `measure`)."""
        measured = measure([fn for _, fn, _ in entries], self.settings, read, calls)
        self.groups += 1
        return [
            Result(row, case, impl, times=times, number=number, note=note, group=self.groups)
            for (impl, _, note), (times, number) in zip(entries, measured, strict=True)
        ]

    def check(self, text: str) -> None:
        """Record a line printed under the table (and stored in the JSON)."""
        self.checks.append(text)

    def torch_missing(self, row: str, case: str) -> list[Result]:
        """The placeholder line when torch cannot be imported (nothing when it can)."""
        if self.torch is not None:
            return []
        return [Result(row, case, "torch", note="skipped: torch is not available")]
