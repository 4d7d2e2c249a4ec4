"""minigrad / torch time ratios, measured the plain way: one process, one thread, alternating.

The loop itself is bench/alternating.py (its docstring says how it measures); `make bench`
runs this script in a process of its own and prints its ratios beside the harness's.

Run: .venv/bin/python benchmarks/alternating.py [--rounds 15] [--only tiny-3,mlp] [--json F]
"""

import os
import sys
from pathlib import Path

# issue 12's measuring conditions: numpy's BLAS and OpenMP on one thread (before numpy loads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench.alternating import main  # noqa: E402

if __name__ == "__main__":
    main()
