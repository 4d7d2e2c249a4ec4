"""Benchmarks: minigrad beside raw numpy, PyTorch and micrograd, all in one process (issue 8).

Run it with `make bench` (or `.venv/bin/python benchmarks/run.py --help`). The harness lives in
the `bench` package next to this file (one module per concern, see bench/__init__.py); this
script only starts it. It exits with status 1 when the `vs-torch` row's minigrad / torch ratios
and the plain alternating loop's (benchmarks/alternating.py) differ by more than 15 %.
"""

import os
import sys
from pathlib import Path

# issue 12's measuring conditions: numpy's BLAS and OpenMP on one thread (before numpy loads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench.cli import main  # noqa: E402

if __name__ == "__main__":
    data = main()
    agreement = data.get("agreement")
    sys.exit(1 if agreement is not None and not agreement["ok"] else 0)
