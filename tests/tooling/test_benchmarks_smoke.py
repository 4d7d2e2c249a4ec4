"""Keep the benchmarks from rotting: every row once, at tiny sizes (a few seconds).

The figures mean nothing here; the point is that `make bench` still runs after the engine,
nn or viz change. torch is left out of the full smoke run because its first use alone takes
seconds; the vs-torch workloads are run once with torch when it is installed.
("benchmarks, not timed tests, measure speed": no assertion here depends on how fast anything
is.)
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import cli, harness, paths, readme, report, rows_vs_torch, timing, workloads

REPO = Path(__file__).resolve().parents[2]


def test_smoke_run_writes_every_row(tmp_path, capsys):
    out = tmp_path / "smoke.json"
    data = cli.main(["--smoke", "--without", "torch", "--json", str(out)])

    assert json.loads(out.read_text()) == json.loads(json.dumps(data))
    assert {r["row"] for r in data["results"]} == set(cli.ROWS)
    for result in data["results"]:
        if result["times"]:
            assert result["median_s"] > 0
    for key in ("cpu", "cores", "python", "numpy", "date_utc"):
        assert data["machine"][key]
    printed = capsys.readouterr().out
    assert "median" in printed and "vs-torch" in printed
    # the alias row's memory checks hold even at tiny sizes
    assert "alias detach() on n=1e3: np.shares_memory = True" in data["checks"]
    assert "alias clone() on n=1e3: np.shares_memory = False" in data["checks"]
    # without torch there is no ratio, but every workload ran in minigrad
    assert data["vs_torch"] == []
    cases = {r["case"] for r in data["results"] if r["row"] == "vs-torch"}
    assert cases == {w.name for w in workloads.VS_TORCH}

    section = readme.markdown(data)
    assert section.startswith("## Performance")
    assert section.count("\n| vs-torch |") == 2 * len(workloads.VS_TORCH) + 4  # + numpy floors


def test_every_workload_runs_the_same_lines_in_minigrad_and_torch():
    torch = pytest.importorskip("torch")
    import minigrad

    for workload in workloads.VS_TORCH:
        for lib in (minigrad, torch):
            step = workload.build(lib)
            step()
            step()


def test_the_bench_variants_are_beside_the_bench_workloads():
    keys = [w.key for w in workloads.VS_TORCH]
    assert keys[:3] == ["tiny-3", "tiny-3-loop", "tiny-3-zero"]
    for workload in workloads.VS_TORCH:
        if workload.variant_of:
            assert keys.index(workload.variant_of) < keys.index(workload.key)
    assert {"mlp-pow-sub", "mlp-item", "mlp-momentum", "mlp-adam", "chain"} <= set(keys)


def test_one_method_takes_turns_and_times_only_the_calls(monkeypatch):
    events: list[str] = []
    now = [0.0]

    def clock() -> float:
        events.append("clock")
        now[0] += 1.0
        return now[0]

    monkeypatch.setattr(timing, "clock", clock)
    settings = timing.Settings(
        "test", min_repeats=4, max_repeats=4, warmup=0, repeat_time=0.0, budget=100.0,
        slow_repeats=4,
    )  # fmt: skip
    steps = [lambda: events.append("call a"), lambda: events.append("call b")]
    measured = timing.measure(steps, settings, calls=2)

    regions, inside = [], None
    for event in events:
        if event == "clock":
            inside = [] if inside is None else regions.append(inside)
        elif inside is not None:
            inside.append(event)
    timed = [region for region in regions if region]
    # after the calibration, four rounds of two blocks of exactly 2 calls, order flipped
    order = [region[0][-1] for region in timed[-8:]]
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert all(len(region) == 2 and len(set(region)) == 1 for region in timed[-8:])
    assert [number for _, number in measured] == [2, 2]


def test_ratios_are_medians_of_per_round_ratios():
    a = harness.Result("r", "c", "minigrad", times=[1.0, 2.0, 9.0], group=1)
    b = harness.Result("r", "c", "torch", times=[2.0, 2.0, 3.0], group=1)
    assert harness.ratio(a, b) == 1.0  # rounds: 0.5, 1.0, 3.0
    alone = harness.Result("r", "c", "torch", times=[2.0, 2.0, 3.0])
    assert harness.ratio(a, alone) == 1.0  # not measured together: median / median = 2 / 2
    assert timing.paired_ratio([1.0, 3.0, 3.0], [1.0, 1.0, 2.0]) == 1.5


def test_vs_torch_summary_and_tables():
    results = []
    for impl, seconds in (("minigrad", 1.0), ("torch", 2.0)):
        result = harness.Result("vs-torch", "tiny graph (3,)", impl, [seconds] * 3, group=7)
        result.note = "per call"
        results.append(result)
    (row,) = rows_vs_torch.summary(results)
    assert row["ratio"] == 0.5 and row["meets_target"] and row["key"] == "tiny-3"
    assert "tiny graph (3,)" in report.vs_torch_table([row])
    assert "| tiny graph (3,) | 1 s | 2 s | 0.50x | <= 1x |" in readme.vs_torch_lines([row])


def test_unknown_rows_and_workloads_are_refused():
    with pytest.raises(SystemExit, match="unknown row"):
        cli.main(["--smoke", "--only", "nope"])
    with pytest.raises(SystemExit, match="unknown workload"):
        cli.main(["--smoke", "--only", "vs-torch", "--workloads", "nope"])


def test_statistics_of_a_result():
    result = harness.Result("r", "c", "i", times=[1.0, 2.0, 3.0, 4.0, 5.0], scale=2.0)
    stats = result.stats()
    assert stats["median"] == 6.0
    assert (stats["min"], stats["max"]) == (2.0, 10.0)
    assert stats["q1"] == 4.0 and stats["q3"] == 8.0
    assert report.format_seconds(0.00123) == "1.23 ms"
    assert report.size_text(10**7) == "1e7"
    again = harness.Result.from_json(result.to_json(), row="other")
    assert (again.row, again.times, again.scale) == ("other", result.times, 2.0)


def test_readme_sections_are_written_only_when_asked(tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    for name in ("README.md", "benchmarks/README.md"):
        (tmp_path / name).write_text((REPO / name).read_text())
    monkeypatch.setattr(paths, "REPO", tmp_path)
    monkeypatch.setattr(paths, "HERE", tmp_path / "benchmarks")
    monkeypatch.setattr(paths, "DEFAULT_JSON", tmp_path / "latest.json")
    cli.main(["--smoke", "--without", "torch", "--only", "alias"])
    assert (tmp_path / "README.md").read_text() == (REPO / "README.md").read_text()

    data = cli.main(["--smoke", "--without", "torch", "--only", "alias", "--readme"])
    data["machine"]["date_utc"] = "1999-01-01 00:00:00"
    written = readme.update_readmes(data)
    assert len(written) == 2
    for path in written:
        text = path.read_text()
        assert "on 1999-01-01 00:00:00 UTC" in text
        assert text.count("## Performance") == 1
    top = (tmp_path / "README.md").read_text()
    assert "### Every row" not in top and "## Project layout" in top


def test_python_m_benchmarks_runs_from_the_repository():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "--install-peers" in done.stdout


def test_ab_times_minigrad_at_a_commit_in_the_same_rounds():
    # --ab REF loads minigrad as it was at REF beside today's and times both in one group
    data = cli.main(["--smoke", "--without", "torch", "--only", "vs-torch", "--ab", "HEAD"])
    impls = {(r["case"], r["impl"], r["group"]) for r in data["results"] if not r.get("skipped")}
    befores = [(case, group) for case, impl, group in impls if impl.startswith("minigrad@")]
    assert befores, impls
    for case, group in befores:
        assert (case, "minigrad", group) in impls  # measured together with today's minigrad
    # and a second copy of REF in the same rounds: the run's noise, the same code twice
    assert {impl for _, impl, _ in impls if impl.endswith(" again")}, impls
    assert all(row["noise"] is not None for row in data["vs_torch"] if row["before"])
    assert any(line.startswith("A/B: minigrad@") for line in data["checks"])


def test_ab_summary_compares_today_with_the_commit():
    results = []
    timings = (
        ("minigrad", 1.0),
        ("torch", 2.0),
        ("minigrad@abc1234", 0.8),
        ("minigrad@abc1234 again", 0.84),
    )
    for impl, seconds in timings:
        result = harness.Result("vs-torch", "tiny graph (3,)", impl, [seconds] * 3, group=7)
        result.note = "per call"
        results.append(result)
    (row,) = rows_vs_torch.summary(results)
    assert row["before"] == "minigrad@abc1234" and row["after_vs_before"] == 1.25
    assert row["noise"] == pytest.approx(1.05)  # the copy of REF against REF
    text = report.vs_torch_table([row])
    assert "today's minigrad / minigrad@abc1234" in text
    assert "noise  1.050x" in text and "1.050x to 1.050x; a difference inside" in text


def test_ab_refuses_a_name_that_is_no_commit():
    with pytest.raises(SystemExit, match="names no commit"):
        cli.main(["--smoke", "--only", "vs-torch", "--ab", "no-such-ref-here"])
