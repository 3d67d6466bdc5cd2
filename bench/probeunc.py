#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The calibration's uncertainty in exact intervals, against the truth (docs/statistics.md,
"The calibration's uncertainty"). A section of the benchmark (`bench/measure.py probeunc`,
rendered by bench/render.py) or a standalone script that prints its Markdown table:

    bench/probeunc.py [--runs N] [--reps R] [--calls C] [--pairs P] [--slow 1.2,1.4]
                      [--builds gcc,...]

measure(pg, tmp, ...) -> dict, render_lines(data) -> Markdown lines.

bench/probeunc.c: work() does ~PU_WORK_US (2) us a call, 20% or 40% more in the slower
builds (SLOW multiplies its loop's length: the nominal change), so that the probe cost
(1.4-10 us a traced call) is a large share of its time; its twin work_u(), never traced, is
timed by the program itself, call by call. Built three ways: gcc -O2 (work's first instruction
single-stepped), gcc -O2 -pg -mfentry -mnop-mcount (a 5-byte nop) and clang -O2
-fpatchable-function-entry=5 (a 5-byte nop). Each slowdown through `perfgate ab` (one shared
calibration) and through two recordings and `perfgate compare` (a calibration each), N runs
each (PU_RUNS, default 5), `-f work`.

The truth of a build pair (one a slowdown and build, shared by its rows): the untraced program
run alone, no perfgate, base and new alternating in P pairs of processes (PU_TRUTH_PAIRS,
default 15) of C calls each, each process timing its twin's calls (the mean but the slowest
5%); the truth is the fastest process of the new side over the fastest of the base side,
minus 1. On 2 CPUs shared with other work a whole process of this loop can run at half speed
(its fastest call too: no statistic within the process leaves it out), and on a busy machine
most pairs can have one side so disturbed, which can move the median over the pairs by more
than half the change; the fastest process of each side is the loop undisturbed. The median over
the pairs, with its interval, and the ratio of the second fastest are kept beside it as
checks. The same twin timed inside the processes perfgate traces (new over base, the medians
of each side's processes) is kept too, "twin": those processes carry the probes (a trap a
call when single-stepped) and perfgate itself, and their twin can move by tens of percent.
The truth comes out a little under the nominal change: each timed call carries one clock
read, which SLOW does not multiply.

A row passes when its estimate is within a quarter of the true change of it, or its interval
covers the true change; it fails outright ("wrong side") when its interval lies on the other
side of 0 from the true change.

Data: params (runs, reps, calls, loop, slows, builds, truth_pairs); truths, one a build pair
({build, slow, nominal, truth, second, median, ci (the median's 95% interval; null under 6
pairs), pairs: each pair's change, base_ns and new_ns: each process's mean call}); rows
({build, slow, method, change, ci_lo, ci_hi, verdict, probe_share, truth, nominal, twin, site,
spread_ns, calib_unc, judged} or {build, slow, method, failed}). Results
from before the separate-process truth have no truths and no twin: their rows' truth is the
in-process twin, and render_lines says so.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figures import median, median_ci  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
SRC = os.path.join(BENCH, "probeunc.c")

BUILDS = {
    "gcc": ("gcc -O2", "gcc", ["-O2"]),
    "gcc-fentry": ("gcc -O2 -pg -mfentry", "gcc",
                   ["-O2", "-pg", "-mfentry", "-mnop-mcount", "-fno-pie", "-no-pie"]),
    "clang-patchable": ("clang -O2 -fpatchable-function-entry=5", "clang",
                        ["-O2", "-fpatchable-function-entry=5"]),
}


def _env(name, default):
    return int(os.environ.get(name, default))


def build(tmp, key, slow):
    """bench/probeunc.c built @key's way with SLOW=@slow; its path."""
    _, cc, flags = BUILDS[key]
    out = os.path.join(tmp, "pu_%s_%s" % (key, str(slow).replace(".", "_")))
    subprocess.run([cc] + flags + ["-DSLOW=%s" % slow, "-o", out, SRC], check=True)
    return out


def twin(path):
    """The in-process twins' change, new over base, from the lines "SLOW MEAN_NS" of @path (one
    a process): the medians of the processes of each side."""
    by = {}
    for line in open(path):
        slow, ns = line.split()
        by.setdefault(float(slow) == 1.0, []).append(float(ns))
    if not by.get(True) or not by.get(False):
        return None
    return median(by[False]) / median(by[True]) - 1


def truth(tmp, base, new, slow, env, calls, pairs):
    """The true change of @new over @base from the untraced programs run alone, alternating,
    @pairs pairs of processes of @calls calls, each timing its twin: the fastest process of
    each side, new / base - 1 ("truth"); the same of the second fastest ("second"); the median
    over the pairs of new / base - 1 ("median", with its 95% interval "ci" and each pair's
    change "pairs")."""
    tf = os.path.join(tmp, "truth_alone.txt")
    ns = ([], [])
    for _ in range(pairs):
        for side, exe in enumerate((base, new)):
            if os.path.exists(tf):
                os.remove(tf)
            subprocess.run([exe, str(calls)], env=dict(env, PU_TRUTH=tf), check=True,
                           stdout=subprocess.DEVNULL)
            ns[side].append(float(open(tf).read().split()[1]))
    changes = [n / b - 1 for b, n in zip(*ns)]
    fast = [sorted(v) for v in ns]
    return {"nominal": slow - 1, "truth": fast[1][0] / fast[0][0] - 1,
            "second": fast[1][1] / fast[0][1] - 1 if pairs > 1 else None,
            "median": median(changes), "ci": median_ci(changes), "pairs": changes,
            "base_ns": ns[0], "new_ns": ns[1]}


def entry(path):
    """work's entry of a compare result (docs/compare-format.md); None when absent."""
    res = json.load(open(path))
    for f in res.get("functions", []):
        if f.get("name") == "work":
            return f
    return None


def site_and_spread(run_path):
    """work's site kind and its calibration's spread there (ns; None: not recorded)."""
    run = json.load(open(run_path))
    site = next((f["site"] for f in run["functions"] if f["name"] == "work"), None)
    cal = run.get("calibration", {}).get(site or "", {})
    return site, cal.get("spread_ns")


def one(pg, tmp, method, base, new, env, reps, calls, i):
    """One comparison by @method ("ab" or "record"); its row (its twin, the in-process truth,
    but not yet its truth), or None when it failed."""
    d = os.path.join(tmp, "%s_%d" % (method, i))
    os.makedirs(d, exist_ok=True)
    tf = os.path.join(d, "truth.txt")
    env = dict(env, PU_TRUTH=tf)
    if os.path.exists(tf):
        os.remove(tf)
    if method == "ab":
        cmd = [pg, "ab", "-q", "-o", d, "-f", "work", "-r", str(reps), "--max-reps", str(reps),
               "%s %d" % (base, calls), "%s %d" % (new, calls)]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        res = os.path.join(d, "compare.json")
        runs = [os.path.join(d, "base.json"), os.path.join(d, "new.json")]
    else:
        runs = [os.path.join(d, "a.json"), os.path.join(d, "b.json")]
        for exe, out in ((base, runs[0]), (new, runs[1])):
            r = subprocess.run([pg, "record", "-q", "-f", "work", "-r", str(reps), "-o", out,
                                "--", exe, str(calls)], env=env, capture_output=True,
                               text=True)
            if r.returncode:
                break
        res = os.path.join(d, "compare.json")
        if not r.returncode:
            r = subprocess.run([pg, "compare", runs[0], runs[1], "--json", res], env=env,
                               capture_output=True, text=True)
    if r.returncode == 2 or not os.path.exists(res):
        print("probeunc: %s failed: %s" % (method, r.stderr.strip()[-300:]), file=sys.stderr)
        return None
    f, t = entry(res), twin(tf)
    if f is None or t is None:
        return None
    site, spread = site_and_spread(runs[0])

    def num(x):  # infinite ends may come as strings ("-inf", "Infinity")
        try:
            return None if x is None else float(x)
        except ValueError:
            return None
    return {"change": num(f.get("change")), "ci_lo": num(f.get("ci_lo")),
            "ci_hi": num(f.get("ci_hi")), "verdict": f.get("verdict"),
            "probe_share": num(f.get("probe_share")), "twin": t, "site": site,
            "spread_ns": spread,
            # the calibration's widening: null when it left an end unbounded
            "calib_unc": f["calib_unc"] if f.get("calib_unc") is not None else float("inf")}


def judge(row):
    """"ok", "off" (neither near nor covered) or "wrong side" (an interval past 0)."""
    t, c = row["truth"], row["change"]
    lo = row["ci_lo"] if row["ci_lo"] is not None else float("-inf")
    hi = row["ci_hi"] if row["ci_hi"] is not None else float("inf")
    if (t > 0 and hi < 0) or (t < 0 and lo > 0):
        return "wrong side"
    if (c is not None and abs(c - t) <= abs(t) / 4) or lo <= t <= hi:
        return "ok"
    return "off"


def measure(pg, tmp, runs=None, reps=None, calls=None, slows=(1.2, 1.4), builds=None,
            pairs=None):
    runs = runs or _env("PU_RUNS", 5)
    reps = reps or _env("PU_REPS", 10)
    calls = calls or _env("PU_CALLS", 2000)
    pairs = pairs or _env("PU_TRUTH_PAIRS", 15)
    builds = builds or list(BUILDS)
    k = subprocess.run([build(tmp, "gcc", 1.0), "0"], capture_output=True, text=True,
                       check=True).stdout.strip()
    env = dict(os.environ, PU_K=k)
    rows, truths = [], []
    for key in builds:
        base = build(tmp, key, 1.0)
        for slow in slows:
            new = build(tmp, key, slow)
            tr = dict(truth(tmp, base, new, slow, env, calls, pairs), build=key, slow=slow)
            truths.append(tr)
            for method in ("ab", "record"):
                for i in range(runs):
                    row = one(pg, tmp, method, base, new, env, reps, calls, len(rows))
                    if row is None:
                        rows.append({"build": key, "slow": slow, "method": method,
                                     "failed": True})
                        continue
                    row.update(build=key, slow=slow, method=method, truth=tr["truth"],
                               nominal=tr["nominal"])
                    row["judged"] = judge(row)
                    rows.append(row)
    return {"params": {"runs": runs, "reps": reps, "calls": calls, "loop": int(k),
                       "slows": list(slows), "builds": builds, "truth_pairs": pairs},
            "truths": truths, "rows": rows}


def _pct(x):
    return "n/a" if x is None else ("%+.1f%%" % (100 * x) if abs(x) != float("inf") else
                                    ("+inf" if x > 0 else "-inf"))


def _intro(data):
    """The section's first paragraph: what is measured, and which truth grades it."""
    p = data["params"]
    s = ("`work()` of bench/probeunc.c made 20%% and 40%% slower, ~2 us a call (a loop of %d "
         "iterations, times 1.2 or 1.4: the nominal change), traced alone (`-f work`). %d runs a "
         "row of %d repetitions (pairs for `perfgate ab`) of %d calls. " %
         (p["loop"], p["runs"], p["reps"], p["calls"]))
    if "truths" not in data:
        return s + ("The truth is its untraced twin timed in the same processes. A row is ok "
                    "when its estimate is within a quarter of the true change or its interval "
                    "covers it, wrong side when its interval lies past 0.")
    return s + ("The truth (\"true\") is the untraced program run alone, no perfgate: %d pairs "
                "of processes of %d calls, base and new alternating, each timing its untraced "
                "twin `work_u()` (the mean but the slowest 5%%); the fastest process of the new "
                "side over the fastest of the base side, once a build and slowdown. A whole "
                "process of this loop can run at half speed when the machine is busy, so "
                "fastest against fastest is the code's own change; the median over the pairs "
                "is shown below as a check. The twin timed inside the processes perfgate traces "
                "(\"in-process\", not graded) shares them with the probes (a trap a call when "
                "single-stepped) and with perfgate on 2 CPUs. A row is ok when its estimate is "
                "within a quarter of the true change or its interval covers it, wrong side when "
                "its interval lies past 0." % (p["truth_pairs"], p["calls"]))


def _truth_lines(data):
    """Each build pair's truth, its checks, and how far the in-process twin landed from it."""
    s = []
    for t in data["truths"]:
        rows = [r for r in data["rows"] if r["build"] == t["build"] and r["slow"] == t["slow"]
                and not r.get("failed")]
        ci = "" if t["ci"] is None else " [%s, %s]" % (_pct(t["ci"][0]), _pct(t["ci"][1]))
        twin = ""
        if rows:
            d = sorted(100 * (r["twin"] - t["truth"]) for r in rows)
            twin = "; in-process twin %+.1f to %+.1f points off it" % (d[0], d[-1])
        s.append("- %s, nominal %s: true %s (second fastest %s); median of %d pairs %s%s%s" % (
            BUILDS[t["build"]][0], _pct(t["nominal"]), _pct(t["truth"]), _pct(t["second"]),
            len(t["pairs"]), _pct(t["median"]), ci, twin))
    return s


def render_lines(data):
    new = "truths" in data
    s = [_intro(data), ""]
    if new:
        s += ["| build | site | method | nominal | true | in-process | estimate [interval] | "
              "calibration | verdict | |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    else:
        s += ["| build | site | method | true | estimate [interval] | calibration | verdict | |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in data["rows"]:
        if r.get("failed"):
            s.append("| %s | | %s | +%.0f%% planned | failed | | | |%s" %
                     (BUILDS[r["build"]][0], r["method"], 100 * (r["slow"] - 1),
                      " | |" if new else ""))
            continue
        u = r.get("calib_unc")
        cal = "" if u is None else "unbounded" if u == float("inf") else "+-%.1f%%" % (100 * u)
        if r["spread_ns"] is not None:
            cal += " (spread %.2f us)" % (r["spread_ns"] / 1e3)
        true = _pct(r["truth"])
        if new:
            true = "%s | %s | %s" % (_pct(r["nominal"]), true, _pct(r["twin"]))
        s.append("| %s | %s | %s | %s | %s [%s, %s] | %s | %s | %s |" % (
            BUILDS[r["build"]][0], r["site"], r["method"], true, _pct(r["change"]),
            _pct(r["ci_lo"] if r["ci_lo"] is not None else float("-inf")),
            _pct(r["ci_hi"] if r["ci_hi"] is not None else float("inf")), cal.strip(),
            r["verdict"], r["judged"]))
    ok = [r for r in data["rows"] if r.get("judged") == "ok"]
    wrong = [r for r in data["rows"] if r.get("judged") == "wrong side"]
    s += ["", "%d of %d rows ok, %d on the wrong side of 0." %
          (len(ok), len(data["rows"]), len(wrong))]
    if new:
        s += ["", "The truths; the change of the second fastest processes and the median over "
              "the pairs, with its 95% interval (distribution-free), as checks; the in-process "
              "twin's distance from the truth (percentage points):", ""]
        s += _truth_lines(data)
    return s


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int)
    ap.add_argument("--reps", type=int)
    ap.add_argument("--calls", type=int)
    ap.add_argument("--pairs", type=int)
    ap.add_argument("--slow", default="1.2,1.4")
    ap.add_argument("--builds", default=",".join(BUILDS))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="probeunc.") as tmp:
        data = measure(os.path.join(ROOT, "perfgate"), tmp, a.runs, a.reps, a.calls,
                       tuple(float(x) for x in a.slow.split(",")), a.builds.split(","),
                       a.pairs)
    print("\n".join(render_lines(data)))


if __name__ == "__main__":
    main()
