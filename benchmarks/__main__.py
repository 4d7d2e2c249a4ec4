"""`python -m benchmarks [options]`: run the benchmarks (`make bench`; options in cli.py)."""

from benchmarks.cli import main

if __name__ == "__main__":
    main()
