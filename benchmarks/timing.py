"""How hard to measure (Settings), the one timed loop and the one method every figure uses.

Everything timed in the benchmarks goes through `time_block`: the clock is read right before and
right after a loop that does nothing but call the function. What a function does outside that
loop (building its inputs, freeing a graph afterwards) is not on the clock. (The chain row reads
the clock itself, to split one run into its build and its backward.)

`measure` is the method: the functions being compared (minigrad and torch running the same
lines, with or without a numpy floor) take turns in one process, round after round, each round
timing one block of calls of each, the order flipped every round. `paired_ratio` turns two such
series into a ratio: the median of the per-round ratios.

The clock is the CPU time of this process (`time.process_time`: user and system time of all
its threads, page faults and the garbage collector included). On a quiet machine it equals
wall time for this single-threaded work; on a busy one it leaves out the time other programs
hold the CPU, which made wall-clock ratios swing by tens of percent from run to run here.
What waits for another program (Graphviz's dot, the notebooks) is timed with `wall_clock`.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Clock = Callable[[], float]

cpu_clock: Clock = time.process_time
wall_clock: Clock = time.perf_counter
clock: Clock = cpu_clock  # what time_block reads unless told otherwise


@dataclass(frozen=True)
class Settings:
    """How hard to measure: repeat counts, the time one repeat aims for, and problem sizes."""

    name: str
    min_repeats: int
    max_repeats: int
    warmup: int
    repeat_time: float  # seconds one timed repeat should last (fast calls are looped)
    budget: float  # seconds of timed repeats per measurement, within min/max repeats
    slow_repeats: int  # repeats for a call that alone takes more than the budget allows
    large_sizes: tuple[int, ...] = (10**6, 10**7)
    alias_size: int = 10**7
    chain_length: int = 100_000
    viz_sizes: tuple[int, ...] = (10, 100, 500, 1000)
    viz_shared_sizes: tuple[int, ...] = (200, 300, 1000)  # one weight reused, as in an RNN
    viz_beside_sizes: tuple[int, ...] = (100, 1000)  # the older saved-value layout, for scale
    micrograd_batch: int = 16
    run_course: bool = True
    collect_between_rows: bool = True  # a full collection costs ~0.1 s with torch imported


FULL = Settings(
    "full", min_repeats=7, max_repeats=25, warmup=2, repeat_time=0.02, budget=1.0, slow_repeats=5
)
QUICK = Settings(
    "quick",
    min_repeats=3,
    max_repeats=7,
    warmup=1,
    repeat_time=0.01,
    budget=0.3,
    slow_repeats=3,
)
# Tiny sizes, one repeat: only proves every row still runs (tests/tooling/test_benchmarks_smoke.py).
SMOKE = Settings(
    "smoke",
    min_repeats=1,
    max_repeats=1,
    warmup=0,
    repeat_time=0.0,
    budget=0.0,
    slow_repeats=1,
    large_sizes=(1000,),
    alias_size=1000,
    chain_length=200,
    viz_sizes=(5,),
    viz_shared_sizes=(),
    viz_beside_sizes=(),
    micrograd_batch=2,
    run_course=False,
    collect_between_rows=False,
)
MODES = {settings.name: settings for settings in (FULL, QUICK, SMOKE)}


def time_block(fn: Callable[[], object], number: int, read: Clock | None = None) -> float:
    """Seconds per call over one timed loop of `number` calls (nothing else is on the clock).

    `read` is the clock (default: `clock`, the process's CPU time).
    """
    read = clock if read is None else read
    start = read()
    for _ in range(number):
        fn()
    return (read() - start) / number


def autorange(fn: Callable[[], object], at_least: float, read: Clock | None = None) -> float:
    """Seconds per call, from loops of 1, 10, 100... calls until one lasts `at_least`."""
    number = 1
    while True:
        per_call = time_block(fn, number, read)
        if per_call * number >= at_least or number >= 10_000:
            return per_call
        number *= 10


def repeat_count(seconds_per_repeat: float, settings: Settings) -> int:
    """As many repeats as fit in the budget, within limits; fewer for slow calls."""
    fits = int(settings.budget / max(seconds_per_repeat, 1e-9))
    if fits < settings.min_repeats:
        return max(settings.slow_repeats, min(fits, settings.min_repeats))
    return min(fits, settings.max_repeats)


def turn_order(count: int, round_index: int) -> list[int]:
    """Indices 0..count-1, reversed on odd rounds, so no function always runs first."""
    order = list(range(count))
    return order if round_index % 2 == 0 else order[::-1]


def measure(
    fns: Sequence[Callable[[], object]],
    settings: Settings,
    read: Clock | None = None,
    calls: int | None = None,
) -> list[tuple[list[float], int]]:
    """Time functions of no arguments: for each, per-call seconds per round and calls per round.

    An untimed first call absorbs one-off costs. Without `calls`, loops of growing length then
    estimate the cost of a call, and fast calls are looped so that one block lasts about
    `settings.repeat_time`; with `calls`, every function's block is that many calls (the
    minigrad / torch workloads: both sides loop exactly as long). Each function gets as many
    rounds as fit in `settings.budget`, within the settings' limits.

    Functions measured together are compared with each other, so they take turns: round 1
    times a block of every function, round 2 every function in the reverse order, and so on.
    A burst of other work on the machine then slows all of them alike, and the per-round ratio
    stays meaningful (measured one after the other, a ratio gave 0.9x one time and 1.5x the
    next). `read` is the clock (default: `clock`).
    """
    if settings.max_repeats == 1 and settings.warmup == 0:
        return [([time_block(fn, 1, read)], 1) for fn in fns]  # smoke mode: one call proves it runs
    numbers = []
    per_repeat = 0.0
    for fn in fns:
        fn()  # the first call may pay for imports and caches: not representative
        estimate = autorange(fn, settings.repeat_time / 10, read)
        fitting = math.ceil(settings.repeat_time / max(estimate, 1e-9))
        numbers.append(calls or min(100_000, fitting))
        per_repeat += max(estimate * numbers[-1], 1e-9)
    repeats = repeat_count(per_repeat / len(fns), settings)  # each keeps its own time budget
    # a slow call has had two warm-up calls already (the first call and the estimate)
    if per_repeat * settings.min_repeats <= settings.budget * len(fns):
        for _ in range(settings.warmup):
            for fn, number in zip(fns, numbers, strict=True):
                time_block(fn, number, read)
    times: list[list[float]] = [[] for _ in fns]
    for round_index in range(repeats):
        for index in turn_order(len(fns), round_index):
            times[index].append(time_block(fns[index], numbers[index], read))
    return list(zip(times, numbers, strict=True))


def paired_ratio(mine: Sequence[float], theirs: Sequence[float]) -> float:
    """The median, over rounds, of one round's time of `mine` / the same round's of `theirs`.

    Both lists come from one `measure` call, entry i of each from round i, timed one right
    after the other. This machine's speed jumps between rounds (a block of either library can
    take twice as long as the one before), and such a jump slows both entries of a round
    alike, so the ratio within a round is steadier than the ratio of two medians that may come
    from different rounds (measured here on one version of the code: two runs gave 0.91x and
    0.72x as ratios of medians, 0.92x and 0.84x as medians of the rounds' ratios).
    """
    return statistics.median(a / b for a, b in zip(mine, theirs, strict=True))
