#!/usr/bin/env bash
# Failure behaviour of `mpiexec -n RANKS tra run` (docs/runtime.md, "Failure behaviour"): an error
# on any rank ends the whole job, without hanging, with ONE message naming the rank and the cause
# and a non-zero exit; a rank killed with SIGKILL (kill -9) during an exchange ends the job; in
# every case no output appears at its final name and the input file is unchanged. Faults are
# injected deterministically with the test-only hook TRA_FAULT=ACTION@RANK:OPERATOR
# (lib/runtime/fault_injection.hpp), on the last rank, so peers are waiting on it.
# Also: the memory check refuses a plan that does not fit --memory-per-site (exit 2, "needs X,
# have Y") before any work; measured peak <= predicted peak; exchange messages split into pieces
# (TRA_MAX_MESSAGE_BYTES) move the same bytes and compute the same result, and a limit that is
# not a number is refused; --threads and the host lines.
# --timeout (at 2 and 3 ranks, where a rank can wait for another): the last rank hangs
# (TRA_FAULT=hang@...) in a local operator; the others end the job at the deadline with one
# message naming the operator and the missing rank, no output and no temporary file left. On
# one rank the rank's own timer ends the same hang.
# The per-operator limit (on by default; 2-4 ranks): the same hang ends without --timeout once
# the hung operator passes 20 x its predicted seconds + --operator-timeout-floor.
# Usage: bash test_run_failures.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi run_failures "$@"
LAST=$((RANKS - 1))

enter_work_dir

# matmul with its file input A copied here, so the test can check that no run modifies it.
cp "$SRC/data/examples/matmul/A.h5" A.h5
sed -e "s|file: ../../data/examples/matmul/A.h5|file: $PWD/A.h5|" \
    "$SRC/plans/examples/matmul.yaml" > matmul.yaml
grep -q "file: $PWD/A.h5" matmul.yaml || fail "could not point matmul.yaml at the copied input"
input_sum=$(cksum < A.h5)

# run NAME [tra run args...]: runs under mpiexec with a time limit; sets rc, NAME.out, NAME.err.
run() {
    local name=$1
    shift
    rc=0
    timeout 60 "$MPIEXEC" -n "$RANKS" "$TRA" run "$@" --out-dir "$name" > "$name.out" 2> "$name.err" || rc=$?
    [ "$rc" -ne 124 ] || fail "$name: the job hung (killed after 60 s)"
}

# A failed run: non-zero exit, no output at any final name, the input untouched.
expect_failed() {
    local name=$1
    [ "$rc" -ne 0 ] || { cat "$name.out" "$name.err" >&2; fail "$name: exited with 0"; }
    [ ! -e "$name/out/C.h5" ] && [ ! -e "$name/out/D.h5" ] || fail "$name: an output appeared at its final name"
    [ "$(cksum < A.h5)" = "$input_sum" ] || fail "$name: the input A.h5 changed"
}

# Exactly one error line, naming the rank (when there are several) and the cause.
expect_one_message() {
    local name=$1 rank=$2 cause=$3
    local lines
    lines=$(grep -c '^tra: error' "$name.err" || true)
    [ "$lines" -eq 1 ] || { cat "$name.err" >&2; fail "$name: $lines error lines, expected one"; }
    local who=""
    [ "$RANKS" -eq 1 ] || who=" (rank $rank)"
    grep -q "^tra: error$who: .*$cause" "$name.err" || { cat "$name.err" >&2; fail "$name: the message does not name rank $rank and '$cause'"; }
}

# 1. A kernel failure on the last rank during a local operator: agreed by every rank, one message,
#    every rank exits 1 (no MPI_Abort needed).
TRA_FAULT="error@$LAST:local_join" run kernel_error matmul.yaml
expect_failed kernel_error
[ "$rc" -eq 1 ] || { cat kernel_error.err >&2; fail "kernel_error: exited with $rc, expected 1"; }
expect_one_message kernel_error "$LAST" "injected fault .* local_join"

# 2. A failure on the last rank inside an exchange (peers wait for its messages): MPI_Abort.
TRA_FAULT="error@$LAST:bcast" run exchange_error matmul.yaml --plan 1
expect_failed exchange_error
expect_one_message exchange_error "$LAST" "injected fault .* bcast"

# 2b. A failure on the last rank while writing its tiles (after the ranks before it wrote theirs):
#     agreed, one message, and rank 0 removes the temporary files too.
TRA_FAULT="error@$LAST:write" run write_error matmul.yaml
expect_failed write_error
expect_one_message write_error "$LAST" "injected fault .* write"
[ -z "$(find write_error -name '*.tmp*')" ] || fail "write_error: temporary files left: $(find write_error -name '*.tmp*')"

# 3. The last rank killed with SIGKILL as it starts a bcast, the others waiting on its messages.
TRA_FAULT="kill@$LAST:bcast" run killed matmul.yaml --plan 1
expect_failed killed

# 4. Rank 0 killed as it starts writing the outputs.
TRA_FAULT="kill@0:write" run killed_writing matmul.yaml
expect_failed killed_writing

# 5. An unreadable input: A.h5 cut short. Bad input: exit 2, one message naming the file.
head -c 3000 A.h5 > A.cut.h5
sed -e "s|$PWD/A.h5|$PWD/A.cut.h5|" matmul.yaml > matmul.cut.yaml
cut_sum=$(cksum < A.cut.h5)
run unreadable matmul.cut.yaml
expect_failed unreadable
[ "$rc" -eq 2 ] || { cat unreadable.err >&2; fail "unreadable: exited with $rc, expected 2"; }
expect_one_message unreadable 0 "A.cut.h5"
[ "$(cksum < A.cut.h5)" = "$cut_sum" ] || fail "unreadable: the input A.cut.h5 changed"

# 6. The memory check: a budget below the plan's predicted peak is refused before any work.
run too_small matmul.yaml --memory-per-site 1000
expect_failed too_small
[ "$rc" -eq 2 ] || { cat too_small.err >&2; fail "too_small: exited with $rc, expected 2"; }
expect_one_message too_small 0 "needs [0-9]* bytes .*, have 1000"
[ ! -e too_small ] || fail "too_small: a refused run made $(find too_small)"

# 7. A malformed fault hook is bad input, agreed before any work.
TRA_FAULT="explode@0:read" run bad_hook matmul.yaml
[ "$rc" -eq 2 ] || { cat bad_hook.err >&2; fail "bad_hook: exited with $rc, expected 2"; }
expect_one_message bad_hook 0 "TRA_FAULT"

# 8. Messages in pieces of 64 bytes: the same bytes as the prediction and the reference result;
#    measured peak within the predicted peak, which fits the budget it is given exactly.
peak_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_peak_bytes"])' "$1"; }
run whole matmul.yaml --check --report whole.json
[ "$rc" -eq 0 ] || { cat whole.out whole.err >&2; fail "whole: exited with $rc"; }
TRA_MAX_MESSAGE_BYTES=64 run pieces matmul.yaml --check --report pieces.json --memory-per-site "$(peak_of whole.json)"
[ "$rc" -eq 0 ] || { cat pieces.out pieces.err >&2; fail "pieces: exited with $rc"; }
for report in whole.json pieces.json; do
    /usr/bin/python3 - "$report" << 'PY' || fail "$report: measured peak above the prediction or bytes differ"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["peak_bytes"] <= r["predicted_peak_bytes"], (r["peak_bytes"], r["predicted_peak_bytes"])
assert r["measured_bytes"] == r["predicted_bytes"] and r["overhead_bytes"] == r["predicted_overhead_bytes"]
PY
done
"$TRA" diff whole/out/C.h5:/C pieces/out/C.h5:/C > pieces.diff || fail "pieces: C differs from the run in whole messages"

# 8b. A message limit that is not a whole number of bytes is bad input, before any work.
for limit in "" abc 12x 0 -5; do
    TRA_MAX_MESSAGE_BYTES="$limit" run bad_limit matmul.yaml
    [ "$rc" -eq 2 ] || { cat bad_limit.err >&2; fail "TRA_MAX_MESSAGE_BYTES='$limit': exited with $rc, expected 2"; }
    expect_one_message bad_limit 0 "TRA_MAX_MESSAGE_BYTES='$limit' is not a whole number"
    [ ! -e bad_limit ] || fail "TRA_MAX_MESSAGE_BYTES='$limit': a refused run made $(find bad_limit)"
done

# 9. --threads: the host lines list every rank once, with the threads asked for; 0 is refused.
run threads matmul.yaml --threads 2
[ "$rc" -eq 0 ] || { cat threads.out threads.err >&2; fail "threads: exited with $rc"; }
grep -q "^host .*2 BLAS threads per rank" threads.out || { cat threads.out >&2; fail "threads: no host line with 2 BLAS threads"; }
listed=$(sed -n 's/^host [^:]*: ranks\{0,1\} \([0-9,]*\) .*/\1/p' threads.out | tr ',' '\n' | sort -n | tr '\n' ' ')
[ "$listed" = "$(seq 0 "$LAST" | tr '\n' ' ')" ] || { cat threads.out >&2; fail "threads: host lines list ranks '$listed'"; }
run no_threads matmul.yaml --threads 0
[ "$rc" -eq 2 ] || { cat no_threads.err >&2; fail "no_threads: exited with $rc, expected 2"; }

# 10. The last rank hangs in local_join; the watchdog of the others ends the run at --timeout.
#     The timeout is generous (planning and the first operators must come before it) yet well
#     inside run's 60 s: the outcome does not depend on the machine's speed.
if [ "$RANKS" -eq 2 ] || [ "$RANKS" -eq 3 ]; then
    TRA_FAULT="hang@$LAST:local_join" run hung matmul.yaml --timeout 10
    expect_failed hung
    expect_one_message hung 0 "--timeout of 10 s passed while rank 0 waited in operator #[0-9]* local_join; rank(s) $LAST did not arrive"
    [ -z "$(find hung -name '*.tmp*')" ] || fail "hung: temporary files left: $(find hung -name '*.tmp*')"
fi
# 10a. On one rank nobody waits to call the roll: the rank's own timer (run_backstop.hpp) ends
#     the hang a few seconds after the deadline, with one message naming the operator, and
#     removes the temporary outputs.
if [ "$RANKS" -eq 1 ]; then
    TRA_FAULT="hang@0:local_join" run hung_alone matmul.yaml --timeout 3
    expect_failed hung_alone
    [ "$rc" -eq 1 ] || { cat hung_alone.err >&2; fail "hung_alone: exited with $rc, expected 1"; }
    expect_one_message hung_alone 0 "--timeout of 3 s passed while rank 0 was in operator #[0-9]* local_join (ended by this rank's own timer"
    [ -z "$(find hung_alone -name '*.tmp*')" ] || fail "hung_alone: temporary files left: $(find hung_alone -name '*.tmp*')"
fi
# 10a'. The same for an operator's own limit (on by default, here with a 3 s floor and no
#     --timeout): the rank's own timer ends the hang a few seconds after the limit, naming the
#     operator and its limit.
if [ "$RANKS" -eq 1 ]; then
    TRA_FAULT="hang@0:local_join" run op_hung_alone matmul.yaml --operator-timeout-floor 3
    expect_failed op_hung_alone
    [ "$rc" -eq 1 ] || { cat op_hung_alone.err >&2; fail "op_hung_alone: exited with $rc, expected 1"; }
    expect_one_message op_hung_alone 0 "operator #[0-9]* local_join passed its limit of [0-9.e+-]* s (20 x predicted [0-9.e+-]* s + 3 s floor) while rank 0 was in it (ended by this rank's own timer"
    [ -z "$(find op_hung_alone -name '*.tmp*')" ] || fail "op_hung_alone: temporary files left: $(find op_hung_alone -name '*.tmp*')"
fi
# 10b. The per-operator limit is on by default (K = 20 x predicted + a floor): with a floor of
#     5 s instead of 60 and no --timeout, the same hang ends after about 5 s (every operator before
#     it takes milliseconds, even sanitized on 4 ranks per 2 cores) with one message naming the
#     operator, its limit and the missing rank. At 2 ranks also: factor 0 turns the limit off, so
#     only --timeout ends the hang, with its own message.
if [ "$RANKS" -ge 2 ]; then
    TRA_FAULT="hang@$LAST:local_join" run op_hung matmul.yaml --operator-timeout-floor 5
    expect_failed op_hung
    expect_one_message op_hung 0 "operator #[0-9]* local_join passed its limit of [0-9.e+-]* s (20 x predicted [0-9.e+-]* s + 5 s floor) while rank 0 waited in it; rank(s) $LAST did not arrive"
    [ -z "$(find op_hung -name '*.tmp*')" ] || fail "op_hung: temporary files left: $(find op_hung -name '*.tmp*')"
fi
if [ "$RANKS" -eq 2 ]; then
    TRA_FAULT="hang@$LAST:local_join" run op_off matmul.yaml --operator-timeout-factor 0 --operator-timeout-floor 1 --timeout 8
    expect_failed op_off
    expect_one_message op_off 0 "--timeout of 8 s passed while rank 0 waited in operator #[0-9]* local_join; rank(s) $LAST did not arrive"
fi
# A timeout that is not a positive number is refused before any work.
run bad_timeout matmul.yaml --timeout 0
[ "$rc" -eq 2 ] || { cat bad_timeout.err >&2; fail "bad_timeout: exited with $rc, expected 2"; }
[ ! -e bad_timeout ] || fail "bad_timeout: a refused run made $(find bad_timeout)"

echo "run_failures: ok on $RANKS ranks"
