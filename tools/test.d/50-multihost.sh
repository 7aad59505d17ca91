#!/usr/bin/env bash
# Two "hosts" on one machine: network namespaces node1 and node2 joined by a veth pair, with
# addresses only inside them (nothing is created in the machine's own namespace), each run under
# its own hostname (unshare --uts; OpenMPI keys its shared-memory files on the hostname). OpenMPI
# runs across them over TCP: mpirun starts in node1 and reaches node2 through a plm_rsh_agent
# that maps an address to its namespace in place of ssh. Ranks on one host talk over shared
# memory, ranks on different hosts over TCP.
# For the TRA paper's FFNN step (plans/paper/scaled/ffnn-speech.yaml, 5 sites) with the paper's
# TRA-DP and TRA-MP plans, the run on 3 + 2 ranks across the two hosts must give the same outputs
# (bit for bit) and the same measured bytes per operator (run report) as the run of the same plan
# on 5 ranks on one host, which is itself checked with `tra run --check`; and the bytes must
# really have crossed the veth link.
# The link is shaped with tc like a slow network (netem: 50 us delay, 1 Gbit/s; where the kernel
# has no netem, tbf: 1 Gbit/s only; where neither, unshaped, saying why); `tra calibrate` across
# the hosts must measure it (across_hosts measured, and slower than same_host when shaped); the
# paper's plans run across the hosts with that profile print, per exchange operator, measured vs
# predicted seconds (docs/cost-model.md, "Time model"): a figure, not an assertion. The time
# model's own first plans run TRA_MULTIHOST_REPEATS times (default 3), measured as the median.
# Skips (exit 0) only when the machine refuses a UTS namespace, a network namespace or a veth
# link with "Operation not permitted" (no CAP_SYS_ADMIN / CAP_NET_ADMIN), printing that error. Usage: 50-multihost.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
build=$(realpath "${1:-build}")
tra=$build/apps/tra
work=$build-multihost
py=/usr/bin/python3
wf=$src/plans/paper/scaled/ffnn-speech.yaml
subnet=10.213.77
ns=(tra-mh$$-node1 tra-mh$$-node2)
# TRA_MULTIHOST_RANKS="A B": A ranks on node1, B on node2 (default 3 2, the paper plans' 5
# sites); with another total only the time model's plans run (e.g. "1 1" on a 2-core machine,
# where 5 ranks would share 2 cores and every exchange would also wait for descheduled ranks).
read -r -a ranks <<< "${TRA_MULTIHOST_RANKS:-3 2}"
[ "${#ranks[@]}" -eq 2 ] && [ "${ranks[0]}" -ge 1 ] && [ "${ranks[1]}" -ge 1 ] ||
    { echo "FAIL (multihost): TRA_MULTIHOST_RANKS must be two counts from 1, got '${TRA_MULTIHOST_RANKS:-}'" >&2; exit 1; }

fail() {
    echo "FAIL (multihost): $*" >&2
    exit 1
}

[ -x "$tra" ] || fail "no tra binary at $tra (build first: tools/setup.sh)"
bash tools/install-packages.sh iproute2 # ip, tc
command -v ip > /dev/null || fail "ip (iproute2) is missing"
command -v unshare > /dev/null || fail "unshare (util-linux) is missing"
rm -rf "$work"
mkdir -p "$work"

remove_hosts() {
    local rc=$?
    set +e
    local n pid
    for n in "${ns[@]}"; do
        [ -e "/run/netns/$n" ] || continue
        # Whatever still runs in a namespace was started by this stage (a rank of a failed run).
        for pid in $(ip netns pids "$n" 2> /dev/null); do kill -9 "$pid" 2> /dev/null; done
        ip netns delete "$n"
    done
    echo "multihost: namespaces removed"
    exit "$rc"
}
trap remove_hosts EXIT INT TERM

# The one condition this stage cannot run under: no right to make namespaces or links.
skip_if_forbidden() {
    local what=$1 err=$2
    if [[ "$err" == *"Operation not permitted"* ]]; then
        echo "multihost: SKIPPED: this machine forbids $what: $err"
        exit 0
    fi
    fail "$what failed: $err"
}

err=$(unshare --uts true 2>&1) || skip_if_forbidden "unshare --uts (a hostname per host)" "$err"
echo "== hosts: ${ns[0]} ($subnet.1) and ${ns[1]} ($subnet.2), veth between them"
for n in "${ns[@]}"; do
    err=$(ip netns add "$n" 2>&1) || skip_if_forbidden "ip netns add" "$err"
done
err=$(ip link add veth1 netns "${ns[0]}" type veth peer name veth2 netns "${ns[1]}" 2>&1) ||
    skip_if_forbidden "ip link add (veth)" "$err"
for i in 0 1; do
    ip -n "${ns[$i]}" link set lo up
    ip -n "${ns[$i]}" addr add "$subnet.$((i + 1))/24" dev "veth$((i + 1))"
    ip -n "${ns[$i]}" link set "veth$((i + 1))" up
done

# shape_link: a slow network on the veth link, each end shaping what it sends. netem gives delay
# and rate; a kernel without sch_netem (no module to load) gets the rate only, from tbf; without
# either the stage goes on unshaped (only calibrate's "slower" check is then left out).
shaping=none
shape_link() {
    local i err kind
    local -A qdisc=([netem]="netem delay 50us rate 1gbit" [tbf]="tbf rate 1gbit burst 64kb latency 10ms")
    if ! command -v tc > /dev/null; then
        echo "multihost: link NOT shaped: no tc (iproute2) on this machine"
        return
    fi
    for kind in netem tbf; do
        err=
        for i in 0 1; do
            # shellcheck disable=SC2086 # the qdisc's words
            err=$(ip netns exec "${ns[$i]}" tc qdisc replace dev "veth$((i + 1))" root ${qdisc[$kind]} 2>&1) || break
        done
        if [ -z "$err" ]; then
            shaping=$kind
            echo "multihost: link shaped on both ends: tc qdisc replace dev vethN root ${qdisc[$kind]}"
            return
        fi
        for i in 0 1; do ip netns exec "${ns[$i]}" tc qdisc del dev "veth$((i + 1))" root 2> /dev/null || true; done
        echo "multihost: tc qdisc $kind unavailable: $err"
    done
    echo "multihost: link NOT shaped (neither netem nor tbf): calibrate's slower-link check is left out"
}
shape_link

# In place of ssh: run the command in the namespace of the address, under that host's name.
cat > "$work/netns-agent.sh" << EOF
#!/bin/sh
# plm_rsh_agent for the namespace hosts of tools/test.d/50-multihost.sh: ADDRESS COMMAND...
host=\$1
shift
case \$host in
    $subnet.1) ns=${ns[0]} name=node1 ;;
    $subnet.2) ns=${ns[1]} name=node2 ;;
    *) echo "netns-agent: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$name; \$*"
EOF
chmod +x "$work/netns-agent.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
total=$((ranks[0] + ranks[1]))
# TRA_MULTIHOST_REPEATS: runs of each time-model plan; its table's measured seconds are their
# median (one run's exchanges vary by 20-40 % on a 2-core machine).
repeats=${TRA_MULTIHOST_REPEATS:-3}
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || fail "TRA_MULTIHOST_REPEATS must be a count from 1, got '$repeats'"

# across_hosts CMD...: CMD on ranks[0] ranks in node1 and ranks[1] in node2, mpirun in node1.
across_hosts() {
    timeout -k 10 300 ip netns exec "${ns[0]}" unshare --uts sh -c 'hostname node1; exec "$@"' sh \
        mpirun -n "$total" --host "$subnet.1:${ranks[0]},$subnet.2:${ranks[1]}" \
        --mca plm_rsh_agent "$work/netns-agent.sh" \
        --mca oob_tcp_if_include "$subnet.0/24" --mca btl_tcp_if_include "$subnet.0/24" \
        --mca btl self,vader,tcp --bind-to none "$@"
}

# veth_each: bytes node1's end of the link sent (node1 to node2) and received so far.
veth_each() {
    ip -n "${ns[0]}" -s -j link show veth1 |
        "$py" -c 'import json, sys; s = json.load(sys.stdin)[0]["stats64"]; print(s["tx"]["bytes"], s["rx"]["bytes"])'
}

# veth_bytes: bytes node1's end of the link sent plus received so far.
veth_bytes() {
    local tx rx
    read -r tx rx < <(veth_each)
    echo $((tx + rx))
}

echo "== where the ranks run"
across_hosts hostname > "$work/hostnames.txt" 2>&1 || { cat "$work/hostnames.txt" >&2; fail "mpirun across the hosts failed"; }
[ "$(sort "$work/hostnames.txt" | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')" = "node1=${ranks[0]} node2=${ranks[1]}" ] ||
    { cat "$work/hostnames.txt" >&2; fail "ranks are not ${ranks[0]} on node1 and ${ranks[1]} on node2"; }
echo "ranks: ${ranks[0]} on node1, ${ranks[1]} on node2"

# same_bytes ONE.json MANY.json: every operator moved the same bytes in both runs.
same_bytes() {
    "$py" - "$1" "$2" << 'PY'
import json, sys
one, many = (json.load(open(p)) for p in sys.argv[1:3])
def moved(r):
    return [(o["id"], o["op"], o["measured_bytes"], o["overhead_bytes"]) for o in r["operators"]]
if one["plan"] != many["plan"] or moved(one) != moved(many):
    for a, b in zip(moved(one), moved(many)):
        if a != b: print("one host %s, two hosts %s" % (a, b))
    sys.exit(1)
print("same bytes on one and two hosts: %d payload + %d overhead" % (
    many["measured_bytes"], many["overhead_bytes"]))
PY
}

DP='z1j=bcast-right,z1=local,z2j=bcast-right,z2=local,g2=local,dW2j=local,dW2=preagg[1],g1j=bcast-right,g1a=local,g1=local,dW1j=local,dW1=preagg[1],W2n=local,W1n=local'
MP='z1j=local,z1=shuffle,z2j=bcast-left,z2=local,g2=local,dW2j=bcast-left,dW2=local,g1j=local,g1a=shuffle,g1=local,dW1j=bcast-right,dW1=local,W2n=local,W1n=local'
run_plan() {
    local label=$1 pins=$2 placement args=() rc=0
    shift 2
    for placement in "$@"; do args+=(--input-placement "$placement"); done
    local dir=$work/$label
    mkdir -p "$dir"
    "$tra" plan "$wf" --sites "$total" --plan "$pins" "${args[@]}" -o "$dir/plan.yaml" > "$dir/plan.txt" ||
        fail "$label: tra plan failed"
    echo "== $label on one host: mpirun -n $total tra run --check"
    timeout -k 10 300 mpirun -n "$total" --bind-to none "$tra" run "$dir/plan.yaml" --check \
        --out-dir "$dir/one" --report "$dir/one/run.json" > "$dir/one.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$dir/one.log" >&2; fail "$label on one host exited with $rc"; }
    echo "== $label across two hosts"
    local before tx0 rx0 tx1 rx1
    before=$(veth_bytes)
    read -r tx0 rx0 < <(veth_each)
    across_hosts "$tra" run "$dir/plan.yaml" --machine "$machine" --out-dir "$dir/two" \
        --report "$dir/two/run.json" > "$dir/two.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$dir/two.log" >&2; fail "$label across two hosts exited with $rc"; }
    local crossed=$(($(veth_bytes) - before))
    read -r tx1 rx1 < <(veth_each)
    echo "$label: $crossed bytes crossed the link between the hosts"
    [ "$crossed" -gt 1000000 ] || fail "$label: only $crossed bytes crossed the link: not a two-host run"
    same_bytes "$dir/one/run.json" "$dir/two/run.json" || fail "$label: the bytes differ between one and two hosts"
    local output location
    while read -r output location; do
        "$tra" diff "$location" "${location/\/two\//\/one\/}" --rtol 0 --atol 0 > "$dir/$output.diff" ||
            { cat "$dir/$output.diff" >&2; fail "$label: $output differs between one and two hosts"; }
        echo "$label: $output equal bit for bit on one and two hosts"
    done < <(sed -n 's/^wrote \([^ ]*\) to \(.*\)$/\1 \2/p' "$dir/two.log")
    grep -q "^wrote " "$dir/two.log" || fail "$label: the two-host run wrote no outputs"
    timed+=("$(basename "$wf" .yaml)" "$label" "$dir/two/run.json" "$((tx1 - tx0)) $((rx1 - rx0))")
}

# run_timed WORKFLOW: the time model's first plan for WORKFLOW under the calibrated profile and
# the real layout (consecutive sites, ranks[0] on the first host), run across the hosts
# $repeats times for its reports (plans and outputs are checked by tests/cli and the MPI tests;
# here only the seconds).
run_timed() {
    local workflow=$1 rc=0 i reports=
    local name tx0 rx0 tx1 rx1
    name=$(basename "$workflow" .yaml)
    local dir=$work/timed/$name
    mkdir -p "$dir"
    "$tra" plan "$workflow" --sites "$total" --machine "$machine" --ranks-per-host "${ranks[0]}" \
        -o "$dir/plan.yaml" > "$dir/plan.txt" || fail "$name: tra plan failed"
    echo "== $name across two hosts, $repeats runs: the time model's first plan, $(sed -n '4s/^1 *\([^ ]*\).*/\1/p' "$dir/plan.txt")"
    for ((i = 1; i <= repeats; i++)); do
        read -r tx0 rx0 < <(veth_each)
        rm -rf "$dir/out"
        across_hosts "$tra" run "$dir/plan.yaml" --machine "$machine" --out-dir "$dir/out" \
            --report "$dir/run-$i.json" > "$dir/run.log" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || { cat "$dir/run.log" >&2; fail "$name across two hosts exited with $rc"; }
        read -r tx1 rx1 < <(veth_each)
        reports+=${reports:+,}$dir/run-$i.json
    done
    timed+=("$name" best "$reports" "$((tx1 - tx0)) $((rx1 - rx0))")
}

# exchange_table PROFILE (WORKFLOW LABEL REPORTS "SENT RECEIVED")...: measured vs predicted
# seconds of every exchange, the measured the median over REPORTS (comma-separated runs of one
# plan); SENT and RECEIVED: bytes node1's end of the link moved during the (last) run.
exchange_table() {
    "$py" - "$@" << 'PY'
import json, sys, yaml
across = yaml.safe_load(open(sys.argv[1]))["links"]["across_hosts"]["bytes_per_second"]
args = sys.argv[2:]
exchanges = {"bcast", "shuffle", "grid"}  # the enforcers (lib/ia/operators, spec.enforcer)
ratio = lambda m, p: "%.2f" % (m / p) if p > 0 else "-"
row = "%-14s %-5s %4s %-8s %9s %9s %11s %11s %7s"
print(row % ("workflow", "plan", "id", "op", "MB moved", "MB pred", "measured s", "predicted s",
             "ratio"))
link = []
def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
for i in range(0, len(args), 4):
    workflow, label, paths, wire = args[i:i + 4]
    runs = [json.load(open(p)) for p in paths.split(",")]
    r = runs[0]
    seconds = {o["id"]: median([run["operators"][j]["seconds"] for run in runs])
               for j, o in enumerate(r["operators"])}
    ms = ps = 0.0
    for o in r["operators"]:
        if o["op"] not in exchanges:
            continue
        m, p = seconds[o["id"]], o.get("predicted_seconds", 0.0)
        ms, ps = ms + m, ps + p
        print(row % (workflow, label, o["id"], o["op"],
                     "%.2f" % ((o["measured_bytes"] + o["overhead_bytes"]) / 1e6),
                     "%.2f" % ((o["predicted_bytes"] + o["predicted_overhead_bytes"]) / 1e6),
                     "%.4f" % m, "%.4f" % p, ratio(m, p)))
    print(row % (workflow, label, "", "SUM", "", "", "%.4f" % ms, "%.4f" % ps, ratio(ms, ps))
          + "   exchanges")
    rest_m = sum(seconds[o["id"]] for o in r["operators"] if o["op"] not in exchanges | {"write"})
    rest_p = r["predicted_seconds"] - ps
    print(row % (workflow, label, "", "other", "", "", "%.4f" % rest_m, "%.4f" % rest_p,
                 ratio(rest_m, rest_p)) + "   other operators (not write)")
    sent, received = (int(b) for b in wire.split())
    link.append("%-14s %-5s %8.2f %8.2f %9.4f %9.4f" % (
        workflow, label, sent / 1e6, received / 1e6, max(sent, received) / across, ps))
# The model gives every site its own link to the other host; here all of a host's sites share one
# veth link, so the whole run's busier direction at the calibrated rate bounds its exchanges.
print("\nbytes on the veth link during each run (TCP/IP included), busier direction at the")
print("calibrated across-host bandwidth (%.3g B/s) vs the model's sum of exchanges:" % across)
print("%-14s %-5s %8s %8s %9s %9s" % ("workflow", "plan", "MB 1->2", "MB 2->1", "link s", "model s"))
print("\n".join(link))
PY
}

# tra calibrate across the hosts: both links measured (docs/machine-profile.md), the ping-pong
# between the hosts really crossing the veth link.
calibrate_across_hosts() {
    local dir=$work/calibrate before rc=0
    mkdir -p "$dir"
    echo "== tra calibrate --quick across two hosts"
    before=$(veth_bytes)
    across_hosts "$tra" calibrate --quick -o "$dir/m.yaml" > "$dir/calibrate.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$dir/calibrate.log" >&2; fail "calibrate across two hosts exited with $rc"; }
    local crossed=$(($(veth_bytes) - before))
    [ "$crossed" -gt 1000000 ] || fail "calibrate: only $crossed bytes crossed the link"
    grep -q "^measuring ping-pong across hosts: ranks 0 and ${ranks[0]}$" "$dir/calibrate.log" ||
        fail "calibrate: no ping-pong between the hosts' first ranks"
    local pair_on_a_host=$(((ranks[0] > 1 || ranks[1] > 1) ? 1 : 0))
    "$py" - "$dir/m.yaml" "$total" "$shaping" "$pair_on_a_host" << 'PY' || fail "calibrate: the profile's links (see above)"
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
shaped = sys.argv[3] != "none"
assert p["ranks"] == int(sys.argv[2]), p["ranks"]
pair_on_a_host = sys.argv[4] == "1"
if not pair_on_a_host:  # one rank per host: no pair to measure the same-host link on
    assert p["links"]["same_host"] == "unmeasured", p["links"]["same_host"]
links = {}
for name in ("same_host", "across_hosts") if pair_on_a_host else ("across_hosts",):
    link = p["links"][name]
    assert isinstance(link, dict) and link["latency_seconds"] > 0 and link["bytes_per_second"] > 0, (name, link)
    links[name] = link
    assert link.get("duplex_bytes_per_second", 0) > 0, (name, link)
    print("calibrate: %-12s latency %.3g s (%.1f us), bandwidth %.3g B/s (%.1f MB/s, %.2f Gbit/s), "
          "both ways at once %.1f MB/s each" % (
        name, link["latency_seconds"], link["latency_seconds"] * 1e6, link["bytes_per_second"],
        link["bytes_per_second"] / 1e6, link["bytes_per_second"] * 8 / 1e9,
        link["duplex_bytes_per_second"] / 1e6))
# Slower: a 1 MiB message takes longer by the fitted model (latency + bytes / bandwidth), the
# measure the time model uses. No threshold on the figures: they depend on the machine's load.
if not pair_on_a_host:
    print("calibrate: one rank per host: the same-host link is not measured, not compared")
    sys.exit(0)
one_mib = lambda l: l["latency_seconds"] + (1 << 20) / l["bytes_per_second"]
same, across = one_mib(links["same_host"]), one_mib(links["across_hosts"])
print("calibrate: a 1 MiB message: %.3g s on one host, %.3g s across hosts (%.1fx)%s" % (
    same, across, across / same, "" if shaped else "; link not shaped: not checked"))
assert not shaped or across > same, "the shaped link across hosts is not slower than one host's"
PY
}
calibrate_across_hosts
machine=$work/calibrate/m.yaml

timed=()
if [ "$total" -eq 5 ]; then
    run_plan dp "$DP" 'X=Part[0]' 'Y=Part[0]' 'W1=Part[0]' 'W2=Part[0]'
    run_plan mp "$MP" 'X=Part[1]' 'Y=Part[1]' 'W1=Part[0]' 'W2=Part[1]'
else
    echo "multihost: $total ranks: the paper's 5-site plans (dp, mp) left out"
fi
started=$SECONDS
run_timed "$wf"
run_timed "$src/plans/paper/scaled/mm-two-large.yaml"
run_timed "$src/plans/paper/scaled/nn-large.yaml"
echo "== exchanges across two hosts (link shaped: $shaping), measured (the time-model plans: median of $repeats runs) vs predicted seconds, profile $machine"
exchange_table "$machine" "${timed[@]}"
echo "multihost: the time-model plans took $((SECONDS - started)) s"
echo "multihost: ok ($([ "$total" -eq 5 ] && echo "2 plans, ")${ranks[0]} + ${ranks[1]} ranks on two hosts)"
