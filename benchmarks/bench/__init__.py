"""The benchmark harness behind `make bench`, one module per concern.

- `paths`: where the repository, the results and the READMEs are
- `timing`: how hard to measure (Settings) and the timed loops (`time_block`, `measure`)
- `harness`: one measured line (Result) and what every row gets (Context)
- `workloads`: the code that is timed, shared by the harness and the plain loop
- `rows_engine`, `rows_viz`, `rows_course`: the table's rows
- `alternating`: the plain loop (one process, minigrad and torch taking turns)
- `agreement`: the `vs-torch` row, the harness and the plain loop side by side
- `peers`, `machine`: optional peers (torch, micrograd) and the machine's description
- `report`, `readme`: the printed table and the README "Performance" sections
- `cli`: `python benchmarks/run.py [options]`
"""
