"""Keep the benchmark harness from rotting: every row once, at tiny sizes (a few seconds).

The figures mean nothing here; the point is that `make bench` still runs after the engine,
nn or viz change. torch is left out because its first use alone takes seconds.
"""

import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    """The `bench` package from benchmarks/ (benchmarks/ itself is not a package)."""
    sys.path.insert(0, str(BENCHMARKS))
    import bench.cli
    import bench.harness
    import bench.readme
    import bench.report

    return bench


def test_smoke_run_writes_every_row(bench, tmp_path, capsys):
    out = tmp_path / "smoke.json"
    data = bench.cli.main(["--smoke", "--no-install", "--without", "torch", "--json", str(out)])

    assert json.loads(out.read_text()) == json.loads(json.dumps(data))
    assert {r["row"] for r in data["results"]} == set(bench.cli.ROWS)
    for result in data["results"]:
        if result["times"]:
            assert result["median_s"] > 0
    for key in ("cpu", "cores", "python", "numpy", "date_utc"):
        assert data["machine"][key]
    printed = capsys.readouterr().out
    assert "median" in printed and "overhead" in printed
    # the alias row's memory checks hold even at tiny sizes
    assert "alias detach() on n=1e3: np.shares_memory = True" in data["checks"]
    assert "alias clone() on n=1e3: np.shares_memory = False" in data["checks"]
    # without torch there is nothing to compare the plain loop's ratios with
    assert data["agreement"] is None
    assert {r["case"] for r in data["results"] if r["row"] == "vs-torch"} == {
        "tiny graph (3,)",
        "tiny graph (64, 64)",
        "mlp step 8-64-1, batch 64",
        "chain build 20,000 ops",
    }

    section = bench.readme.markdown(data)
    assert section.startswith("## Performance")
    assert section.count("\n| overhead |") == 8


def test_unknown_row_is_refused(bench):
    with pytest.raises(SystemExit, match="unknown row"):
        bench.cli.main(["--smoke", "--no-install", "--only", "nope"])


def test_statistics_of_a_result(bench):
    result = bench.harness.Result("r", "c", "i", times=[1.0, 2.0, 3.0, 4.0, 5.0], scale=2.0)
    stats = result.stats()
    assert stats["median"] == 6.0
    assert (stats["min"], stats["max"]) == (2.0, 10.0)
    assert stats["q1"] == 4.0 and stats["q3"] == 8.0
    assert bench.report.format_seconds(0.00123) == "1.23 ms"
    assert bench.report.size_text(10**7) == "1e7"
    again = bench.harness.Result.from_json(result.to_json(), row="other")
    assert (again.row, again.times, again.scale) == ("other", result.times, 2.0)


def test_a_full_run_rewrites_both_performance_sections(bench, tmp_path, monkeypatch):
    (tmp_path / "benchmarks").mkdir()
    for name in ("README.md", "benchmarks/README.md"):
        (tmp_path / name).write_text((BENCHMARKS.parent / name).read_text())
    monkeypatch.setattr(bench.paths, "REPO", tmp_path)
    monkeypatch.setattr(bench.paths, "HERE", tmp_path / "benchmarks")
    data = json.loads((BENCHMARKS / "results" / "latest.json").read_text())
    data["machine"]["date_utc"] = "1999-01-01 00:00:00"

    written = bench.readme.update_readmes(data)

    assert len(written) == 2
    for path in written:
        text = path.read_text()
        assert "on 1999-01-01 00:00:00 UTC" in text
        assert text.count("## Performance") == 1
    readme = (tmp_path / "README.md").read_text()
    assert "### Every row" not in readme and "## Project layout" in readme
