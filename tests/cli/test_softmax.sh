#!/usr/bin/env bash
# softmax and log_softmax steps end to end: softmax.py writes inputs with values whose exp
# overflows a double (so only the shift by the maximum keeps them finite) and a workflow taking
# softmax along every dimension of a 3-D tensor whose every dimension spans several tiles, plus
# log_softmax, a dimension in one tile and a vector; `tra validate` must show the lowered steps,
# and `tra run` on 1 and 3 ranks must match numpy (rtol 1e-12).
# Usage: bash test_softmax.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON; MPIEXEC, default
# mpiexec)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli softmax "$@"

helper="$SRC/tests/cli/softmax.py"
"$PY" -c 'import numpy, h5py' 2> /dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"
MPIEXEC=${MPIEXEC:-mpiexec}
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found (set MPIEXEC)"

enter_work_dir
"$PY" "$helper" make wf > make.log 2>&1 || { cat make.log >&2; fail "softmax.py make failed"; }

count_failures

"$TRA" validate wf/softmax.yaml > validate.log 2>&1 || { cat validate.log >&2; fail "tra validate failed"; }
# softmax along dim 1 of S (labels abc), then log_softmax: each lowered step by name, operator
# and operands.
for row in 'P1\.max\.tiles +transform +S ' 'P1\.max +aggregate +P1\.max\.tiles ' \
    'P1\.shift +join +S,P1\.max ' 'P1\.exp +transform +P1\.shift ' \
    'P1\.sum +aggregate +P1\.sum\.tiles ' 'P1 +join +P1\.exp,P1\.sum ' \
    'L1\.log +transform +L1\.sum ' 'L1 +join +L1\.shift,L1\.log '; do
    grep -Eq "^$row" validate.log || fail "tra validate shows no row /$row/"
done
grep -q '^einsum P1: order (abc,ac) ' validate.log || fail "tra validate shows no einsum order for P1"

for ranks in 1 3; do
    log="run$ranks.log"
    rc=0
    timeout 300 "$MPIEXEC" -n "$ranks" "$TRA" run wf/softmax.yaml --out-dir "run$ranks" > "$log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { tail -n 20 "$log" >&2; fail "tra run on $ranks rank(s) exited with $rc"; continue; }
    if "$PY" "$helper" check "run$ranks" > "check$ranks.log" 2>&1; then
        echo "$ranks rank(s): $(tail -n 1 "check$ranks.log")"
    else
        cat "check$ranks.log" >&2
        fail "$ranks rank(s): outputs differ from numpy"
    fi
done

finish_counted "softmax: ok"
