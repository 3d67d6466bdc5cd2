#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The calibration's uncertainty in exact intervals, against the truth (docs/statistics.md,
"The calibration's uncertainty"). A section of the benchmark (`bench/measure.py probeunc`,
rendered by bench/render.py) or a standalone script that prints its Markdown table:

    bench/probeunc.py [--runs N] [--reps R] [--calls C] [--slow 1.2,1.4] [--builds gcc,...]

measure(pg, tmp, ...) -> dict, render_lines(data) -> Markdown lines.

bench/probeunc.c: work() does ~PU_WORK_US (2) us a call, 20% or 40% more in the slower
builds, so that the probe cost (1.4-10 us a traced call) is a large share of its time; its
twin work_u(), never traced, is timed by the program itself, interleaved call by call: the
truth is the twins' mean per call, new over base, from the same processes perfgate measured.
Built three ways: gcc -O2 (work's first instruction single-stepped), gcc -O2 -pg -mfentry
-mnop-mcount (a 5-byte nop) and clang -O2 -fpatchable-function-entry=5 (a 5-byte nop). Each
slowdown through `perfgate ab` (one shared calibration) and through two recordings and
`perfgate compare` (a calibration each), N runs each (PU_RUNS, default 5), `-f work`.

A row passes when its estimate is within a quarter of the true change of it, or its interval
covers the true change; it fails outright ("wrong side") when its interval lies on the other
side of 0 from the true change.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from figures import median  # noqa: E402

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


def truth(path):
    """The twins' true change, new over base, from the lines "SLOW MEAN_NS" of @path (one a
    process): the medians of the processes of each side."""
    by = {}
    for line in open(path):
        slow, ns = line.split()
        by.setdefault(float(slow), []).append(float(ns))
    base = [v for s, v in by.items() if s == 1.0]
    new = [v for s, v in by.items() if s != 1.0]
    if not base or not new:
        return None
    return median(new[0]) / median(base[0]) - 1


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
    """One comparison by @method ("ab" or "record"); its row, or None when it failed."""
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
    f, t = entry(res), truth(tf)
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
            "probe_share": num(f.get("probe_share")), "truth": t, "site": site,
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


def measure(pg, tmp, runs=None, reps=None, calls=None, slows=(1.2, 1.4), builds=None):
    runs = runs or _env("PU_RUNS", 5)
    reps = reps or _env("PU_REPS", 10)
    calls = calls or _env("PU_CALLS", 2000)
    builds = builds or list(BUILDS)
    k = subprocess.run([build(tmp, "gcc", 1.0), "0"], capture_output=True, text=True,
                       check=True).stdout.strip()
    env = dict(os.environ, PU_K=k)
    rows = []
    for key in builds:
        base = build(tmp, key, 1.0)
        for slow in slows:
            new = build(tmp, key, slow)
            for method in ("ab", "record"):
                for i in range(runs):
                    row = one(pg, tmp, method, base, new, env, reps, calls, len(rows))
                    if row is None:
                        rows.append({"build": key, "slow": slow, "method": method,
                                     "failed": True})
                        continue
                    row.update(build=key, slow=slow, method=method)
                    row["judged"] = judge(row)
                    rows.append(row)
    return {"params": {"runs": runs, "reps": reps, "calls": calls, "loop": int(k),
                       "slows": list(slows), "builds": builds}, "rows": rows}


def _pct(x):
    return "n/a" if x is None else ("%+.1f%%" % (100 * x) if abs(x) != float("inf") else
                                    ("+inf" if x > 0 else "-inf"))


def render_lines(data):
    p = data["params"]
    s = ["`work()` of bench/probeunc.c made 20%% and 40%% slower, ~2 us a call (a loop of %d "
         "iterations), traced alone (`-f work`); the truth is its untraced twin timed in the "
         "same processes. %d runs a row of %d repetitions (pairs for `perfgate ab`) of %d "
         "calls. A row is ok when its estimate is within a quarter of the true change or its "
         "interval covers it, wrong side when its interval lies past 0." %
         (p["loop"], p["runs"], p["reps"], p["calls"]), "",
         "| build | site | method | true | estimate [interval] | calibration | verdict | |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in data["rows"]:
        if r.get("failed"):
            s.append("| %s | | %s | +%.0f%% planned | failed | | | |" %
                     (BUILDS[r["build"]][0], r["method"], 100 * (r["slow"] - 1)))
            continue
        u = r.get("calib_unc")
        cal = "" if u is None else "unbounded" if u == float("inf") else "+-%.1f%%" % (100 * u)
        if r["spread_ns"] is not None:
            cal += " (spread %.2f us)" % (r["spread_ns"] / 1e3)
        s.append("| %s | %s | %s | %s | %s [%s, %s] | %s | %s | %s |" % (
            BUILDS[r["build"]][0], r["site"], r["method"], _pct(r["truth"]), _pct(r["change"]),
            _pct(r["ci_lo"] if r["ci_lo"] is not None else float("-inf")),
            _pct(r["ci_hi"] if r["ci_hi"] is not None else float("inf")), cal.strip(), r["verdict"], r["judged"]))
    ok = [r for r in data["rows"] if r.get("judged") == "ok"]
    wrong = [r for r in data["rows"] if r.get("judged") == "wrong side"]
    s += ["", "%d of %d rows ok, %d on the wrong side of 0." %
          (len(ok), len(data["rows"]), len(wrong))]
    return s


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int)
    ap.add_argument("--reps", type=int)
    ap.add_argument("--calls", type=int)
    ap.add_argument("--slow", default="1.2,1.4")
    ap.add_argument("--builds", default=",".join(BUILDS))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="probeunc.") as tmp:
        data = measure(os.path.join(ROOT, "perfgate"), tmp, a.runs, a.reps, a.calls,
                       tuple(float(x) for x in a.slow.split(",")), a.builds.split(","))
    print("\n".join(render_lines(data)))


if __name__ == "__main__":
    main()
