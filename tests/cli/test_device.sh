#!/usr/bin/env bash
# `tra run --device`: cpu is the default and gives the same outputs as no flag; an unknown device,
# --device gpu with --reference, and --device gpu where the build has no GPU backend (or no GPU is
# visible) are bad input (exit 2) with a message saying why. GPU results are compared with the
# CPU's in tests/gpu.
# Usage: bash test_device.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli device "$@"
: "$SRC"

count_failures

enter_work_dir

matmul_workflow device "8, 6" "4, 3" "6, 4" "3, 2" einsum 7 > mm.yaml

# expect_error CODE PATTERN ARGS...: tra exits with CODE and stderr matches PATTERN.
expect_error() {
    local want=$1 pattern=$2
    shift 2
    local rc=0
    "$TRA" "$@" > out.log 2> err.log || rc=$?
    [ "$rc" -eq "$want" ] || { cat out.log err.log >&2; fail "tra $* exited $rc, expected $want"; return; }
    grep -q -e "$pattern" err.log || { cat err.log >&2; fail "tra $*: no '$pattern' in the error"; }
}

rc=0
"$TRA" run mm.yaml --out-dir plain > plain.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat plain.log >&2; fail "plain run exited $rc"; }
rc=0
"$TRA" run mm.yaml --device cpu --out-dir cpu --report cpu.json > cpu.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat cpu.log >&2; fail "--device cpu exited $rc"; }
"$TRA" diff plain/out/C.h5:/C cpu/out/C.h5:/C > /dev/null || fail "--device cpu differs from the default"
grep -q '"device": *"cpu"' cpu.json || fail "the report does not name the device"

expect_error 2 "expected cpu or gpu, got 'tpu'" run mm.yaml --device tpu --out-dir tpu
expect_error 2 "--reference evaluates on the CPU" run mm.yaml --reference --device gpu --out-dir ref
[ ! -e tpu/out/C.h5 ] || fail "a refused run wrote an output"

# Without the GPU backend, or with it but no GPU, a GPU run is refused before anything runs.
rc=0
"$TRA" run mm.yaml --device gpu --out-dir gpu > gpu.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 2 ] || { cat gpu.log >&2; fail "--device gpu exited $rc, expected 0 or 2"; }
    grep -q -e "rebuild with -DTRA_CUDA=ON" -e "no GPU is visible" gpu.log ||
        { cat gpu.log >&2; fail "--device gpu failed without saying why"; }
    [ ! -e gpu/out/C.h5 ] || fail "a refused GPU run wrote an output"
else
    "$TRA" diff cpu/out/C.h5:/C gpu/out/C.h5:/C > /dev/null || fail "--device gpu differs from cpu"
fi

finish_counted "ok: --device"
