#!/usr/bin/env bash
# File-level faults end cleanly: a truncated HDF5 input, an input whose chunk fails its checksum
# (a bad chunk), an output folder that is not writable, and a full disk (a small tmpfs). Each
# run must end within a time limit (no hang) with a non-zero exit and one "tra: error:" line
# that names the file, leave nothing at the outputs' final names and no temporaries, and leave
# the input untouched. Uses plans/examples/matmul.yaml on copies of its input A.h5.
# The disk-full case needs to mount a tmpfs; where mounting is forbidden it is skipped, saying so.
# The unwritable-output case runs as user nobody when root; where nobody cannot reach the binary
# or the work folder (a checkout under a 0700 folder) it is skipped, saying so.
# Usage: bash test_file_faults.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli file_faults "$@"
PYTHON=${TRA_PYTHON:-/usr/bin/python3}

plan="$SRC/plans/examples/matmul.yaml"
input="$SRC/data/examples/matmul/A.h5"
for f in "$plan" "$input"; do [ -f "$f" ] || fail "missing $f"; done

mounted=""
cleanup() { if [ -n "$mounted" ]; then umount "$mounted" || true; fi; }
trap cleanup EXIT

enter_work_dir
chmod 755 .

# workflow FILE NAME: the matmul workflow reading its input A from FILE, written to NAME.
workflow() {
    sed "s#file: ../../data/examples/matmul/A.h5#file: $1#" "$plan" > "$2"
    grep -q "file: $1" "$2" || fail "could not point the matmul workflow at $1"
}

# faulty_run CASE OUT_DIR PATTERN [PREFIX...] -- ARGS...: runs `tra ARGS --out-dir OUT_DIR` (as
# PREFIX, e.g. another user) under a time limit; it must fail with one error line matching
# PATTERN, and write neither output nor temporaries under OUT_DIR.
faulty_run() {
    local name=$1 out=$2 pattern=$3 rc=0
    shift 3
    local prefix=()
    while [ "$1" != "--" ]; do prefix+=("$1"); shift; done
    shift
    "${prefix[@]}" timeout 120 "$TRA" "$@" --out-dir "$out" > "$name.log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "$name: tra did not finish within 120 s"
    [ "$rc" -ne 0 ] || { cat "$name.log" >&2; fail "$name: tra succeeded"; }
    [ "$rc" -lt 128 ] || { cat "$name.log" >&2; fail "$name: tra died of signal $((rc - 128))"; }
    local errors
    errors=$(grep -c '^tra: error: ' "$name.log" || true)
    [ "$errors" -eq 1 ] || { cat "$name.log" >&2; fail "$name: expected one error line, got $errors"; }
    grep -Eq "$pattern" "$name.log" || { cat "$name.log" >&2; fail "$name: error does not match '$pattern'"; }
    if [ -e "$out" ]; then
        local files
        files=$(find "$out" -type f)
        [ -z "$files" ] || fail "$name: files left behind: $files"
    fi
    echo "$name: exit $rc: $(cat "$name.log")"
}

cp "$input" A.h5
input_sum=$(sha256sum A.h5 | cut -d' ' -f1)

# (a) A truncated input: half of A.h5.
head -c "$(($(stat -c %s A.h5) / 2))" A.h5 > truncated.h5
workflow truncated.h5 truncated.yaml
faulty_run truncated out-truncated "truncated\.h5" -- run truncated.yaml --reference

# (b) A bad chunk: A stored with Fletcher-32 checksums per chunk, one byte of chunk (0, 0)
#     flipped. HDF5 detects it only when that chunk is read, i.e. in the middle of the run.
"$PYTHON" - <<'PY'
import h5py
with h5py.File("A.h5", "r") as f:
    a = f["A"][...]
with h5py.File("checksummed.h5", "w") as f:
    ds = f.create_dataset("A", data=a, chunks=(20, 12), fletcher32=True)
    offset = ds.id.get_chunk_info(0).byte_offset
data = bytearray(open("checksummed.h5", "rb").read())
data[offset + 5] ^= 0xFF
open("bad_chunk.h5", "wb").write(data)
PY
workflow checksummed.h5 checksummed.yaml
"$TRA" run checksummed.yaml --reference --out-dir out-checksummed > checksummed.log 2>&1 ||
    { cat checksummed.log >&2; fail "the intact checksummed input does not run"; }
workflow bad_chunk.h5 bad_chunk.yaml
faulty_run bad_chunk out-bad-chunk "bad_chunk\.h5" -- run bad_chunk.yaml --reference

# (c) An output folder that is not writable. Root ignores permissions, so then the run is
#     made as user nobody (everything it reads here is world-readable).
workflow A.h5 wf.yaml
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
# Nobody can reach the binary and this folder only when every folder above them is searchable
# by others (a checkout under a 0700 folder, e.g. one mktemp -d made, is not).
if "${as_user[@]}" test -x "$TRA" -a -r wf.yaml; then
    mkdir -p readonly/out && chmod 555 readonly/out readonly
    faulty_run readonly_out readonly "readonly/out.*Permission denied" "${as_user[@]}" -- \
        run wf.yaml --reference
    faulty_run readonly_parent readonly/new "readonly/new.*Permission denied" "${as_user[@]}" -- \
        run wf.yaml --reference
    chmod 755 readonly readonly/out
else
    echo "skipping the unwritable-output case: user nobody cannot run $TRA or read $PWD"
fi

# (d) A full disk: the outputs (about 17 KiB each) go to an 8 KiB tmpfs.
mkdir -p full
mount_rc=0
mount -t tmpfs -o size=8k tmpfs full 2> mount.log || mount_rc=$?
if [ "$mount_rc" -ne 0 ]; then
    if grep -Eq 'Operation not permitted|permission denied|must be superuser' mount.log; then
        echo "file_faults: SKIPPED the disk-full case: mounting a tmpfs is forbidden here:" \
            "$(cat mount.log)"
    else
        cat mount.log >&2
        fail "mounting a tmpfs for the disk-full case failed (exit $mount_rc)"
    fi
else
    mounted="$PWD/full"
    faulty_run disk_full full "full/out/C\.h5.*No space left on device" -- run wf.yaml --reference
    umount full
    mounted=""
fi

# (e) No run above touched its input.
[ "$(sha256sum A.h5 | cut -d' ' -f1)" = "$input_sum" ] || fail "a run modified its input A.h5"

echo "file_faults: ok"
