#!/usr/bin/env python3
"""Summarise bench CSV lines (row,impl,run,value,unit) into one table.

For each row and unit, each implementation's median and min-max over its runs, and for
each peer the median over runs r of zchan[r] / peer[r] (ratios within one run, which
cancel much of the machine's drift; < 1 means zchan took less time or memory).
Prints the table, and optionally writes it as markdown (--md) and plots the main rows
with gnuplot (--png). Standard library only.
"""
import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROWS = {
    "1": "send+recv pair, one thread, cap 1",
    "2": "send+recv pair, one thread, unbounded",
    "3": "1024 try_send + 1024 try_recv, cap 1024",
    "4": "1024 try_send + 1024 try_recv, unbounded",
    "5": "4 sender / 4 receiver threads, cap 16",
    "6": "4 sender / 4 receiver threads, unbounded",
    "7": "4 sender tasks / 1 receiver task, cap 16",
    "8": "4 sender / 4 receiver tasks, cap 16",
    "9": "1 sender / 1 receiver task, cap 16",
    "10": "1 sender / 1 receiver thread, cap 16",
    "11": "1 sender / 1 receiver thread, cap 1024",
    "12": "4 sender threads / 1 receiver thread, cap 16",
    "14-cap1": "bytes: bounded, cap 1",
    "14-cap1024": "bytes: bounded, cap 1024",
    "14-cap1000000": "bytes: bounded, cap 1,000,000",
    "14-unbounded-full": "bytes: unbounded, 1,000,000 held",
    "14-unbounded-drained": "bytes: unbounded, after draining them",
    "16": "echo server, 100 connections x 100 B; 1e6 / (requests per s)",
    "15-threads": "ping-pong, two threads, 2 x bounded(1)",
    "15-tasks": "ping-pong, two tasks on a 2-worker pool",
    "17-threads": "ping-pong, two threads, 2 x rendezvous",
    "17-tasks": "ping-pong, two tasks, 2 x rendezvous, 2-worker pool",
    "b1-batch32": "1024 sends + 1024 recvs in batches of 32, cap 1024",
    "s1-select2": "2 sender threads, 2 x bounded(16), 1 zc_select receiver",
    "bc1-4rx": "broadcast, 1 sender / 4 receiver threads, cap 64",
}
IMPL_ORDER = ["zchan", "mutex-condvar", "gasyncqueue", "ck_ring", "rte_ring",
              "async-channel", "tokio", "flume", "crossbeam", "go", "floor"]
# One fixed colour per implementation, so that plots of different runs compare.
COLORS = {"zchan": "#000000", "mutex-condvar": "#e69f00", "gasyncqueue": "#56b4e9",
          "ck_ring": "#009e73", "rte_ring": "#f0e442", "async-channel": "#0072b2",
          "tokio": "#d55e00", "flume": "#cc79a7", "crossbeam": "#999999", "go": "#00add8",
          "floor": "#ffffff"}
MAIN_ROWS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
             "15-threads", "15-tasks", "16", "17-threads", "17-tasks"]


def describe(row):
    if row in ROWS:
        return ROWS[row]
    m = re.fullmatch(r"13([abc])-N(\d+)-(mt|st)", row)
    if m:
        how = {"a": "1 channel, cloned sender", "b": "N channels merged",
               "c": "N channels, one select"}[m[1]]
        where = "pool" if m[3] == "mt" else "1 thread"
        return f"{m[2]} sender tasks, {how}, {where}"
    return ""


def row_key(row):
    """1, 2, ..., 12, 13a-N2-mt, ..., 15-tasks, ..., 17-threads: numbers in numeric order."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", row)]


def impl_key(impl):
    return (IMPL_ORDER.index(impl) if impl in IMPL_ORDER else len(IMPL_ORDER), impl)


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e6 and v == int(v):
        return f"{int(v):,}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def fmt_ratio(r):
    """Two decimals; a ratio below 0.01 (row 14's drained queues) keeps one digit."""
    return f"{r:.2f}" if r >= 0.01 else f"{r:.1g}"


def load(path):
    data = {}  # (row, unit) -> impl -> {run: value}
    with open(path, newline="") as f:
        for rec in csv.reader(f):
            if len(rec) != 5 or rec[0] == "row":
                continue
            row, impl, run, value, unit = rec
            try:
                data.setdefault((row, unit), {}).setdefault(impl, {})[int(run)] = float(value)
            except ValueError:
                print(f"summarize: skipping bad line {rec}", file=sys.stderr)
    return data


def summarise(data):
    """Lines of (row, unit, impl, runs, median, lo, hi, ratio or None, timed_out).

    A C implementation that times out in a run of a time row (ms_total) is killed at the
    limit, and left out of that row's later runs (run.sh, to keep the suite's time): the
    run that timed out counts as the limit, a lower bound of its time, so that the median
    does not come from the finished runs alone; the runs skipped after it count as
    nothing. timed_out is how many runs count so: with any, a median that is the limit
    is a lower bound, and the ratio an upper bound."""
    out = []
    for (row, unit) in sorted(data, key=lambda k: (row_key(k[0]), k[1])):
        impls = data[(row, unit)]
        z = impls.get("zchan", {})
        timeouts = data.get((row, "timeout_ms"), {}) if unit == "ms_total" else {}
        for impl in sorted(set(impls) | set(timeouts), key=impl_key):
            runs = dict(impls.get(impl, {}))
            for r, limit in timeouts.get(impl, {}).items():
                runs.setdefault(r, limit)
            timed_out = len(timeouts.get(impl, {}))
            vals = list(runs.values())
            ratio = None
            if impl != "zchan":
                rs = [z[r] / runs[r] for r in runs if r in z and runs[r] > 0]
                ratio = statistics.median(rs) if rs else None
            out.append((row, unit, impl, len(vals), statistics.median(vals), min(vals),
                        max(vals), ratio, timed_out))
    return out


def scaling(data):
    """Row 13a's target: per implementation and executor, the median over runs r of
    13a-N512[r] / 13a-N2[r] (ns per message with 512 cloned senders against 2)."""
    out = []
    for where, label in (("mt", "pool"), ("st", "1 thread")):
        few = data.get((f"13a-N2-{where}", "ns_per_msg"), {})
        many = data.get((f"13a-N512-{where}", "ns_per_msg"), {})
        for impl in sorted(set(few) & set(many), key=impl_key):
            rs = [many[impl][r] / few[impl][r] for r in many[impl]
                  if r in few[impl] and few[impl][r] > 0]
            if rs:
                out.append((impl, label, statistics.median(rs)))
    return out


def scaling_text(scales):
    return ("Row 13a, N = 512 against N = 2 cloned senders (median over runs r of "
            "N512[r] / N2[r]): " +
            "; ".join(f"{impl} {label} {r:.2f}" for impl, label, r in scales) + ".")


def print_table(lines):
    head = ("row", "what", "unit", "impl", "runs", "median", "min-max", "zchan/impl")
    rows = []
    for row, unit, impl, n, med, lo, hi, ratio, censored in lines:
        bound = f" ({censored} timed out)" if censored else ""
        rows.append((row, describe(row), unit, impl, str(n), fmt(med) + bound,
                     f"{fmt(lo)}-{fmt(hi)}",
                     "" if ratio is None else ("<=" if censored else "") + fmt_ratio(ratio)))
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    right = {4, 5, 6, 7}
    for r in [head] + rows:
        print("  ".join(c.rjust(w) if i in right else c.ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def write_md(lines, path, note, scales):
    """A wide table: one line per row and unit, one column per implementation; a cell
    is the median, its min-max, and for a peer the median per-run ratio zchan/peer."""
    impls = sorted({l[2] for l in lines}, key=impl_key)
    cells = {}
    order = []
    for row, unit, impl, n, med, lo, hi, ratio, censored in lines:
        if (row, unit) not in cells:
            cells[(row, unit)] = {}
            order.append((row, unit))
        at_limit = censored and med >= hi
        c = f"{'≥' if at_limit else ''}{fmt(med)} <sub>{fmt(lo)}-{fmt(hi)}"
        if censored:
            c += f"; {n} run{'s' if n != 1 else ''}, {censored} timed out (counted as the limit)"
        c += "</sub>"
        if ratio is not None:
            c += f" ×{'≤' if censored else ''}{fmt_ratio(ratio)}"
        cells[(row, unit)][impl] = c
    with open(path, "w") as f:
        f.write(f"Medians of the runs ({note}); small: min-max; ×r: median over runs of "
                "zchan/peer within the same run (< 1: zchan is faster or smaller); a C "
                "peer's run that timed out counts as the limit (its later runs of the "
                "row are skipped): ≥ marks a median that is the limit, ≤ a ratio taken "
                "with such a run. Made by `bench/run.sh`.\n\n")
        f.write("| row | what | unit | " + " | ".join(impls) + " |\n")
        f.write("|---|---|---|" + "---|" * len(impls) + "\n")
        for key in order:
            row, unit = key
            f.write(f"| {row} | {describe(row)} | {unit} | " +
                    " | ".join(cells[key].get(i, "—") for i in impls) + " |\n")
        if scales:
            f.write("\n" + scaling_text(scales) + "\n")


def write_png(lines, path, note):
    """Clustered bars: each implementation's median relative to zchan's, main rows."""
    if not shutil.which("gnuplot"):
        print("summarize: gnuplot not found (apt-get install gnuplot-nox): no plot",
              file=sys.stderr)
        return
    med = {(l[0], l[2]): l[4] for l in lines if l[1] not in ("instr_per_pair", "timeout_ms")}
    rows = [r for r in MAIN_ROWS if (r, "zchan") in med and med[(r, "zchan")] > 0]
    impls = sorted({i for (r, i) in med if r in rows}, key=impl_key)
    if not rows or not impls:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as dat:
        dat.write("row " + " ".join(f'"{i}"' for i in impls) + "\n")
        for r in rows:
            z = med[(r, "zchan")]
            vals = [f"{med[(r, i)] / z:.4g}" if (r, i) in med and med[(r, i)] > 0 else "?"
                    for i in impls]
            dat.write(f'"{r}" ' + " ".join(vals) + "\n")
    def quoted(text):  # a gnuplot double-quoted string, backslash-escaped (a doubled
        # quote in a single-quoted one failed before ")": "--impls '')" in a title)
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    title = f"time relative to zchan (median of runs; below 1 = faster than zchan), {note}"
    script = f"""
set terminal pngcairo size 1400,600 noenhanced
set output {quoted(path)}
set title {quoted(title)}
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y
set grid ytics
set datafile missing '?'
set key outside right top
set xlabel 'row'
set xtics rotate by -25
colors = "{' '.join(COLORS.get(i, '#808080') for i in impls)}"
plot for [i=2:{len(impls) + 1}] {quoted(dat.name)} using i:xtic(1) title columnheader(i) \
    lc rgb word(colors, i - 1)
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    except subprocess.CalledProcessError as e:
        print(f"summarize: gnuplot failed: {e.stderr.strip()}", file=sys.stderr)
    finally:
        os.unlink(dat.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--md", help="write the markdown table here")
    ap.add_argument("--png", help="write the gnuplot plot of the main rows here")
    ap.add_argument("--note", default="", help="what run this was, for the titles")
    a = ap.parse_args()
    data = load(a.csv)
    lines = summarise(data)
    if not lines:
        sys.exit("summarize: no results in " + a.csv)
    print_table(lines)
    scales = scaling(data)
    if scales:
        print(scaling_text(scales))
    if a.md:
        write_md(lines, a.md, a.note, scales)
    if a.png:
        write_png(lines, a.png, a.note)


if __name__ == "__main__":
    main()
