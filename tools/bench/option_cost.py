"""What one `tra run` option costs (verify_cost.py, trace_cost.py): every paper workflow
(plans/paper/scaled) and example run with and without the option, interleaved pair by pair, on
each rank count; each script says which option and which part of the report it reads."""
import argparse
import pathlib
import statistics
import sys
import tempfile

from runner import Runner

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def workflows(named):
    if named:
        return [pathlib.Path(w).resolve() for w in named.split(",")]
    return sorted((SOURCE / "plans/paper/scaled").glob("*.yaml")) + sorted(
        (SOURCE / "plans/examples").glob("*.yaml"))


def measure(runner, ranks, workflow, repeats, work, extra, part):
    """Medians over `repeats` interleaved pairs: (run s, run s with `extra(work)`, part s), where
    part(report) is the seconds of the option's own work in the run with it."""
    plain, with_option, own = [], [], []
    for _ in range(repeats):
        plain.append(runner.tra_run(ranks, workflow, work)["seconds"])
        report = runner.tra_run(ranks, workflow, work, extra=extra(work))
        with_option.append(report["seconds"])
        own.append(part(report))
    return statistics.median(plain), statistics.median(with_option), statistics.median(own)


def main(description, columns, extra, part):
    """The command line both scripts share. columns: the headers of the run with the option and
    of its own seconds; extra(work): its arguments; part(report): its own seconds."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--build", default=str(SOURCE / "build"), help="build directory")
    ap.add_argument("--ranks", default="1,2", help="rank counts, comma-separated")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved pairs per median")
    ap.add_argument("--workflows", help="these workflows, comma-separated (default: the paper "
                    "workflows and the examples)")
    args = ap.parse_args()
    build = pathlib.Path(args.build).resolve()
    ranks_list = [int(r) for r in args.ranks.split(",")]
    runner = Runner(build, cores=max(ranks_list))
    print("%-16s %5s %10s %10s %10s %7s %7s" % (("workflow", "ranks", "run s") + columns +
                                               ("own%", "diff%")))
    with tempfile.TemporaryDirectory(prefix="tra-option-") as tmp:
        for workflow in workflows(args.workflows):
            for ranks in ranks_list:
                try:
                    plain, with_option, own = measure(runner, ranks, workflow, args.repeats,
                                                      pathlib.Path(tmp), extra, part)
                except RuntimeError as e:  # a workflow that cannot run here (e.g. too big)
                    print("%-16s %5d  failed: %s" % (workflow.stem, ranks,
                                                     str(e).splitlines()[0]), file=sys.stderr)
                    continue
                print("%-16s %5d %10.3f %10.3f %10.4f %6.1f%% %6.1f%%" % (
                    workflow.stem, ranks, plain, with_option, own, 100 * own / plain,
                    100 * (with_option - plain) / plain), flush=True)
