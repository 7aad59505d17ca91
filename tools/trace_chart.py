#!/usr/bin/python3
"""Draws the traces of `tra run --trace DIR` as a PNG timeline, for machines without a trace
viewer: one lane per rank, its phases as boxes coloured by phase over its operators as shaded
bars, drawn by gnuplot (Debian's gnuplot-nox) from a data file written next to the PNG.

Usage: trace_chart.py TRACE_DIR OUT.png [--title T]. Exit 2 on a malformed trace (naming the
file), 1 when gnuplot is missing or fails. Prints one line: ranks, operators, seconds and the
share of rank-time each phase took (docs/runtime.md, "Traces")."""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

# A fixed colour per phase, so two pictures compare at a glance (Tableau 10).
PHASE_COLOURS = {"read": "#4e79a7", "pack": "#f28e2b", "post": "#edc948", "wait": "#e15759",
                 "unpack": "#b07aa1", "compute": "#59a14f", "write": "#76b7b2"}
OPERATOR_SHADES = (0xe6e6e6, 0xcccccc)  # alternate, so neighbouring operators stay apart
WIDTH, LANE_PX, FRAME_PX = 1600, 110, 190  # PNG width; height = FRAME_PX + LANE_PX * ranks
PLOT_PX = WIDTH - 130  # the plot area, less the rank labels and margins
LABEL_CHAR_PX = 7  # a generous width of one character of the 8-point label font
RANK_FILE = re.compile(r"rank-(\d+)\.json")


class Drawn(NamedTuple):
    """What the data file holds, for the gnuplot script."""
    index: dict  # gnuplot's index of each block written: operators, labels, then each phase
    seconds: float  # from the first event to the last


class TraceError(Exception):
    """A trace file that is not what `tra run --trace` writes."""


def read_traces(folder):
    """{rank: [(tid, ts, dur, name, phase)]} of every rank-R.json in `folder`; raises TraceError
    naming the file for anything a chart cannot be drawn from."""
    files = sorted((int(m.group(1)), p) for p in Path(folder).glob("rank-*.json")
                   if (m := RANK_FILE.fullmatch(p.name)))
    if not files:
        raise TraceError("%s: no rank-R.json files (write them with tra run --trace)" % folder)
    traces = {rank: _read_rank(path, rank) for rank, path in files}
    if not any(traces.values()):
        raise TraceError("%s: the traces hold no spans (\"ph\": \"X\" events)" % folder)
    return traces


def _read_rank(path, rank):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TraceError("%s: not JSON: %s" % (path, e)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise TraceError("%s: no \"traceEvents\" list" % path)
    try:
        # Metadata events ("ph": "M", names of processes and tracks) carry no time.
        return [_span(e, rank) for e in doc["traceEvents"]
                if isinstance(e, dict) and e.get("ph") == "X"]
    except TraceError as e:
        raise TraceError("%s: %s" % (path, e)) from None


def _span(event, rank):
    for key in ("ts", "dur"):
        value = event.get(key)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value < 0):
            raise TraceError("event %s: no %s in microseconds" % (_describe(event), key))
    if event.get("pid") != rank:
        raise TraceError("event %s: pid %r in the file of rank %d"
                         % (_describe(event), event.get("pid"), rank))
    tid = event.get("tid")
    if tid not in (0, 1):
        raise TraceError("event %s: tid %r, expected 0 (operators) or 1 (phases)"
                         % (_describe(event), tid))
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    phase = args.get("phase")
    if tid == 1 and phase not in PHASE_COLOURS:
        raise TraceError("event %s: phase %r is none of %s"
                         % (_describe(event), phase, ", ".join(PHASE_COLOURS)))
    name = event.get("name") if isinstance(event.get("name"), str) else "?"
    return tid, event["ts"], event["dur"], name, phase


def _describe(event):
    return json.dumps(event.get("name", "(unnamed)"))


def write_data(traces, data):
    """Writes the gnuplot data file (seconds since the earliest event): a block of operator
    bars, one of their labels, then one per phase of PHASE_COLOURS, each only when it has a
    line; returns what it holds (Drawn)."""
    start = min(ts for spans in traces.values() for _, ts, _, _, _ in spans)
    end = max(ts + dur for spans in traces.values() for _, ts, dur, _, _ in spans)
    seconds = max((end - start) / 1e6, 1e-6)  # spans of no duration still get an x range
    blocks = {"operators": [], "labels": []}
    blocks.update((phase, []) for phase in PHASE_COLOURS)
    for rank, spans in traces.items():
        y = -rank  # rank 0 at the top
        operators = sorted(s for s in spans if s[0] == 0)
        for i, (_, ts, dur, name, _) in enumerate(operators):
            lo, hi = (ts - start) / 1e6, (ts + dur - start) / 1e6
            blocks["operators"].append("%.6f %d %.6f %.6f %.2f %.2f %d" % (
                (lo + hi) / 2, y, lo, hi, y - 0.42, y + 0.42, OPERATOR_SHADES[i % 2]))
            label = _fitting_label(name, (hi - lo) / seconds * PLOT_PX)
            if label:
                blocks["labels"].append('%.6f %.2f "%s"' % ((lo + hi) / 2, y + 0.28, label))
        for _, ts, dur, _, phase in (s for s in spans if s[0] == 1):
            lo, hi = (ts - start) / 1e6, (ts + dur - start) / 1e6
            blocks[phase].append("%.6f %d %.6f %.6f %.2f %.2f" % (
                (lo + hi) / 2, y, lo, hi, y - 0.34, y + 0.12))
    # gnuplot counts a block (index) only when it has a data line, and refuses to plot an
    # empty one, so empty blocks are left out and the script gets the index of each written.
    written = [(name, lines) for name, lines in blocks.items() if lines]
    with open(data, "w") as f:
        f.write("\n\n".join("# %s\n%s" % (name, "".join(line + "\n" for line in lines))
                            for name, lines in written))
    return Drawn({name: i for i, (name, _) in enumerate(written)}, seconds)


def _fitting_label(name, width_px):
    """The operator's label that fits `width_px`: `#ID OP`, else `#ID`, else none (crowded)."""
    clean = name.replace('"', "'")
    for label in (clean, clean.split(" ")[0]):
        if len(label) * LABEL_CHAR_PX + 6 <= width_px:
            return label
    return None


def gnuplot_script(data, png, ranks, title, drawn):
    """The script drawing `data` (write_data's, holding `drawn`) for `ranks` into `png`."""
    index = drawn.index
    plots = []
    if "operators" in index:
        plots.append("%s index %d using 1:2:3:4:5:6:7 with boxxyerror fs solid 1.0 border lc rgb "
                     "'#707070' lc rgb variable notitle" % (_quoted(data), index["operators"]))
    plots += ["%s index %d using 1:2:3:4:5:6 with boxxyerror fs solid 1.0 noborder lc rgb '%s' "
              "title '%s'" % (_quoted(data), index[p], colour, p)
              for p, colour in PHASE_COLOURS.items() if p in index]
    if "labels" in index:
        plots.append("%s index %d using 1:2:3 with labels font ',8' notitle"
                     % (_quoted(data), index["labels"]))
    lanes = max(ranks) + 1  # a rank without a file keeps its empty lane
    return "\n".join([
        "set terminal %s size %d,%d noenhanced font 'DejaVu Sans,10'"
        % ("pngcairo" if _has_cairo() else "png", WIDTH, FRAME_PX + LANE_PX * lanes),
        "set output %s" % _quoted(png), "set title %s" % _quoted(title),
        "set xlabel 'seconds since the first event'", "set xrange [0:%.6f]" % drawn.seconds,
        "set yrange [%.2f:0.6]" % (0.4 - lanes),
        "set ytics (%s)" % ", ".join("'rank %d' %d" % (r, -r) for r in sorted(ranks)),
        "set grid xtics", "set key below horizontal", "set style fill solid 1.0",
        "plot " + ", \\\n  ".join(plots), ""])


def _quoted(text):
    """`text` as a gnuplot single-quoted string, in which only a quote needs escaping."""
    return "'%s'" % str(text).replace("'", "''")


def _has_cairo():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in out.stdout + out.stderr


def draw(script_for, png):
    """Runs gnuplot on script_for(output) into a temporary name then renames it, so OUT.png is
    never half a PNG."""
    tmp = png.with_name("%s.tmp-%d" % (png.name, os.getpid()))
    try:
        subprocess.run(["gnuplot"], input=script_for(tmp), text=True, check=True)
        os.replace(tmp, png)
    finally:
        tmp.unlink(missing_ok=True)


def summary(traces, seconds):
    """One line: ranks, operators (distinct ids over all ranks), seconds, phase shares."""
    operators = {name.split(" ")[0] for spans in traces.values()
                 for tid, _, _, name, _ in spans if tid == 0}
    phase_us = dict.fromkeys(PHASE_COLOURS, 0.0)
    for spans in traces.values():
        for tid, _, dur, _, phase in spans:
            if tid == 1:
                phase_us[phase] += dur
    rank_us = seconds * 1e6 * len(traces)  # every lane's whole width, idle time included
    shares = ["%s %.1f%%" % (p, 100 * us / rank_us) for p, us in phase_us.items() if us]
    outside = 100 - 100 * sum(phase_us.values()) / rank_us
    return "%d ranks, %d operators, %.3f s; share of rank-time: %s, outside phases %.1f%%" % (
        len(traces), len(operators), seconds, ", ".join(shares), outside)


def main():
    ap = argparse.ArgumentParser(description="Draws the traces of tra run --trace DIR as a PNG "
                                 "timeline (docs/runtime.md, Traces).")
    ap.add_argument("trace_dir", help="the folder tra run --trace wrote rank-R.json files to")
    ap.add_argument("png", type=Path, help="the PNG to write (its data goes to OUT.dat)")
    ap.add_argument("--title", help="the chart's title (default: the trace folder)")
    a = ap.parse_args()
    try:
        traces = read_traces(a.trace_dir)
    except TraceError as e:
        print("trace_chart: %s" % e, file=sys.stderr)
        return 2
    data = a.png.with_suffix(".dat")
    drawn = write_data(traces, data)
    if not shutil.which("gnuplot"):
        print("trace_chart: gnuplot not found (apt-get install gnuplot-nox): no PNG, data in %s"
              % data, file=sys.stderr)
        return 1
    title = a.title if a.title is not None else "tra trace: %s" % a.trace_dir
    try:
        draw(lambda output: gnuplot_script(data, output, traces, title, drawn), a.png)
    except subprocess.CalledProcessError:
        print("trace_chart: gnuplot failed drawing %s" % a.png, file=sys.stderr)
        return 1
    print("%s: %s" % (a.png, summary(traces, drawn.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
