#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""perfgate's benchmark suite, the rendering half: turns bench/results.json (written by
bench/measure.py) into BENCHMARKS.md. Runs nothing and needs nothing beyond the Python
standard library, so `make bench-render` works anywhere.

    bench/render.py [RESULTS [OUTPUT]]     (default bench/results.json, BENCHMARKS.md)

The rules of the text it writes:
- every figure in a section comes from that section's entry in results.json: its data (the
  run that the section's stamp names) or its parameters;
- figures of other runs are quotes, kept under the section's "quotes" in results.json, each
  with its date and the run it comes from, and rendered as such (quote_lines());
- each section shows the stamp of its own run: date, machine, perfgate commit. An entry
  converted from the results file of before per-section stamps has only the date and machine
  of that file as a whole ("whole_run": true) and says so.

Life of a section: RENDERERS lists (name, title, function) in the order of the sections'
numbers (other documents cite "section 3": append, do not reorder). The function takes a
Section and returns a list of lines (Markdown) for the body under the title and stamp; a
section without results renders as not measured. Adding a section: its measure function in
bench/measure.py's MEASURES and a render function here, under the same name.
"""
import json
import os
import sys

from figures import mean_abs, median, median_ci

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Section:
    """One section's entry of results.json: stamp, data, quotes (read only)."""

    def __init__(self, name, entry):
        self.name = name
        self.stamp = entry.get("stamp", {})
        self.data = entry.get("data")
        self.quotes = entry.get("quotes", [])

    def params(self):
        return self.data.get("params", {}) if isinstance(self.data, dict) else {}


def number(name):
    """The section number of @name (its place in RENDERERS), for references in the text."""
    return [n for n, _, _ in RENDERERS].index(name) + 1


def stamp_line(st):
    """The run a section comes from, as one line."""
    if st.get("whole_run"):
        s = "Run: %s, %s (stamp from the whole run)" % (st["date"], st["machine"])
        c = st.get("committed_in")
        if c:
            s += "; results committed in %s (%s)" % (c["commit"], c["time"])
        return s + "."
    start, end = st["start"], st["end"]
    span = "%s %s-%s UTC" % (start[:10], start[11:16],
                             end[11:16] if end[:10] == start[:10] else
                             end[:16].replace("T", " "))
    commit = st.get("perfgate_commit") or "unknown"
    if st.get("perfgate_dirty"):
        commit += " with uncommitted changes"
    s = "Run: %s; perfgate %s; %s, nproc %s, Linux %s" % (
        span, commit, st.get("cpu_model") or "CPU unknown", st.get("nproc"), st.get("kernel"))
    if st.get("loadavg5") is not None:
        s += "; load average %.1f" % st["loadavg5"]
    return s + "." + (" " + st["note"] if st.get("note") else "")


def quote_lines(sec, part=None):
    """The quotes of @sec for @part (None: the section's main text; a tuple: each of its
    parts, under one heading), as a list of lines."""
    parts = part if isinstance(part, tuple) else (part,)
    q = [x for x in sec.quotes if x.get("part") in parts]
    if not q:
        return []
    s = ["", "Figures of other runs, quoted (not measured in the run above):", ""]
    for x in q:
        s.append("- %s, %s: %s" % (x["date"], x["run"], x["text"]))
    return s


def pct_range(v, fmt="%+.0f%%"):
    lo, hi = min(v), max(v)
    return fmt % lo if fmt % lo == fmt % hi else (fmt % lo) + " to " + (fmt % hi)


# ---- cost ------------------------------------------------------------------------------------

def render_cost(sec):
    o = sec.data
    cols = ["perfgate", "funclatency", "bpftrace", "bare uprobe", "uftrace"]
    s = ["A loop calls a function that does almost nothing and times itself; the table shows "
         "the added time per call in ns (traced minus untraced), entry and return probes with "
         "a latency histogram unless noted. `bare uprobe` is an entry-only bpftrace probe with "
         "an empty action: the kernel's floor. uftrace patches the nop5 build in user space "
         "(`-P`), with no kernel entry.",
         "",
         "| probe site | untraced ns/call | " + " | ".join(cols) + " |",
         "| --- | --- | " + " | ".join("---" for _ in cols) + " |"]
    for r in o["rows"]:
        cells = []
        for c in cols:
            cells.append("%.0f" % (r[c] - r["none"]) if c in r else "n/a")
        s.append("| %s | %.1f | %s |" % (r["site"], r["none"], " | ".join(cells)))
    c = o["calibration"]
    if c:
        s += ["", "perfgate's own calibration in the same run (ns per call, inside the call's "
              "window / outside): " + ", ".join(
                  "%s %.0f/%.0f" % (k, v["in_ns"], v["out_ns"]) for k, v in c.items()
                  if k != "unknown") + "."]
    ratio = [100 * ((r["perfgate"] - r["none"]) / (r["funclatency"] - r["none"]) - 1)
             for r in o["rows"] if "funclatency" in r]
    spread = ""
    runs = [r for r in o["rows"] if r.get("perfgate_runs")]
    if runs:
        sp = max(100 * (max(r["perfgate_runs"]) - min(r["perfgate_runs"])) /
                 (r["perfgate"] - r["none"]) for r in runs)
        spread = (" (perfgate's %d recordings of a row spread by up to %.0f%% of its cost)" %
                  (len(runs[0]["perfgate_runs"]), sp))
    bare = [100 * (r["bare uprobe"] - r["none"]) / (r["perfgate"] - r["none"])
            for r in o["rows"] if "bare uprobe" in r and "single" not in r["site"]]
    text = []
    if ratio:
        text.append("Per call, perfgate costs funclatency's cost %s in this run%s, and it does "
                    "more: it filters by process tree, keeps a per-thread shadow stack for self "
                    "time, counts traced callees by probe site for compensation, times its own "
                    "BPF programs at every call (two more clock reads) and subtracts each "
                    "call's probe costs before it updates its histogram (a hash map), where "
                    "funclatency keeps one start timestamp per thread and an array histogram."
                    % (pct_range(ratio), spread))
    if bare:
        text.append("Most of either is the kernel's probe machinery: `bare uprobe`, entry "
                    "only, costs %s of perfgate's cost on the sites that are not "
                    "single-stepped." % pct_range(bare, "%.0f%%"))
    uf = [r for r in o["rows"] if "uftrace" in r]
    if uf:
        r = uf[0]
        text.append("uftrace costs %.0f ns a call on the %s build, 1/%.0f of perfgate's, "
                    "because it never enters the kernel, at the price of patching the process "
                    "itself." % (r["uftrace"] - r["none"], r["site"].split(" (")[0],
                                 (r["perfgate"] - r["none"]) / (r["uftrace"] - r["none"])))
    text.append("perfgate also subtracts its cost afterwards (section %d)." % number("accuracy"))
    return s + ["", " ".join(text)] + quote_lines(sec)


# ---- attach ----------------------------------------------------------------------------------

def render_attach(sec):
    rows, p = sec.data["rows"], sec.params()
    s = ["Wall time of a whole recording of one repetition of a trivial program with N "
         "probed functions (entry and return), minus the program's own time: load, attach, "
         "calibrate, run, read, detach%s. bpftrace (one perf event per probe) does entry "
         "probes only." % (" (median of %d recordings)" % p["repeats"] if "repeats" in p
                           else ""),
         "",
         "| functions | perfgate (s) | bpftrace (s) |", "| --- | --- | --- |"]
    for r in rows:
        if "bpftrace" in r:
            bt = "%.2f" % r["bpftrace"]
        elif "bpftrace_error" in r:
            bt = "failed: `%s`" % r["bpftrace_error"]
        elif "bpftrace_max" in p:
            bt = "not run (N > %d)" % p["bpftrace_max"]
        else:
            bt = "not run"
        s.append("| %d | %.2f | %s |" % (r["n"], r["perfgate"], bt))
    lo, hi = rows[0], rows[-1]
    text = ["perfgate creates one uprobe_multi link per binary for entries and one for returns "
            "(raw BPF_LINK_CREATE), so the count of probes hardly matters: %.2f s for %d "
            "functions, %.2f s for %d in this run; its fixed cost is loading the BPF object "
            "and calibrating." % (lo["perfgate"], lo["n"], hi["perfgate"], hi["n"])]
    bt = [r for r in rows if "bpftrace" in r]
    if len(bt) >= 2:
        text.append("bpftrace's time grew with N: %.0f s for %d functions, %.0f s for %d." % (
            bt[0]["bpftrace"], bt[0]["n"], bt[-1]["bpftrace"], bt[-1]["n"]))
    return s + ["", " ".join(text)] + quote_lines(sec)


# ---- accuracy --------------------------------------------------------------------------------

def fmt_ci(v):
    ci = median_ci(v)
    return "%+.1f%% .. %+.1f%%" % (100 * ci[0], 100 * ci[1]) if ci else "n/a"


def short(build):
    return build.split(" (")[0]


def p50_skew(rows, kids):
    """Parents' p50 errors, and the likely cause (not yet tested)."""
    par = ["%+.1f%% %s" % (100 * median(r["p50_errors"]), short(r["build"]))
           for r in rows if r["function"] == "parent10" and r.get("p50_errors")
           and "single" not in r["build"]]
    if not par:
        return ""
    return ("Parents' p50 come out low (%s this run). The likely cause: one traced call's "
            "cost is skewed (in the table below its mean exceeds its p50), and the BPF "
            "programs subtract for each traced callee a calibrated cost measured as a mean "
            "over calls, so a typical parent call with %s callees has more subtracted than "
            "its callees' probes cost then (docs/measurement.md#compensation: a check of "
            "calibration's per-call median supports it). " % (", ".join(par), kids))


def verdict(rows, target):
    """Which means meet the target by the 95% interval of their median error: inside
    [-target, +target] (met), outside (missed), across a bound (this run cannot tell)."""
    met, missed, open_ = [], [], []
    t = target / 100.0
    for r in rows:
        ci = median_ci(r.get("errors") or [])
        name = "%s %s" % (short(r["build"]), r["function"])
        if not ci:
            open_.append(name)
        elif -t <= ci[0] and ci[1] <= t:
            met.append(name)
        elif ci[0] > t or ci[1] < -t:
            missed.append(name)
        else:
            open_.append("%s (%s)" % (name, fmt_ci(r["errors"])))
    return ("The %g%% target by the 95%% interval of the median error: met (interval within "
            "+-%g%%) for %s; missed (interval beyond %g%%) for %s; this run cannot tell "
            "(interval across a bound) for %s." % ((target, target, ", ".join(met) or "none",
                                                    target) + tuple(
                ", ".join(x) or "none" for x in (missed, open_))))


def accuracy_intro(rows, p):
    d = p.get("design_us")
    if d:
        what = ("`leaf20` spins ~%g us; `parent10` spins ~%g us and calls `child2` (~%g us) "
                "%d times, all three traced (the durations the program scales its loops to "
                "at start)" % (d["leaf20"], d["parent10_own"], d["child2"], d["children"]))
    else:
        what = "`leaf20` spins; `parent10` spins and calls `child2`, all three traced"
    target = (" Target: within %g%%." % p["target_pct"]) if "target_pct" in p else ""
    return ("`bench/accuracy.c`: %s. Truth: identical untraced twins, timed by the program "
            "itself, interleaved call by call with the traced calls in the same process "
            "(minus the clock's own cost), %d calls of each per process. Error: per process, "
            "then the median over %d processes, with a 95%% interval for it "
            "(distribution-free: order statistics).%s" % (
                what, rows[0]["calls"], len(rows[0]["errors"]), target))


def render_accuracy(sec):
    rows, p = sec.data["rows"], sec.params()
    s = [accuracy_intro(rows, p),
         "",
         "| build | function | truth (us) | perfgate compensated (us) | error | 95% interval "
         "| mean abs error | untraced twin: error | mean abs error | unscaled: error "
         "| mean abs error | raw (us) | raw error |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]

    def med_and_abs(v):
        return ("%+.1f%%" % (100 * median(v)), "%.1f%%" % mean_abs(v)) if v else ("", "")

    for r in rows:
        e = r.get("errors") or [r["error"]]
        s.append("| %s | %s | %.2f | %.2f | %+.1f%% | %s | %.1f%% | %s | %s "
                 "| %s | %s | %.2f | %+.1f%% |" % ((
                     r["build"], r["function"], r["truth"] / 1e3, r["compensated"] / 1e3,
                     100 * r["error"], fmt_ci(e), mean_abs(e))
                     + med_and_abs(r.get("floor_errors")) + med_and_abs(r.get("unscaled_errors"))
                     + (r["raw"] / 1e3, 100 * r["raw_error"])))
    if all(r.get("p50_errors") for r in rows):
        s += ["",
              "Medians: the twins' median call against perfgate's p50, which comes from "
              "histograms the BPF programs compensate call by call (docs/measurement.md"
              "#compensation); error per process, then the median over the processes and "
              "its 95% interval.",
              "",
              "| build | function | truth p50 (us) | perfgate p50 (us) | error | 95% interval |",
              "| --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            e = r["p50_errors"]
            s.append("| %s | %s | %.2f | %.2f | %+.1f%% | %s |" % (
                r["build"], r["function"], r["truth_p50"] / 1e3, r["p50"] / 1e3,
                100 * median(e), fmt_ci(e)))
    s += ["", "\"unscaled\": the same run files compensated as perfgate did before commit "
          "b20df61 (2026-11-21), without the scale of the calibrated cost on nop5 sites by "
          "the probes' BPF run time (docs/measurement.md#compensation); it changes nop5 builds "
          "only (sites entered by a trap are not scaled). Mean abs error: the mean over "
          "processes of the error's magnitude, what one process's figure is worth. \"untraced "
          "twin\": a second untraced copy of the function, timed right after the traced call "
          "as the truth is right after the other traced function, against the truth: how far "
          "one process's mean of %d calls lands from another's on this machine with no probe "
          "involved, the floor under perfgate's mean abs error. The truth and compensated "
          "columns are medians over the processes of each figure apart; the error is the "
          "median of each process's own error, so it need not be their ratio."
          % rows[0]["calls"]]
    if "target_pct" in p:
        s += ["", verdict(rows, p["target_pct"])]
    s += ["", short_of_target(rows, p)]
    s += quote_lines(sec)
    if sec.data.get("tail"):
        s += render_tail(sec)
    return s


def short_of_target(rows, p):
    """Where the accuracy falls short, in this run's figures."""
    par = [r for r in rows if r["function"] == "parent10"]
    raw = ", ".join("%+.0f%% %s" % (100 * r["raw_error"], short(r["build"])) for r in par)
    probes = ", ".join("%.0f%% (%s)" % (100 * (r["raw"] - r["truth"]) / r["raw"],
                                        short(r["build"])) for r in par)
    gain = pct_range([r["raw_error"] for r in par], "%.1f")
    parents = ", ".join("%+.1f%% %s (mean abs %.1f%%, unscaled %.1f%%, untraced twin %s)" % (
        100 * r["error"], short(r["build"]), mean_abs(r["errors"]),
        mean_abs(r.get("unscaled_errors") or r["errors"]),
        "%.1f%%" % mean_abs(r["floor_errors"]) if r.get("floor_errors") else "not run")
        for r in par)
    fb = [100 * median(r["floor_errors"]) for r in rows if r.get("floor_errors")]
    target = "a %g%% target" % p["target_pct"] if "target_pct" in p else "a target"
    floor = ("its median error (%s this run) says how finely this machine can check %s at "
             "all" % (pct_range(fb, "%+.1f%%"), target) if fb else
             "this run has no untraced twin")
    leaves = ", ".join("%+.1f%% %s" % (100 * median(r["p50_errors"]), short(r["build"]))
                       for r in rows if r["function"] == "leaf20" and r.get("p50_errors"))
    n = len(rows[0]["errors"])
    kids = p.get("design_us", {}).get("children", "several")
    return ("Where it falls short. Means: the interval above is what %d processes can tell; "
            "the target is about the median, and one process's figure for a caller is off by "
            "much more (its mean abs error). A parent of %s traced callees carries their "
            "probe costs: its raw error in this run was %s; probes made %s of its raw time. "
            "So each percent of error in the calibrated part of a probe's cost is %s percent "
            "of the parent's time (this run: %s). Per process, even an untraced copy lands "
            "some way from the truth (its mean abs error above), and %s. Why the part of a "
            "probe's cost that BPF cannot time is scaled on nop5 sites only, how the "
            "machine's drift and stalls move it, and what was tried instead: "
            "docs/measurement.md#compensation. "
            "Medians (second table) are not moved by rare stalls: the BPF programs compensate "
            "each call before it enters the histogram (without the scale, which call by call "
            "would magnify the noise of one probe's run time); leaves' p50 errors in this "
            "run: %s. %s`perfgate compare` compensates both sides with one joint calibration "
            "and does not judge callers with little own time per traced callee "
            "(docs/statistics.md)." % (n, kids, raw, probes, gain, parents, floor,
                                        leaves or "not measured", p50_skew(rows, kids)))


def render_tail(sec):
    rows, p = sec.data["tail"], sec.params()
    d = p.get("tail_design_us")
    pairs = ("pairs of identical ~%g us calls, one untraced and one traced, each followed by "
             "~%g us of untraced work" % (d["call"], d["after"]) if d else
             "pairs of identical calls, one untraced and one traced, each followed by "
             "untraced work")
    procs = len(rows[0].get("p50_runs") or []) or p.get("tail_processes")
    npairs = p.get("tail_pairs")
    s = ["",
         "### The spread of a traced call's cost",
         "",
         "`bench/tail.c`: %s; the difference within a pair is what one traced call cost then "
         "(untraced: the noise of the method). Medians over %d processes of %d pairs; ns." % (
             pairs, procs, npairs),
         "",
         "| build | tracer | p50 | p99 | p99.9 | mean | mean without the top 1% |",
         "| --- | --- | --- | --- | --- | --- | --- |"]
    one = [r for r in rows if r.get("threads", 1) == 1]
    for r in one:
        s.append("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |" % (
            r["build"], r["tool"], r["p50"], r["p99"], r["p999"], r["mean"], r["mean_trim1"]))
    bt = {r["build"]: r["p99"] for r in one if r["tool"] == "bpftrace"}
    p99 = ", ".join("%s %.1f us against bpftrace's %s" % (
        short(r["build"]), r["p99"] / 1e3,
        "%.1f us" % (bt[r["build"]] / 1e3) if r["build"] in bt else "(not run)")
        for r in one if r["tool"] == "perfgate")
    quiet = [r["p999"] for r in one if r["tool"] == "untraced"]
    s += ["",
          "perfgate's histogram map holds one counter per key for all CPUs, added to "
          "atomically, not preallocated (bpf/perfgate.bpf.c); until commit 2cfa5f7 "
          "(2026-11-21) it was a per-CPU hash without preallocation, and the kernel's "
          "allocator made a tail of slow traced calls that calibration mostly missed "
          "(docs/measurement.md#the-spread-of-a-probes-cost). This run's p99: %s. At p99.9 "
          "the machine's own stalls show even untraced (%s ns this run), and the probes' add "
          "to them." % (p99, pct_range(quiet, "%.0f"))]
    s += quote_lines(sec, "tail")
    two = {(r["tool"], r["threads"]): r for r in rows
           if r["build"] == "nop5" and "p90" in r}
    if ("perfgate", 2) in two:
        s += ["",
              "Two threads at once (nop5 sites): both call the traced function all the time, "
              "so on a machine with few CPUs (the stamp above) calls of it often run on two "
              "CPUs at the same moment, and perfgate's histogram counters, shared between "
              "CPUs, move from one CPU's cache to the other's. bpftrace keeps its histogram "
              "per CPU. Medians over %d processes of 2 x %d pairs; ns. With both CPUs busy, "
              "the machine's other work preempts the pairs, and the untraced p90 shows how "
              "much of that noise remains." % (procs, npairs),
              "",
              "| tracer | p50, 1 thread | p50, 2 threads | p50 range over the processes, "
              "2 threads | p90, 1 thread | p90, 2 threads |",
              "| --- | --- | --- | --- | --- | --- |"]
        for tool in ("untraced", "perfgate", "bpftrace"):
            if (tool, 1) in two and (tool, 2) in two:
                a, b = two[(tool, 1)], two[(tool, 2)]
                pr = b.get("p50_runs") or [b["p50"]]
                s.append("| %s | %.0f | %.0f | %.0f .. %.0f | %.0f | %.0f |" % (
                    tool, a["p50"], b["p50"], min(pr), max(pr), a["p90"], b["p90"]))
        if all((t, n) in two for t in ("perfgate", "bpftrace") for n in (1, 2)):
            dp = two[("perfgate", 2)]["p50"] - two[("perfgate", 1)]["p50"]
            db = two[("bpftrace", 2)]["p50"] - two[("bpftrace", 1)]["p50"]
            pr = [x for t in ("perfgate", "bpftrace") for x in two[(t, 2)].get("p50_runs", [])]
            spread = (max(pr) - min(pr)) if pr else float("nan")
            s += ["",
                  "A second thread moved the median traced call by %+.0f ns with perfgate and "
                  "by %+.0f ns with bpftrace. %s (a process's p50 with two threads spread "
                  "over %.0f ns in this run)." % (
                      dp, db,
                      "No cost of perfgate's shared counters shows above the noise"
                      if dp - db <= 0 else
                      "perfgate's rose %.0f ns more: at most that is what its shared "
                      "counters cost when two CPUs trace the same function, within the "
                      "noise" % (dp - db), spread)]
    return s


# ---- stats -----------------------------------------------------------------------------------

def render_stats(sec):
    o, p = sec.data, sec.params()
    n = o["pairs"]
    fa = o["false_alarms"]
    g = p["gate_default"]
    if "base_wall_ms" in o:
        prog = ("a run took %.0f ms and `target` %.1f%% of it (medians over the baseline "
                "recordings of this run)" % (o["base_wall_ms"], o["target_share_pct"]))
    else:
        prog = ("built for a run of ~%g ms with `target` ~%g%% of it (its design; not "
                "measured in this run)" % (p["design"]["run_ms"],
                                           p["design"]["target_share_pct"]))
    s = ["`bench/stat.c` (clang patchable entries): %s; `PG_SLOW=P` makes `target` P%% "
         "slower. Each comparison is a fresh pair of recordings of %d repetitions. perfgate: "
         "the default gate (alpha %g with Benjamini-Hochberg over all functions, min effect "
         "%g%%) and `--min-effect %g`. Whole process: Welch's t-test (p < %g) on the same "
         "runs' per-repetition wall times, what a hyperfine-style timing gate would do." % (
             prog, p["repetitions"], g["alpha"], g["min_effect_pct"], p["min_effect_low_pct"],
             p["welch_alpha"]),
         "",
         "False alarms over %d A/A comparisons (same binary both sides): perfgate failed the "
         "build %d times (%d function verdicts of regression in all); the whole-process Welch "
         "test called %d significant." % (n, fa["perfgate"], fa["perfgate_fn"], fa["welch"]),
         "",
         "| slowdown of target | perfgate default (min effect %g%%) | perfgate --min-effect %g "
         "| whole-process Welch | median estimate of target's change |" % (
             g["min_effect_pct"], p["min_effect_low_pct"]),
         "| --- | --- | --- | --- | --- |"]
    levels = sorted(o["levels"].items(), key=lambda kv: float(kv[0]))
    for slow, d in levels:
        s.append("| %s%% | %d/%d | %d/%d | %d/%d | %+.1f%% |" % (
            slow, d["default"], n, d["min1"], n, d["welch"], n,
            100 * median([c for c in d["target_changes"] if c is not None])))
    below = [slow + "%" for slow, _ in levels if float(slow) < g["min_effect_pct"]]
    s += ["", "A slowdown below the minimum effect is not a regression by definition: at the "
          "default %g%% %s expected to stay near 0; lower `--min-effect` to gate on "
          "smaller changes of a function whose own noise allows it." % (
              g["min_effect_pct"], "the %s row%s %s" % (
                  " and ".join(below), "s" if len(below) > 1 else "",
                  "are" if len(below) > 1 else "is") if below else "a smaller slowdown is")]
    return s + quote_lines(sec)


# ---- compare ---------------------------------------------------------------------------------

ENCODINGS = {1: "version 1 (an object per function per repetition)",
             3: "version 3 (a string of rows per repetition)"}


def render_compare(sec):
    o, p = sec.data, sec.params()
    if "encodings" not in o:	# before run file version 3: one encoding
        return ["Two synthetic run files of {:,} functions x {} repetitions ({:.0f} MB each), "
                "one function {}% slower: `perfgate compare` took {:.2f} s and at most {:.0f} "
                "MB of memory (median of {}, /usr/bin/time), and flagged {}.".format(
                    p["functions"], p["repetitions"], o["file_mb"], p["slowdown_pct"],
                    o["seconds"], o["max_rss_mb"], p["repeats"], ", ".join(o["found"]) or
                    "nothing")] + quote_lines(sec)
    heavy = (" ({:,} calls a repetition in both files, about a fifth of it, where the others "
             "make 100)".format(p["slow_calls"]) if p.get("slow_calls") else "")
    s = ["Two synthetic run files of {:,} functions x {} repetitions, one function{} {}% "
         "slower, in each encoding of run files: `perfgate compare BASE NEW --json OUT`, the "
         "median wall time of {} runs (in brackets the fastest: other work on the machine only "
         "adds time), the median CPU time (user and system) and the largest peak memory "
         "(maximum resident set, /usr/bin/time).".format(p["functions"], p["repetitions"], heavy,
                                                         p["slowdown_pct"], p["repeats"]), "",
         "| run files | size each | wall time | CPU time | peak memory | flagged |",
         "| --- | --- | --- | --- | --- | --- |"]
    for e in o["encodings"]:
        s.append("| %s | %.0f MB | %.2f s (%.2f s) | %.2f s | %.0f MB | %s |" % (
            ENCODINGS.get(e["version"], "version %d" % e["version"]), e["file_mb"],
            e["seconds"], e.get("seconds_min", e["seconds"]), e["cpu_seconds"],
            e["max_rss_mb"], ", ".join(e["found"]) or "nothing"))
    before = [q for q in sec.quotes if q.get("part") == "before"]
    for q in before:
        s.append("| version 1, perfgate before version 3 (quoted: %s, %s) | %.0f MB | %.2f s "
                 "(median) | - | %.0f MB | %s |" % (q["date"], q["commit"], q["file_mb"], q["seconds"],
                                            q["max_rss_mb"], q["found"]))
    new = [e for e in o["encodings"] if e["version"] == 3]
    if before and new:
        q, e = before[0], new[0]
        s += ["", "Version 3 in this run against version 1 with the perfgate of %s: %.1f times "
              "faster, %.1f times less memory. The time was json-c's object tree of the file "
              "(about 35 times its size, built and freed) and the statistics of 10,000 "
              "functions; version 3 holds a repetition's statistics in one JSON string that "
              "json-c parses as one allocation, and compare computes the exact null "
              "distribution once per sample size and selects the Hodges-Lehmann order "
              "statistics instead of sorting." % (q["date"], q["seconds"] / e["seconds"],
                                                  q["max_rss_mb"] / e["max_rss_mb"])]
    return s + quote_lines(sec, ("before", None))


# ---- sampling --------------------------------------------------------------------------------

def render_sampling(sec):
    o, p = sec.data, sec.params()
    how = (" (%d rounds of %d repetitions each)" % (p["rounds"], p["repetitions"])
           if "rounds" in p else "")
    s = ["Wall time of the benchmark under `perfgate record -f main` by sampling frequency, "
         "against `--no-sample`, configurations interleaved%s: the fastest repetition (other "
         "work on the machine only adds time) and, in brackets, the change of the median. "
         "us/sample is the extra wall time per sample taken (the cpu-clock interrupt, the "
         "BPF program copying registers, both stacks and the top of the user stack, and "
         "perfgate draining the ring buffer)." % how, "",
         "| benchmark | -F | wall (min) | overhead (median) | samples/s | us/sample |",
         "| --- | --- | --- | --- | --- | --- |"]
    for r in o["overhead"]:
        s.append("| %s | %s | %.4f s | %+.2f%% (%+.1f%%) | %.0f | %s |" % (
            r["load"], r["hz"] or "--no-sample", r["wall_s"], r["overhead_pct"],
            r.get("median_overhead_pct", float("nan")), r["samples_per_s"],
            "-" if r["hz"] == 0 else "%.1f" % r["us_per_sample"]))
    how = (" (median of %d recordings of {:,} calls)".format(p["latency_calls"]) %
           p["latency_repeats"] if "latency_calls" in p else "")
    s += ["", "Mean latency of a traced function that does almost nothing (bench/tight.c, nop5 "
          "probe site) as perfgate records it, with and without sampling%s:" % how, "",
          "| -F | ns per call |", "| --- | --- |"]
    for r in o["latency"]:
        s.append("| %s | %.0f |" % (r["hz"] or "--no-sample", r["ns_per_call"]))
    how = (" (from a short and a long recording at -F %d, %d repetitions each)" % (
        p["unwind_hz"], p["unwind_repetitions"]) if "unwind_hz" in p else
        " (from a short and a long recording)")
    s += ["", "Cost of unwinding (libdw, DWARF) and symbolizing in perfgate, after each "
          "repetition (not while the benchmark runs): per additional sample, and once per "
          "recording for loading symbol tables and DWARF%s:" % how, "",
          "| stacks | samples (long) | us per sample | one-time | mean us per sample |",
          "| --- | --- | --- | --- | --- |"]
    for r in o["unwind"]:
        s.append("| %s | %d | %.1f | %.0f ms | %.1f |" % (
            r["load"], r["samples"], r["us_per_sample"], r["fixed_ms"], r["mean_us"]))
    if "auto" in o:
        s += ["", "The rate perfgate chooses without -F (the default flow: from the fastest run "
              "of --budget's sampled first pass, ~300 samples a repetition, at most 2% of the run "
              "at 30 us a sample, within 49-4999 Hz; docs/sampling.md) for a CPU loop "
              "(`sample_chain N`) of three lengths: the rate and the samples it said, the "
              "samples a repetition then took (median), and that rate's overhead under "
              "`record -f main` against `--no-sample`, interleaved, as above "
              "(rounds x repetitions each):", "",
              "| benchmark | chosen -F | said | samples/repetition | wall (min) | "
              "overhead (median) | rounds x reps |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in o["auto"]:
            s.append("| %s (`sample_chain %s`) | %d Hz | ~%s | %.0f | %.3f s | %+.2f%% (%+.1f%%) "
                     "| %d x %d |" % (r["load"], r["iterations"], r["hz"], r["said_samples"],
                                      r["samples_per_rep"], r["wall_s"], r["overhead_pct"],
                                      r["median_overhead_pct"], r["rounds"], r["repetitions"]))
    return s + quote_lines(sec)


# ---- real programs ---------------------------------------------------------------------------

def render_realworld(sec):
    sys.path.insert(0, os.path.join(ROOT, "bench", "realworld"))
    import realworld
    return realworld.render_lines(sec.data) + quote_lines(sec)


# ---- ab -------------------------------------------------------------------------------------

AB_METHODS = [("seq_default", "two recordings in sequence, default gate (min effect %g%%)"),
              ("seq_min_paired", "two recordings in sequence, `--min-effect %g`"),
              ("ab", "`perfgate ab`, its defaults (paired, sequential)")]


def ab_targets(levels, n):
    """What perfgate ab must meet at its defaults, as (text, met) pairs."""
    rows = {float(k): v.get("ab") for k, v in levels.items()}
    if not all(rows.values()):
        return []
    t = [("0 builds failed in the A/A trials", sum(o["exit"] == 1 for o in rows[0.0]) == 0),
         ("10%% caught in at least %d/%d" % (n - n // 20, n),
          sum(o["caught"] for o in rows.get(10.0, [])) >= n - n // 20),
         ("5%% caught in at least %d/%d" % (n - 3 * n // 20, n),
          sum(o["caught"] for o in rows.get(5.0, [])) >= n - 3 * n // 20),
         ("at most 20 pairs", max(o["pairs"] for v in rows.values() for o in v) <= 20)]
    return t


def render_ab(sec):
    o, p = sec.data, sec.params()
    n = o["trials"]
    g = p["gate_default"]
    names = {"seq_default": AB_METHODS[0][1] % g["min_effect_pct"],
             "seq_min_paired": AB_METHODS[1][1] % p["paired_min_effect_pct"],
             "ab": AB_METHODS[2][1]}
    s = ["`bench/stat.c` as in section %d (`target` ~%g%% of a ~%g ms run; the argument or "
         "`PG_SLOW` makes it slower), %d trials per condition, each method on fresh "
         "recordings: two recordings of %d repetitions one after the other (`--all-functions`)"
         ", compared with the default gate and with the paired method's minimum effect "
         "(`--min-effect %g`, the same files); and `perfgate ab -o DIR 'stat 0' 'stat P'` at "
         "its defaults. Builds failed: exit 1. Caught: `target`'s verdict is regression (in "
         "brackets, the trials where it was notable instead: beyond the minimum effect but "
         "moving the run by less than the impact rule's bar: 0.1%% for the sequential "
         "recordings, 0.05%% for `perfgate ab`'s paired comparisons (docs/statistics.md); a 5%% "
         "slowdown of a function holding 2%% of the run moves it by about 0.1%%). "
         "Others flagged: trials in which another function was a regression or an "
         "improvement. Pairs: the most any function's verdict used. Time to result: the "
         "recordings and the comparison, median seconds of wall-clock time. Whole process: "
         "Welch's t-test (p < %g) on the same files' per-repetition wall times." % (
             number("stats"), p["design"]["target_share_pct"], p["design"]["run_ms"], n,
             p["repetitions"], p["paired_min_effect_pct"], p["welch_alpha"]),
         ""]
    if not o.get("ab_available"):
        s += ["The perfgate measured had no `ab` command: its rows are missing.", ""]
    s += ["| slowdown | method | builds failed | target caught | others flagged | pairs | "
          "time to result | whole-process Welch |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for slow, rows in sorted(o["levels"].items(), key=lambda kv: float(kv[0])):
        for key, _ in AB_METHODS:
            v = rows.get(key)
            if v is None:
                continue
            pairs = [x["pairs"] for x in v if x["pairs"]]
            s.append("| %s%% | %s | %d/%d | %s | %d/%d | %s | %.1f s | %d/%d |" % (
                slow, names[key], sum(x["exit"] == 1 for x in v), len(v),
                "-" if float(slow) == 0 else "%d/%d%s" % (
                    sum(x["caught"] for x in v), len(v),
                    " (%d notable)" % sum(x.get("notable", False) for x in v)
                    if any(x.get("notable") for x in v) else ""),
                sum(x["others"] > 0 for x in v), len(v),
                "%g (max %d)" % (median(pairs), max(pairs)) if pairs else "-",
                median([x["secs"] for x in v]), sum(x["welch"] for x in v), len(v)))
    t = ab_targets(o["levels"], n)
    if t:
        s += ["", "Issue 18's targets for `perfgate ab` at its defaults: " + "; ".join(
            "%s: %s" % (text, "met" if ok else "**not met**") for text, ok in t) + "."]
    return s + quote_lines(sec)


def leaf_rows(v):
    """One condition's sessions of the leaf part as table cells."""
    pairs = [x["pairs"] for x in v if x["pairs"]]
    return ("%d/%d" % (sum(x["exit"] == 1 for x in v), len(v)),
            "%d/%d" % (sum(x["others"] > 0 for x in v), len(v)),
            "%g (max %d)" % (median(pairs), max(pairs)) if pairs else "-",
            "%.0f s" % median([x["secs"] for x in v]))


def render_ableaf(sec):
    """Section 8's second part: a 50 ns leaf judged from its samples (bench/leaf.c)."""
    o, p = sec.data, sec.params()
    lv, ex = o["levels"], o["exact"]
    sampled = [x for v in lv.values() for x in v]
    s = ["`bench/leaf.c` (clang %s): `leaf()`, a ~%g ns leaf, called %s times a run between two "
         "stages, holds ~%g%% of the CPU time of a single-threaded run; an argument P makes it P%% "
         "slower. `perfgate ab -o DIR 'leaf 0' 'leaf P'` at its defaults: the budget traces "
         "`main` alone (the leaf is far too hot to probe within 5%%), the rate comes from the "
         "budget's first pass (docs/sampling.md, \"Choosing -F\"), and `leaf` is judged from its "
         "samples. Beside it, the same sessions with the leaf traced, `perfgate ab -f leaf` "
         "(exact verdicts; no budget, sampling at the default 199 Hz). Builds failed: exit 1. "
         "Leaf caught: its verdict is regression (sampled, or exact with `-f leaf`). Others "
         "flagged: sessions in which another function was a regression or an improvement "
         "(the program's CPU and wall time included). Pairs: the most any verdict used "
         "(`--max-reps` 20). Time: one session, median." % (
             " ".join(p["flags"]), p["design"]["leaf_ns"], "{:,}".format(p["design"]["calls"]),
             p["design"]["share_pct"]), ""]
    if sampled:
        s += ["Without `-F` the sessions sampled at %s Hz, %s samples a repetition (median "
              "%.0f), on repetitions of %s s of CPU time and %s s of wall time (medians)." % (
                  pct_range([x["sample_hz"] for x in sampled], "%d"),
                  pct_range([x["samples_rep"] for x in sampled], "%d"),
                  median([x["samples_rep"] for x in sampled]),
                  pct_range([x["cpu_ms"] / 1e3 for x in sampled], "%.2f"),
                  pct_range([x["wall_ms"] / 1e3 for x in sampled], "%.2f")), ""]
    s += ["| leaf slower by | verdicts on the leaf | builds failed | leaf caught | "
          "its change (median, range) | others flagged | pairs | time |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows = [(k, "sampled (`perfgate ab` defaults)", v) for k, v in lv.items()] + \
           [(k, "exact (`perfgate ab -f leaf`)", v) for k, v in ex.items()]
    for slow, name, v in sorted(rows, key=lambda r: (float(r[0]), r[1])):
        if not v:
            continue
        failed, others, pairs, secs = leaf_rows(v)
        ch = [100 * x["change"] for x in v if x["change"] is not None]
        s.append("| %s%% | %s | %s | %s | %s | %s | %s | %s |" % (
            slow, name, failed,
            "-" if float(slow) == 0 else "%d/%d" % (sum(x["caught"] for x in v), len(v)),
            "%+.1f%% (%s)" % (median(ch), pct_range(ch, "%+.1f%%")) if ch else "-",
            others, pairs, secs))
    n = p["trials"]
    aa, ten = lv.get("0", []), lv.get("10", [])
    if aa and ten:
        five = lv.get("5", [])
        s += ["", "Issue 28's targets at `perfgate ab`'s defaults: A/A, 0 builds failed: %s "
              "(%d/%d); 10%% slower caught in at least %d/%d: %s (%d/%d)%s.%s" % (
                  "met" if not sum(x["exit"] == 1 for x in aa) else "**not met**",
                  sum(x["exit"] == 1 for x in aa), len(aa), n - n // 20, n,
                  "met" if sum(x["caught"] for x in ten) >= len(ten) - len(ten) // 20
                  else "**not met**", sum(x["caught"] for x in ten), len(ten),
                  "; 5%% slower: %d/%d caught" % (sum(x["caught"] for x in five), len(five))
                  if five else "",
                  " Fewer sessions than %d per condition: the run had a time limit of %.0f "
                  "s (`LEAF_SECS`)." % (n, p["secs"]) if p.get("secs") and len(ten) < n
                  else "")]
    if o.get("observed"):	# what the sessions' own compare.json said, noted by hand
        s += [""] + ["- " + x for x in o["observed"]]
    ex10 = [x for v in ex.values() for x in v]
    if ex10 and sampled:
        traced, untraced = (median([x["cpu_ms"] / 1e3 for x in ex10]),
                            median([x["cpu_ms"] / 1e3 for x in sampled]))
        probe_ns = (traced - untraced) * 1e9 / p["design"]["calls"]
        s += ["", "Traced, the leaf's repetitions took %s s of CPU time (median %.2f s) against "
              "%.2f s untraced: ~%.0f ns of probe a call, which is why the budget leaves the "
              "leaf to the samples." % (pct_range([x["cpu_ms"] / 1e3 for x in ex10], "%.2f"),
                                        traced, untraced, probe_ns)]
        if all(x["verdict"] == "inconclusive" for x in ex10):
            s[-1] += (" Every exact verdict on it was inconclusive: compensation must subtract "
                      "probes that are most of a 50 ns call's measured time, which leaves its "
                      "estimate too wide to decide, and its raw time, probes included, would "
                      "move by ~%.1f%% when the leaf is 10%% slower (%g ns of %.0f ns), under "
                      "the 2%% minimum effect." % (
                          100 * 0.1 * p["design"]["leaf_ns"] /
                          (probe_ns + p["design"]["leaf_ns"]),
                          0.1 * p["design"]["leaf_ns"], probe_ns + p["design"]["leaf_ns"]))
    c = o.get("sample_cost")
    if c and c["rounds"]:
        d = [r["hz"]["cpu_ms"] - r["none"]["cpu_ms"] for r in c["rounds"]]
        n = [r["hz"]["samples"] for r in c["rounds"]]
        base = median([r["none"]["cpu_ms"] for r in c["rounds"]])
        s += ["", "The sampler's cost on this target%s: %d interleaved rounds of `perfgate "
              "record -f main -r 3`, `--no-sample` against `-F %d` (%s samples a repetition): the "
              "process tree's CPU time a repetition grew by %s ms (median %+.1f ms, %+.1f%% of "
              "%.2f s), %s us a sample." % (
                  " (measured %s-%s UTC)" % (c["start"][11:16], c["end"][11:16])
                  if c.get("end") else "", len(d), c["hz"], pct_range(n, "%d"),
                  pct_range(d, "%+.1f"), median(d),
                  100 * median(d) / base, base / 1e3,
                  pct_range([1e3 * a / b for a, b in zip(d, n) if b], "%.0f"))]
    return s + quote_lines(sec)


# sections rendered as a part of another's (their own stamp, under the other's title)
PARTS = {"ab": [("ableaf", "A 50 ns leaf judged from its samples", render_ableaf)]}


def by_module(name):
    """The renderer of a section written by its own module, bench/NAME.py: its
    render_lines() and the section's quotes."""
    def render(sec):
        import importlib
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        return importlib.import_module(name).render_lines(sec.data) + quote_lines(sec)
    return render


RENDERERS = [("cost", "What one traced call costs", render_cost),
             ("attach", "Attaching and detaching", render_attach),
             ("accuracy", "Accuracy of compensated latencies", render_accuracy),
             ("stats", "Statistical quality", render_stats),
             ("compare", "compare at scale", render_compare),
             ("sampling", "Sampled profiles (`perfgate record -F`)", render_sampling),
             ("realworld", "Real programs: the default flow on zstd, leveldb, lz4, jq and spdlog",
              render_realworld),
             ("ab", "Interleaved A/B recording (`perfgate ab`) beside sequential recordings",
              render_ab),
             ("offcpu", "Off-CPU time: cost per context switch, and which metric gates",
              by_module("offcpu")),
             ("history", "perfgate history: the store and the change-point scan at scale",
              by_module("history")),
             ("honesty", "The demo and stored baselines on a shared machine: false alarms "
              "and power", by_module("honesty")),
             ("inline", "Inlined code: which function a verdict names", by_module("inline")),
             ("probeunc", "The calibration's uncertainty: exact intervals against the truth",
              by_module("probeunc"))]


def render(res):
    md = ["# perfgate benchmarks", "",
          "Written by `make bench`: bench/measure.py runs the sections and stores their "
          "figures in bench/results.json, and bench/render.py writes this file from it "
          "(`make bench-render`). Each section comes from its own run, named under its title "
          "(date, machine, perfgate commit); its text gives figures of that run only, except "
          "where it quotes another run and says which and when. Sections measured on "
          "different days or machines do not compare figure by figure; within a section, "
          "ratios say more than absolute times, which depend on the machine. A section "
          "measured before sections had their own stamps shows the date and machine of the "
          "results file as a whole, \"(stamp from the whole run)\", and the commit that "
          "stored its figures.", ""]
    sections = res["sections"]
    for name in sections:
        if name not in [n for n, _, _ in RENDERERS] + \
                [n for v in PARTS.values() for n, _, _ in v]:
            print("bench: no renderer for section %s in the results" % name, file=sys.stderr)
    for i, (name, title, fn) in enumerate(RENDERERS, 1):
        md += ["## %d. %s" % (i, title), ""]
        sec = Section(name, sections.get(name, {}))
        if sec.data is None:
            md += ["Not measured yet (`make bench SECTIONS=%s`)." % name, ""]
            continue
        md += [stamp_line(sec.stamp), ""] + fn(sec) + [""]
        for pname, ptitle, pfn in PARTS.get(name, []):
            part = Section(pname, sections.get(pname, {}))
            if part.data is not None:
                md += ["### %s" % ptitle, "", stamp_line(part.stamp), ""] + pfn(part) + [""]
    return "\n".join(md)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bench", "results.json")
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "BENCHMARKS.md")
    res = json.load(open(src))
    if res.get("format") != "perfgate-bench-results" or res.get("version") != 2:
        sys.exit("bench: %s is not a perfgate-bench-results version 2 file" % src)
    text = render(res)
    tmp = dst + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, dst)


if __name__ == "__main__":
    main()
