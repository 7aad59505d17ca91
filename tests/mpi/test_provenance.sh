#!/usr/bin/env bash
# The run report's provenance (docs/runtime.md, "Report"; docs/reliability.md): `tra run --report`
# records tra's version and commit and its libraries (as `tra --version` prints them), the plan's
# name and the content hash of its plan-file text, the machine profile's hash, every input file's
# absolute path, dataset, size and modification time (with --hash-inputs also its FNV-1a 64
# content hash; a file two inputs share is listed for each), the command line and the rank layout.
# Every expected value is computed here, in python (os.stat, FNV-1a over the file's bytes), never
# taken from tra. Also: the existing report keys stay; --hash-inputs without --report and a
# negative --operator-timeout-factor are refused with exit 2.
# Usage: bash test_provenance.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi provenance "$@"

enter_work_dir

# Two inputs in one HDF5 file (A, B), one generated (G: not a file, so not listed).
"$PY" - << 'PY' || fail "could not write data.h5"
import h5py, numpy as np
rng = np.random.default_rng(5)
with h5py.File("data.h5", "w") as f:
    f["A"] = rng.uniform(-1, 1, (8, 6))
    f["B"] = rng.uniform(-1, 1, (6, 4))
PY
cat > prov.yaml << 'YAML'
name: prov
inputs:
  A: {shape: [8, 6], tile: [4, 3], file: data.h5, dataset: /A}
  B: {shape: [6, 4], tile: [3, 2], file: data.h5, dataset: /B}
  G: {shape: [8, 4], tile: [4, 2], generate: {uniform: [-1, 1], seed: 3}}
program:
  - C: {einsum: "ik,kj->ij", inputs: [A, B]}
  - D: {einsum: "ij,ij->ij", inputs: [C, G]}
outputs:
  D: {file: out/D.h5}
YAML
cp "$SRC/tests/cli/fast_memory.machine.yaml" profile.yaml

# run NAME ARGS...: tra run under mpiexec (a time limit in case of a hang); NAME.out, NAME.err.
run() {
    local name=$1
    shift
    rc=0
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$@" > "$name.out" 2> "$name.err" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$name.out" "$name.err" >&2; fail "$name: exited with $rc"; }
}

"$TRA" --version > version.txt || fail "tra --version"

# 1. A plan file, --hash-inputs, a machine profile file, one BLAS thread per rank.
"$TRA" plan prov.yaml --sites "$RANKS" -o chosen.plan > plan.out || fail "tra plan -o"
run hashed chosen.plan --report hashed.json --hash-inputs --machine profile.yaml --threads 1 \
    --out-dir hashed
# 2. The workflow itself (rank 0 plans), without --hash-inputs.
run plain prov.yaml --report plain.json --out-dir plain

"$PY" - "$TRA" "$RANKS" "$SRC/CMakeLists.txt" << 'PY' || fail "provenance differs (above)"
import datetime, json, os, re, sys

tra, ranks, cmakelists = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def fnv1a64(path):
    h = 0xcbf29ce484222325
    with open(path, "rb") as f:
        while piece := f.read(1 << 16):
            for byte in piece:
                h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "fnv1a64:%016x" % h

version = re.search(r"project\(tra VERSION ([0-9.]+)", open(cmakelists).read()).group(1)
lines = dict(l.split(" ", 1) for l in open("version.txt").read().splitlines() if " " in l)

def check(report_path, argv, hashed, plan_file):
    r = json.load(open(report_path))
    # The report as before: every existing key is still there.
    for key in ["sites", "plan", "seconds", "predicted_seconds", "machine", "device", "operators",
                "measured_bytes", "predicted_bytes", "overhead_bytes", "predicted_overhead_bytes",
                "peak_bytes", "predicted_peak_bytes", "reserved_bytes", "reserve_seconds"]:
        assert key in r, (report_path, key)
    p = r["provenance"]
    assert p["tra_version"] == version, (p["tra_version"], version)
    assert re.fullmatch(r"[0-9a-f]{7,}|unknown", p["git_commit"]), p["git_commit"]
    assert p["git_commit"] == lines["commit"], (p["git_commit"], lines["commit"])
    for key, line in (("blas", "BLAS"), ("mpi", "MPI"), ("hdf5", "HDF5")):
        assert p[key] == lines[line], (key, p[key], lines[line])
    assert p["plan"]["name"] == r["plan"], (p["plan"], r["plan"])
    assert p["plan"]["file"] == argv[2], p["plan"]
    if plan_file:
        assert p["plan"]["content_hash"] == fnv1a64(argv[2]), p["plan"]
    else:  # rank 0's plan-file text, which is not on disk: its form only
        assert re.fullmatch(r"fnv1a64:[0-9a-f]{16}", p["plan"]["content_hash"]), p["plan"]
    m = p["machine_profile"]
    assert m["content_hash"] == r["machine"]["content_hash"], (m, r["machine"])
    if "--machine" in argv:
        assert m["source"] == "profile.yaml" and m["name"] == "fast memory", m
        assert m["content_hash"] == fnv1a64("profile.yaml"), m
    else:
        assert m["source"] == "built-in", m
    data = os.path.abspath("data.h5")
    st = os.stat(data)
    assert [i["input"] for i in p["inputs"]] == ["A", "B"], p["inputs"]
    for i, dataset in zip(p["inputs"], ["/A", "/B"]):
        assert i["path"] == data and i["dataset"] == dataset, i
        assert i["size_bytes"] == st.st_size, (i, st.st_size)
        assert i["mtime_ns"] == st.st_mtime_ns, (i, st.st_mtime_ns)
        when = datetime.datetime.fromtimestamp(st.st_mtime_ns // 10**9, datetime.timezone.utc)
        assert i["mtime"] == when.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (st.st_mtime_ns % 10**9), i
        if hashed:
            assert i["content_hash"] == fnv1a64(data), (i, fnv1a64(data))
        else:
            assert "content_hash" not in i, i
    assert p["command_line"] == argv, (p["command_line"], argv)
    lay = p["layout"]
    assert lay["ranks"] == ranks == r["sites"], lay
    if "--threads" in argv:
        assert lay["blas_threads_per_rank"] == 1, lay
    listed = sorted(rank for h in lay["hosts"] for rank in h["ranks"])
    assert listed == list(range(ranks)), lay
    assert all(h["ranks_on_host"] == len(h["ranks"]) and h["cores"] >= 1 and h["name"]
               for h in lay["hosts"]), lay

check("hashed.json", [tra, "run", "chosen.plan", "--report", "hashed.json", "--hash-inputs",
                      "--machine", "profile.yaml", "--threads", "1", "--out-dir", "hashed"],
      hashed=True, plan_file=True)
check("plain.json", [tra, "run", "prov.yaml", "--report", "plain.json", "--out-dir", "plain"],
      hashed=False, plan_file=False)
PY

# 3. Refused before any work (exit 2): --hash-inputs without a report, a negative factor/floor.
if [ "$RANKS" -eq 1 ]; then
    for args in "--hash-inputs" "--operator-timeout-factor -1" "--operator-timeout-floor -5" \
        "--operator-timeout-factor abc"; do
        rc=0
        # shellcheck disable=SC2086  # the words of $args are separate arguments
        "$TRA" run prov.yaml $args --out-dir refused > refused.out 2> refused.err || rc=$?
        [ "$rc" -eq 2 ] || { cat refused.err >&2; fail "'$args': exited with $rc, expected 2"; }
        [ ! -e refused ] || fail "'$args': a refused run made $(find refused)"
    done
fi

echo "provenance: ok on $RANKS ranks"
