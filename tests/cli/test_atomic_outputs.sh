#!/usr/bin/env bash
# tra run never clobbers or half-writes: existing outputs need --force and are left untouched
# without it; bad inputs or unusable output paths fail with exit 2 and a file:line:col message
# before anything is written (no outputs, no *.tmp* files); inputs are never modified, not even
# by an output naming the input's file; --force keeps every object of an output file that the
# workflow does not write; temporaries left by dead runs on this host are removed.
# Uses plans/examples/matmul.yaml (on a copy of its committed input A.h5) and its expected output.
# Usage: bash test_atomic_outputs.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli atomic_outputs "$@"

plan="$SRC/plans/examples/matmul.yaml"
input="$SRC/data/examples/matmul/A.h5"
expected="$SRC/data/examples/matmul/expected.h5"
for f in "$plan" "$input" "$expected"; do [ -f "$f" ] || fail "missing $f"; done

enter_work_dir

sum() { sha256sum "$1" | cut -d' ' -f1; }

# run LOG EXPECTED_RC ARGS...: run tra, fail unless it exits EXPECTED_RC.
run() {
    local log=$1 want=$2 rc=0
    shift 2
    "$TRA" "$@" > "$log" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$log" >&2; fail "'tra $*' exited with $rc, expected $want"; }
}

no_temporaries() {
    local leftovers
    leftovers=$(find . -name '*.tmp*')
    [ -z "$leftovers" ] || fail "$1: temporary files left behind: $leftovers"
}

# The matmul example on a copy of its input file, beside the workflow.
cp "$input" A.h5
sed 's#file: ../../data/examples/matmul/A.h5#file: A.h5#' "$plan" > wf.yaml
grep -q 'file: A.h5' wf.yaml || fail "could not point the matmul workflow at the copied A.h5"
input_sum=$(sum A.h5)
[ "$input_sum" = "$(sum "$input")" ] || fail "copy of A.h5 differs from $input"

# (a) A second run without --force refuses (exit 2, mentions --force) and leaves the outputs as
#     they were; with --force it replaces them.
run first.log 0 run wf.yaml --reference
if [ ! -f out/C.h5 ] || [ ! -f out/D.h5 ]; then
    cat first.log >&2
    fail "first run did not write out/C.h5 and out/D.h5"
fi
run first.diff 0 diff out/C.h5:/C "$expected:/C"
c_sum=$(sum out/C.h5)
d_sum=$(sum out/D.h5)
run again.log 2 run wf.yaml --reference
grep -q -- "--force" again.log || { cat again.log >&2; fail "refusal to overwrite does not mention --force"; }
grep -Eq 'wf\.yaml:[0-9]+:[0-9]+' again.log || { cat again.log >&2; fail "refusal does not name wf.yaml:line:col"; }
[ "$(sum out/C.h5)" = "$c_sum" ] || fail "refused run changed out/C.h5"
[ "$(sum out/D.h5)" = "$d_sum" ] || fail "refused run changed out/D.h5"
no_temporaries "refused run"
run force.log 0 run wf.yaml --reference --force
run force.diff 0 diff out/C.h5:/C "$expected:/C"
run force.diff 0 diff out/D.h5:/D "$expected:/D"
no_temporaries "--force run"

# (a') Only the second output exists: the refusal comes before the first output is written.
rm -rf out && mkdir out && echo keep > out/D.h5
run second.log 2 run wf.yaml --reference
grep -q -- "--force" second.log || { cat second.log >&2; fail "refusal to overwrite out/D.h5 does not mention --force"; }
[ ! -e out/C.h5 ] || fail "out/C.h5 was written although the run refused to overwrite out/D.h5"
[ "$(cat out/D.h5)" = keep ] || fail "refused run changed out/D.h5"
no_temporaries "refused run (second output exists)"

# (a'') An output path that is a folder fails up front even with --force, writing nothing.
rm -rf out && mkdir -p out/D.h5
run folder.log 2 run wf.yaml --reference --force
grep -Eq 'wf\.yaml:[0-9]+:[0-9]+' folder.log || { cat folder.log >&2; fail "folder-as-output error does not name wf.yaml:line:col"; }
[ ! -e out/C.h5 ] || fail "out/C.h5 was written although output D's path is a folder"
[ -d out/D.h5 ] || fail "the folder out/D.h5 was replaced"
no_temporaries "folder-as-output run"
rm -rf out

# (b) A missing input file: exit 2 with wf.yaml:line:col, no output folder, no temporaries.
sed 's#file: A.h5#file: missing/A.h5#' wf.yaml > missing.yaml
run missing.log 2 run missing.yaml --reference --out-dir miss
grep -Eq 'missing\.yaml:[0-9]+:[0-9]+' missing.log || { cat missing.log >&2; fail "missing-input error does not name missing.yaml:line:col"; }
grep -q 'missing/A.h5' missing.log || { cat missing.log >&2; fail "missing-input error does not name the file"; }
if [ -e miss ]; then
    [ -z "$(find miss -type f)" ] || fail "files written for a run with a missing input: $(find miss -type f)"
fi
no_temporaries "missing-input run"
#     An input file that is not HDF5 likewise.
echo "not hdf5" > bad.h5
sed 's#file: A.h5#file: bad.h5#' wf.yaml > bad.yaml
run bad.log 2 run bad.yaml --reference --out-dir badout
grep -Eq 'bad\.yaml:[0-9]+:[0-9]+' bad.log || { cat bad.log >&2; fail "non-HDF5 input error does not name bad.yaml:line:col"; }
if [ -e badout ]; then
    [ -z "$(find badout -type f)" ] || fail "files written for a run with a non-HDF5 input: $(find badout -type f)"
fi
no_temporaries "non-HDF5-input run"

# (d) An output naming an input's file (directly, through a symlink or a hard link) is refused
#     with exit 2 naming both, with or without --force, by validate and run alike.
ln -sf A.h5 link.h5
ln -f A.h5 hard.h5
for target in A.h5 ./link.h5 hard.h5; do
    sed "s#file: out/C.h5#file: $target#" wf.yaml > same.yaml
    grep -q "file: $target" same.yaml || fail "could not point output C at $target"
    for args in "validate same.yaml" "run same.yaml --reference" "run same.yaml --reference --force" \
        "run same.yaml --force"; do
        # shellcheck disable=SC2086
        run same.log 2 $args
        grep -Eq "same\.yaml:[0-9]+:[0-9]+: .*output C would write '[^']*${target#./}', which is the file of input A \('[^']*A\.h5', same\.yaml:[0-9]+:[0-9]+" same.log ||
            { cat same.log >&2; fail "'tra $args' with output C at $target does not name both files and places"; }
        [ "$(sum A.h5)" = "$input_sum" ] || fail "'tra $args' modified its input A.h5 (output at $target)"
    done
done
rm -f link.h5 hard.h5 same.yaml
rm -rf out
no_temporaries "output-is-input runs"

# (e) --force keeps every dataset, group and attribute of an existing output file that the
#     workflow does not write; the ones it writes are replaced.
mkdir -p out
"$PY" - <<'PY' || fail "could not write the old out/C.h5 with h5py"
import h5py, numpy as np
with h5py.File("out/C.h5", "w") as f:
    f.attrs["note"] = "kept"
    f.attrs["version"] = np.int64(3)
    f.create_dataset("C", data=np.zeros((2, 2)))          # replaced by the run
    f.create_dataset("other", data=np.arange(6.0).reshape(2, 3)).attrs["unit"] = "m"
    g = f.create_group("grp")
    g.attrs["who"] = "another tool"
    g.create_dataset("x", data=np.array([1, 2, 3], dtype=np.int32), chunks=(2,), compression="gzip")
    f["soft"] = h5py.SoftLink("/other")
PY
run keep.log 0 run wf.yaml --reference --force
run keep.diff 0 diff out/C.h5:/C "$expected:/C"
"$PY" - <<'PY' || fail "--force lost objects of the old out/C.h5"
import h5py, numpy as np
with h5py.File("out/C.h5", "r") as f:
    assert f.attrs["note"] == "kept" and f.attrs["version"] == 3, dict(f.attrs)
    assert np.array_equal(f["other"][...], np.arange(6.0).reshape(2, 3))
    assert f["other"].attrs["unit"] == "m"
    assert f["grp"].attrs["who"] == "another tool"
    assert np.array_equal(f["grp/x"][...], [1, 2, 3]) and f["grp/x"].dtype == np.int32
    assert f["grp/x"].compression == "gzip"
    assert f.get("soft", getlink=True).path == "/other"
    assert f["C"].shape == (60, 35), f["C"].shape
    assert sorted(f.keys()) == ["C", "grp", "other", "soft"], sorted(f.keys())
PY
no_temporaries "--force run keeping objects"
#     The old file's objects also survive a second --force run unchanged.
run keep2.log 0 run wf.yaml --reference --force
"$PY" -c 'import h5py; f = h5py.File("out/C.h5", "r"); assert sorted(f.keys()) == ["C", "grp", "other", "soft"]' ||
    fail "a second --force run lost objects of out/C.h5"
rm -rf out

# (f) Temporaries of this output left by a dead process on this host are removed; another
#     host's, a live process's and another output's stay.
mkdir -p out
bash -c 'exit 0' &
dead=$!
wait "$dead" || true
host=$(hostname)
touch "out/C.h5.tmp-$host-$dead-0" "out/C.h5.tmp-other-$host-$dead-0" "out/C.h5.tmp-$host-$$-0" \
    "out/C.h5.tmp-$host-$dead-0.bak" "out/E.h5.tmp-$host-$dead-0"
run stale.log 0 run wf.yaml --reference
[ ! -e "out/C.h5.tmp-$host-$dead-0" ] || { cat stale.log >&2; fail "a dead run's temporary was not removed"; }
grep -q "removed '[^']*C.h5.tmp-$host-$dead-0'" stale.log ||
    { cat stale.log >&2; fail "the removal of a dead run's temporary was not reported"; }
for kept in "out/C.h5.tmp-other-$host-$dead-0" "out/C.h5.tmp-$host-$$-0" "out/C.h5.tmp-$host-$dead-0.bak" \
    "out/E.h5.tmp-$host-$dead-0"; do
    [ -e "$kept" ] || fail "$kept was removed, but it is not a dead run's temporary of this output on this host"
done
rm -rf out

# (c) The input file was read by every run above and never modified.
[ "$(sum A.h5)" = "$input_sum" ] || fail "a run modified its input A.h5"

echo "atomic_outputs: ok"
