"""minigrad's benchmarks: `make bench`, or `python -m benchmarks [options]` (see cli.py).

One measuring method for every figure (`timing.measure`): in one process, the implementations
being compared take turns round by round, each round timing a block of calls of each; a ratio
is the median of the per-round ratios (`timing.paired_ratio`).

- `paths`: where the repository, the results and the READMEs are
- `timing`: how hard to measure (Settings), the one timed loop and the one method
- `harness`: one measured line (Result) and what every row gets (Context)
- `workloads`: the code that is timed, minigrad and torch running the same lines
- `rows_vs_torch`: minigrad / torch on the bench's workloads and on what users write instead
- `rows_engine`, `rows_viz`, `rows_course`: the other rows of the table
- `peers`, `machine`: optional peers (torch, micrograd) and the machine's description
- `report`, `readme`: the printed tables and the README "Performance" sections
- `cli`: the options and `main()`; `__main__`: `python -m benchmarks`

Importing this package sets numpy's BLAS and OpenMP to one thread (unless already set), which
only works before numpy is first imported: `python -m benchmarks` imports nothing else first.
torch gets one thread too (`torch.set_num_threads(1)`, in cli.py).
"""

import os
import sys

ONE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# Recorded with the results: True means numpy was loaded before these settings could apply.
NUMPY_LOADED_FIRST = "numpy" in sys.modules
for _name, _value in ONE_THREAD_ENV.items():
    os.environ.setdefault(_name, _value)
