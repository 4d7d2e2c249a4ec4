"""`make bench` and the plain alternating loop time the same code (issue 12, item 5).

The harness's `vs-torch` row and benchmarks/alternating.py must report the same minigrad /
torch ratios within 15 %; `make bench` compares them on every full run. These tests check the
precondition without timing anything: both methods build their steps from the same workloads
and, between two readings of the clock, run nothing but calls of one step. ("benchmarks, not
timed tests, measure speed": no assertion here depends on how fast anything is.)
"""

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    """The `bench` package from benchmarks/ (benchmarks/ itself is not a package)."""
    sys.path.insert(0, str(BENCHMARKS))
    import bench.agreement
    import bench.alternating
    import bench.cli
    import bench.harness
    import bench.readme
    import bench.timing
    import bench.workloads

    return bench


class Recorder:
    """A fake clock and fake workloads that write down, in order, everything that happens."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.now = 0.0

    def clock(self) -> float:
        self.events.append("clock")
        self.now += 1.0
        return self.now

    def workload(self, bench, key: str):
        def build(lib):
            self.events.append(f"build {key} {lib.__name__}")
            return lambda: self.events.append(f"call {key} {lib.__name__}")

        return bench.workloads.Workload(key, f"workload {key}", build, calls=3, target=1.0)

    def timed_regions(self) -> list[list[str]]:
        """The events between each pair of clock readings (time_block reads it twice)."""
        regions, inside = [], None
        for event in self.events:
            if event == "clock":
                if inside is None:
                    inside = []
                else:
                    regions.append(inside)
                    inside = None
            elif inside is not None:
                inside.append(event)
        assert inside is None, "the clock was read an odd number of times"
        return regions


def assert_only_one_step_per_region(regions: list[list[str]]) -> set[str]:
    """Every timed region holds calls of one step and nothing else: the steps seen."""
    steps = set()
    for region in regions:
        assert region, "a timed region with no call in it"
        assert len(set(region)) == 1, f"more than one thing on the clock: {set(region)}"
        assert region[0].startswith("call "), f"not a call of the step: {region[0]}"
        steps.add(region[0])
    return steps


def test_both_methods_use_the_same_workloads_and_timed_loop(bench):
    assert bench.agreement.VS_TORCH is bench.workloads.VS_TORCH
    assert bench.alternating.VS_TORCH is bench.workloads.VS_TORCH
    assert bench.alternating.time_block is bench.timing.time_block
    assert [w.key for w in bench.workloads.VS_TORCH] == ["tiny-3", "tiny-64", "mlp", "chain"]


def test_both_methods_time_only_the_steps_they_built(bench, monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(bench.timing, "clock", recorder.clock)
    workloads = (recorder.workload(bench, "a"), recorder.workload(bench, "b"))
    monkeypatch.setattr(bench.agreement, "VS_TORCH", workloads)
    minigrad = SimpleNamespace(__name__="minigrad")
    torch = SimpleNamespace(__name__="torch")
    monkeypatch.setitem(sys.modules, "minigrad", minigrad)  # the row imports minigrad itself

    # the plain loop, run in this process on the same workloads (b without torch)
    def plain_loop(ctx, workloads):
        rows = []
        for workload in workloads:
            libs = {"minigrad": minigrad, "torch": torch} if workload.key == "a" else {}
            libs.setdefault("minigrad", minigrad)
            rows.append(bench.alternating.measure_plain(workload, libs, 3))
        return {
            "rows": rows,
            "ratios": {row["name"]: row["ratio"] for row in rows if "ratio" in row},
        }

    monkeypatch.setattr(bench.agreement, "plain_loop", plain_loop)
    settings = bench.timing.Settings(
        "test", min_repeats=2, max_repeats=3, warmup=1, repeat_time=0.0, budget=1.0,
        slow_repeats=2,
    )  # fmt: skip
    ctx = bench.harness.Context(settings=settings, torch=torch, micrograd=None)

    results = bench.agreement.row_vs_torch(ctx)

    steps = assert_only_one_step_per_region(recorder.timed_regions())
    assert steps == {f"call {key} {lib}" for key in "ab" for lib in ("minigrad", "torch")}
    builds = [event for event in recorder.events if event.startswith("build")]
    # each method builds one step per workload and library, and times only that step
    assert sorted(builds) == sorted(
        [f"build {key} {lib}" for key in "ab" for lib in ("minigrad", "torch")]  # harness
        + [f"build a {lib}" for lib in ("minigrad", "torch")]  # plain loop
        + ["build b minigrad"]
    )
    assert {(r.case, r.impl) for r in results} == {
        (f"workload {key}", lib) for key in "ab" for lib in ("minigrad", "torch")
    }
    assert ctx.agreement["workloads"][0]["name"] == "workload a"


def test_the_plain_loop_takes_turns_and_divides_per_op(bench, monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(bench.timing, "clock", recorder.clock)
    workload = recorder.workload(bench, "w")
    workload = bench.workloads.Workload("w", "w", workload.build, calls=2, target=1.0, per=4)
    libs = {
        "minigrad": SimpleNamespace(__name__="minigrad"),
        "torch": SimpleNamespace(__name__="torch"),
    }  # noqa: E501

    measured = bench.alternating.measure_plain(workload, libs, rounds=4)

    order = [region[0].split()[-1] for region in recorder.timed_regions()]
    warm_up, rounds = order[:2], order[2:]
    assert warm_up == ["minigrad", "torch"]
    assert rounds == ["minigrad", "torch", "torch", "minigrad"] * 2
    # the fake clock advances 1 s per reading: 1 s per block of 2 calls of 4 ops each
    assert measured["median_s"] == {"minigrad": 1 / 8, "torch": 1 / 8}
    assert measured["ratio"] == 1.0 and measured["unit"] == "per op"


def test_every_vs_torch_workload_runs_in_minigrad(bench):
    import minigrad

    for workload in bench.workloads.VS_TORCH:
        workload.build(minigrad)()


def test_agreement_within_the_tolerance(bench, capsys):
    name = bench.workloads.VS_TORCH[0].name
    agree = bench.agreement.compare({name: 1.10}, {"ratios": {name: 1.0}})
    assert agree["ok"] and agree["workloads"][0]["difference"] == pytest.approx(0.10)
    differ = bench.agreement.compare({name: 1.20}, {"ratios": {name: 1.0}})
    assert not differ["ok"] and not differ["workloads"][0]["agree"]
    assert bench.agreement.compare({name: 2.0}, {"ratios": {name: 1.0}}, judged=False)["ok"]
    failed = bench.agreement.compare({name: 1.0}, {"error": "alternating.py failed: boom"})
    assert not failed["ok"]

    # both figures side by side, in the printed checks, the console and the README section
    line = bench.agreement.agreement_lines(differ)[0]
    assert "1.20x by make bench, 1.00x by the plain loop" in line and "DISAGREE" in line
    bench.cli.print_agreement(differ)
    printed = capsys.readouterr().out
    assert "1.20x" in printed and "1.00x" in printed and "DISAGREE" in printed
    readme = "\n".join(bench.readme.agreement_lines(differ))
    assert "| 1.20x | 1.00x | +20% **(disagree)** |" in readme


def test_alternating_script_refuses_an_unknown_workload():
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "alternating.py"), "--only", "nope"],
        capture_output=True,
        text=True,
    )
    assert completed.returncode != 0
    assert "unknown workload" in completed.stderr
