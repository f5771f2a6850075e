#!/usr/bin/env bash
# Regenerate the pyperf fixtures of tests/data from scratch (see README.rst).
#
#   bash tests/data/make_fixtures.sh
#
# Needs: a CPython 3.12 (default: pyenv's 3.12.1) and PyPI through pip.
# Override with BASE_PYTHON=/path/to/python3.12 and PYPERF_VENV=/tmp/dir.
# Every benchmark is short (a few seconds in all); results differ on every
# run, so regenerating rewrites every fixture and every expected figure.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BASE_PYTHON:-}" ]; then
    BASE_PYTHON="$(pyenv root)/versions/3.12.1/bin/python"
fi
VENV=${PYPERF_VENV:-/tmp/perf-fixtures-pyperf-2.10.0}
WORK=$(mktemp -d /tmp/perf-fixtures-work.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "== venv $VENV ($("$BASE_PYTHON" -V 2>&1), pyperf 2.10.0)"
"$BASE_PYTHON" -m venv --clear "$VENV"
"$VENV/bin/pip" install -q pyperf==2.10.0 psutil==7.2.2
# so that "python3" in the command benchmark is the venv's interpreter
export PATH="$VENV/bin:$PATH"
PY="$VENV/bin/python"
FIG="$PY $HERE/pyperf_figures.py"
cd "$HERE"

# Result files written by real pyperf (regenerated on each run).
GENERATED="timeit.json suite_tags.json track_memory.json timeit.json.gz
calibration_only.json command.json timeit_inner_loops.json"
# Result files written by our own down-converter (see README.rst).
SYNTHETIC="format_v5_synthetic.json format_v5_inner_loops_synthetic.json
format_v6_synthetic.json format_v6_inner_loops_synthetic.json"

for f in $GENERATED $SYNTHETIC; do
    rm -f "$f"
done
# figures of every fixture are rewritten below
for f in $GENERATED $SYNTHETIC; do
    rm -f "$f".*.txt "$f".expected.json "$f".redump.json
done

echo "== 1. timeit.json"
$PY -m pyperf timeit -p 4 -n 3 --min-time 0.02 -o timeit.json \
    "sorted(range(100))"

echo "== 2. suite_tags.json"
$PY suite_bench.py -p 2 -n 3 --min-time 0.02 -o suite_tags.json
$FIG add-tags suite_tags.json \
    sort_list=builtins,sorting build_dict=builtins join_str=strings

echo "== 3. track_memory.json"
$PY -m pyperf timeit --track-memory -p 2 -n 3 --min-time 0.02 \
    -o track_memory.json "x = [0] * 10**5"

echo "== 4. timeit.json.gz"
$PY -m pyperf timeit -p 3 -n 3 --min-time 0.02 -o timeit.json.gz \
    "'-'.join(map(str, range(50)))"

echo "== 5. calibration_only.json (run 1 of timeit.json is the calibration)"
$PY -m pyperf convert timeit.json --include-runs 1 -o calibration_only.json

echo "== 6. command.json"
$PY -m pyperf command -p 3 -n 2 --min-time 0.02 -o command.json \
    -- python3 -c pass

echo "== 7. timeit_inner_loops.json"
$PY -m pyperf timeit -p 3 -n 3 --min-time 0.02 --duplicate 10 \
    -o timeit_inner_loops.json "x = 1 + 2"

echo "== 8. synthetic format 5 / 6 files (our down-converter)"
$FIG downconvert 5 timeit.json format_v5_synthetic.json
$FIG downconvert 5 timeit_inner_loops.json format_v5_inner_loops_synthetic.json
$FIG downconvert 6 suite_tags.json format_v6_synthetic.json
$FIG downconvert 6 timeit_inner_loops.json format_v6_inner_loops_synthetic.json

echo "== 9. what pyperf 2.10.0 reports for each file"
for f in $GENERATED $SYNTHETIC; do
    $FIG expected "$f" "$f.expected.json"
    $FIG redump "$f" "$f.redump.json"
    for cmd in show stats dump metadata check hist; do
        out="$f.$cmd.txt"
        rc=0
        COLUMNS=80 LINES=25 $PY -m pyperf "$cmd" "$f" \
            >"$out" 2>"$WORK/stderr" || rc=$?
        echo "# exit status: $rc" >>"$out"
        if [ -s "$WORK/stderr" ]; then
            # pyperf crashed or complained: keep its stderr beside
            sed "s|$VENV|\$VENV|g" "$WORK/stderr" >"$f.$cmd.stderr.txt"
        else
            rm -f "$f.$cmd.stderr.txt"
        fi
    done
done

echo "== 10. convert/: what pyperf 2.10.0 convert writes (cases in convert/cases.txt)"
rm -f convert/*.json
grep -v '^#' convert/cases.txt | while read -r name args; do
    # shellcheck disable=SC2086  # the arguments are split on spaces on purpose
    $PY -m pyperf convert $args -o "convert/$name.json"
done

$FIG keys $GENERATED $SYNTHETIC
du -sh "$HERE"
