#!/usr/bin/env bash
# Rewrite rules as `tra explain` shows them: the logical rules of the thesis' diag(X+Y) chain
# (R1-6, R1-2, R1-7) as "rewrite:" lines, and a physical rule (R2-4: the concat of tiles that are
# already grouped runs without a shuffle) in the rules of the node it produced, text and JSON.
# Usage: bash test_explain_rules.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli explain_rules "$@"
enter_work_dir

"$TRA" explain "$SRC/plans/examples/diag.yaml" --sites 2 > diag.txt
rules=$(grep '^rewrite: ' diag.txt | awk '{print $2}' | tr '\n' ' ')
[ "$rules" = "R1-6 R1-2 R1-7 " ] || fail "diag rewrites are '$rules': $(cat diag.txt)"
grep -q "^rewrite: R1-7 map push-down through a join at Dg.S: diag distributes over add" diag.txt ||
    fail "R1-7 line: $(cat diag.txt)"

"$TRA" explain "$SRC/plans/examples/tile_concat.yaml" --sites 2 > concat.txt
grep -E '^#[0-9]+ +local_aggregate .* Back .*table1,R2-4' concat.txt >/dev/null ||
    fail "the concat's rules do not list R2-4: $(cat concat.txt)"
"$TRA" explain "$SRC/plans/examples/tile_concat.yaml" --sites 2 --format json > concat.json
"$PY" - concat.json <<'PYEOF' || fail "JSON rules of the concat"
import json, sys
d = json.load(open(sys.argv[1]))
back = [o for o in d["operators"] if o["origin"] == "Back" and o["op"] == "local_aggregate"]
assert len(back) == 1 and back[0]["rules"][-1] == "R2-4", back
assert not [o for o in d["operators"] if o["op"] == "shuffle"], "a shuffle is left"
assert d["exact_bytes"] == 0, d["exact_bytes"]
PYEOF
echo "explain_rules: ok"
