#!/usr/bin/env bash
# Everything `make test` checks, in three stages:
#   1. lint       ruff check . ; ruff format --check .
#   2. unit       pytest tests (unit, property and parity tests; tests/browser excluded); a
#                 line says how many parity tests ran against torch, or that none did and why
#   3. notebooks  scripts.check_notebooks (stored outputs present), scripts.notebook_pairs check
#                 (each notebook agrees with its md/ pair), scripts.translations check
#                 (notebooks/zh in step with the English ones), then nbval on both languages
# The notebooks and the environment they run in come from scripts/course.py, as for `make
# notebooks`, so stored outputs are checked the way they were made.
# Every stage runs even when an earlier one failed; each ends with one summary line, and the
# script exits non-zero if any stage failed. Run it through `make test` so setup runs first.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BIN=.venv/bin
if [[ ! -x "$BIN/python" ]]; then
    echo "test: $BIN/python not found; run 'make test' (it sets the environment up first)" >&2
    exit 2
fi
export PATH="$PWD/$BIN:$PATH"
# The environment `make notebooks` uses (scripts/course.py): venv first, PYTHONHASHSEED, timeout.
eval "$(python -m scripts.course env)"

RESULTS=build/test-results
mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.xml

TOTAL=3
summaries=()
failed_stages=()

# Print the stage's one-line summary now and remember it for the final recap.
finish_stage() {
    local n="$1" name="$2" verdict="$3" detail="$4" started="$5"
    local line
    line="$(printf '[stage %d/%d] %s: %s (%s, %ds)' "$n" "$TOTAL" "$name" "$verdict" "$detail" \
        $((SECONDS - started)))"
    echo "$line"
    summaries+=("$line")
    if [[ "$verdict" != ok ]]; then
        failed_stages+=("$name")
    fi
}

# "N passed, N failed, N skipped" from one JUnit XML file written by pytest; with a second
# argument, only the test cases whose class name starts with it (tests.parity. for the parity
# suite), then the reason of the first skip among them on a line of its own.
junit_counts() {
    python - "$@" <<'EOF'
import sys
import xml.etree.ElementTree as ET

prefix = sys.argv[2] if len(sys.argv) > 2 else ""
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("0 0 0")
    raise SystemExit
passed = failed = skipped = 0
reason = ""
for case in root.iter("testcase"):
    if not case.get("classname", "").startswith(prefix):
        continue
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif (skip := case.find("skipped")) is not None:
        skipped += 1
        reason = reason or skip.get("message", "")
    else:
        passed += 1
print(passed, failed, skipped)
if prefix:
    print(reason)
EOF
}

# ---- stage 1: lint -------------------------------------------------------------------------
echo "==> [stage 1/$TOTAL] lint: ruff check . && ruff format --check ."
t0=$SECONDS
problems=()
ruff check . || problems+=("ruff check")
ruff format --check . || problems+=("ruff format --check; 'ruff format .' fixes it")
if ((${#problems[@]} == 0)); then
    finish_stage 1 lint ok "ruff check, ruff format --check" "$t0"
else
    finish_stage 1 lint FAILED "$(IFS=';'; echo "${problems[*]}")" "$t0"
fi

# ---- stage 2: unit, property and parity tests ----------------------------------------------
echo "==> [stage 2/$TOTAL] unit tests: pytest tests --ignore=tests/browser -n 2"
t0=$SECONDS
python -m pytest tests --ignore=tests/browser -n 2 -q --junitxml="$RESULTS/unit.xml"
rc=$?
read -r passed failed skipped < <(junit_counts "$RESULTS/unit.xml")
counts="$passed passed, $failed failed, $skipped skipped"
case $rc in
    0) finish_stage 2 "unit tests" ok "$counts" "$t0" ;;
    5) finish_stage 2 "unit tests" FAILED "pytest collected no tests" "$t0" ;;
    *) finish_stage 2 "unit tests" FAILED "$counts; pytest exit $rc" "$t0" ;;
esac
unit_counts=("$passed" "$failed" "$skipped")
# The parity suite (tests/parity) needs torch: say how many of its tests ran, or why none did.
{
    read -r passed failed skipped
    read -r reason
} < <(junit_counts "$RESULTS/unit.xml" tests.parity.)
if ((passed + failed > 0)); then
    torch_version="$(python -c 'import torch; print(torch.__version__)' 2>/dev/null)"
    parity="parity: $((passed + failed + skipped)) tests against torch $torch_version ran:"
    parity+=" $passed passed, $failed failed, $skipped skipped"
else
    parity="parity: NOT RUN: ${reason#Skipped: }"
fi
echo "$parity"

# ---- stage 3: notebooks --------------------------------------------------------------------
echo "==> [stage 3/$TOTAL] notebooks: scripts.check_notebooks, scripts.notebook_pairs," \
    "scripts.translations, then nbval (notebooks/ and notebooks/zh/)"
t0=$SECONDS
nb_counts=(0 0 0)
mapfile -t notebooks < <(python -m scripts.course list)
if ((${#notebooks[@]} == 0)); then
    echo "no notebooks under notebooks/ yet; nothing to execute"
    finish_stage 3 notebooks ok "no notebooks yet" "$t0"
else
    problems=()
    python -m scripts.check_notebooks notebooks \
        || problems+=("unexecuted cells; run 'make notebooks'")
    python -m scripts.notebook_pairs check \
        || problems+=("notebook and md/ pair out of sync; run 'make notebooks'")
    python -m scripts.translations check \
        || problems+=("Chinese edition out of step; see the messages above")
    mapfile -t nbval_args < <(python -m scripts.course nbval-args)
    python -m pytest notebooks "${nbval_args[@]}" -q --junitxml="$RESULTS/notebooks.xml"
    rc=$?
    read -r passed failed skipped < <(junit_counts "$RESULTS/notebooks.xml")
    nb_counts=("$passed" "$failed" "$skipped")
    # Exit 5 means pytest collected nothing, which is not a failure of the course.
    if ((rc != 0 && rc != 5)); then
        problems+=("nbval: $failed failed cells, pytest exit $rc")
    fi
    detail="${#notebooks[@]} notebooks, $passed cells passed, $failed failed"
    if ((${#problems[@]} == 0)); then
        finish_stage 3 notebooks ok "$detail" "$t0"
    else
        finish_stage 3 notebooks FAILED "$detail; $(IFS=';'; echo "${problems[*]}")" "$t0"
    fi
fi

# ---- recap ---------------------------------------------------------------------------------
echo
echo "==> summary"
printf '%s\n' "${summaries[@]}"
echo "$parity"
if ((${#failed_stages[@]} == 0)); then
    echo "make test: all $TOTAL stages passed"
    status=0
else
    echo "make test: FAILED in: $(IFS=','; echo "${failed_stages[*]}")"
    status=1
fi
# Last line: the pytest totals of stages 2 and 3 together, in the plain form CI tools read.
echo "tests: $((unit_counts[0] + nb_counts[0])) passed," \
    "$((unit_counts[1] + nb_counts[1])) failed, $((unit_counts[2] + nb_counts[2])) skipped"
exit $status
