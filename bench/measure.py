#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""perfgate's benchmark suite, the measuring half: runs sections and stores their figures in
bench/results.json. bench/render.py turns that file into BENCHMARKS.md without running
anything; `make bench` runs both, `make bench-render` the second alone.

    bench/measure.py [SECTION...]      (root; all sections when none is named)

Sections (the order of MEASURES; render.py numbers them in the same order):
  cost      per-call cost of a traced call, by probe site, beside funclatency, bpftrace,
            uftrace and the kernel's bare uprobe
  attach    attach + detach time for 100, 2,000 and 20,000 functions, beside bpftrace
  accuracy  accuracy of overhead-compensated latencies against uninstrumented truth, and the
            spread of one traced call's cost (bench/tail.c)
  stats     false alarms over A/A comparisons and detection of 2/5/10% slowdowns of a
            function holding ~2% of the run time, beside a whole-process Welch test
  compare   compare speed and memory for two run files of 10,000 functions x 30 repetitions
  sampling  sampled profiles: overhead by -F, effect on traced latencies, cost of one sample,
            the rate chosen without -F for benchmarks of 50 ms, 1 s and 10 s
  realworld the default flow on zstd, leveldb, lz4, jq, spdlog and the demo (bench/realworld)
  ab        interleaved A/B recording (perfgate ab, paired statistics) beside two sequential
            recordings: A/A and 2/5/10% slowdowns of a function holding ~2% of the run time
  ableaf    (section 8, second part) perfgate ab at its defaults on a 50 ns leaf holding 10%
            of the run, judged from its samples: A/A, 10% and 5% slower; beside it traced
  offcpu    off-CPU time: cost per context switch, a lock-contention regression and zstd A/A
            pairs judged by self and by on-CPU self time (bench/offcpu.py)
  history   perfgate history: ingestion, size and change-point scan of 10,000 functions x 30
            repetitions a session in SQLite and PostgreSQL, the change points' power
            (bench/history.py)
  honesty   the demo (make demo, 20 runs) and history check against stored sessions on this
            machine: A/A false alarms of the demo and zstd, power for an 8% slowdown of a
            function holding 5% of the run (bench/honesty.py)
  probeunc  the calibration's uncertainty in exact intervals: a ~2 us function 20% and 40%
            slower under single-stepped and nop5 probes, by perfgate ab and by two
            recordings, against the truth from the untraced builds run alone
            (bench/probeunc.py)

results.json holds one entry per section:

    "sections": {"cost": {"stamp": {...}, "data": {...}, "quotes": [...]}, ...}

- stamp: the machine and time of that section's own run (stamp()): date, start and end
  (UTC), kernel, CPU model, nproc, the perfgate commit and whether the tree had uncommitted
  changes. Sections run at different times keep different stamps.
- data: what the section's measure function returned, its parameters under "params".
- quotes: figures of other runs that the rendered text cites, {"date", "run", "text"} and
  optionally "part" (a subsection of the rendered text, e.g. "tail"); written by hand, never
  by this script, and kept when the section is measured again.

Measuring some sections replaces their entries only; the other sections' entries stay as they
were. The file is written after each section, so a failure keeps what was measured before it.

Adding a section: a function measure_NAME() returning a JSON-able dict (with "params"),
appended to MEASURES here (a long one may live in its own module, imported here), and a
render function in bench/render.py's RENDERERS under the same name.

Needs /usr/bin/python3 with python3-scipy (Debian) for the Welch test of the stats section;
the Makefile's bench target installs it and the peer tools (funclatency, bpftrace, uftrace).
Environment: ACC_PROCS, ACC_CALLS (accuracy: processes per build, calls per process),
HIST_FUNCS, HIST_SESSIONS, HIST_BIG (history: smaller trial runs),
HON_DEMO_RUNS, HON_SESSIONS, HON_HISTORY, HON_PARTS (honesty: fewer runs, or some parts),
PU_RUNS, PU_REPS, PU_CALLS, PU_TRUTH_PAIRS (probeunc: runs a row, repetitions, calls a
process, pairs of untraced processes for each truth),
AB_TRIALS (ab, ableaf: trials per condition, default 20), LEAF_SECS (ableaf: a time limit),
BENCH_RESULTS (another results file, e.g. for a trial run).
"""
import datetime
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from figures import median

# run files through the tests' reader, which decodes version 3's compact rows into the
# "functions" lists of versions 1 and 2 (tests/e2e/pgtest.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests", "e2e"))
from pgtest import load as load_run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG = os.path.join(ROOT, "perfgate")
BENCH = os.path.join(ROOT, "bench")
RESULTS = os.environ.get("BENCH_RESULTS") or os.path.join(BENCH, "results.json")
TMP = None	# main() makes it


def sh(cmd, env=None, check=True, **kw):
    e = dict(os.environ)
    if env:
        e.update(env)
    # in TMP: -pg builds leave gmon.out where they run
    r = subprocess.run(cmd, env=e, capture_output=True, text=True, cwd=TMP, **kw)
    if check and r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (cmd, r.returncode, r.stderr[-2000:]))
    return r


def build(src, out, flags, cc="gcc"):
    path = os.path.join(TMP, out)
    sh([cc] + flags + ["-o", path, os.path.join(BENCH, src)])
    return path


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---- 1. per-call cost ---------------------------------------------------------------------

def tight_builds():
    return {
        "nop5 (gcc -pg -mfentry -mnop-mcount)":
            build("tight.c", "t_nop5", ["-O2", "-pg", "-mfentry", "-mnop-mcount", "-fno-pie",
                                        "-no-pie"]),
        # nopl 0x8(%rax,%rax,1): a 5-byte nop, optimized by Linux 6.18 as gcc's is
        "nop5 (clang -fpatchable-function-entry=5)":
            build("tight.c", "t_clang", ["-O2", "-fpatchable-function-entry=5"], cc="clang"),
        # gcc drops the frame of a leaf that needs none, whatever the flags: -O0 keeps it
        "emulated push (gcc -O0: push %rbp)":
            build("tight.c", "t_push", ["-O0"]),
        "single-stepped (gcc -O2: add)":
            build("tight.c", "t_sstep", ["-O2"]),
    }


def per_call(cmd, n):
    return float(sh(cmd + [str(n)]).stdout.strip().splitlines()[-1])


def bpftrace_latency(prog, func):
    """bpftrace's peer of a perfgate probe pair: entry timestamp, return into a histogram."""
    return ("uprobe:%s:%s { @s[tid] = nsecs; } uretprobe:%s:%s /@s[tid]/ "
            "{ @h = hist(nsecs - @s[tid]); delete(@s[tid]); }" % (prog, func, prog, func))


def with_background_tracer(tracer_cmd, prog, n, ready_s=2.0):
    """Start a tracer that attaches to `prog`, run prog, stop the tracer."""
    t = subprocess.Popen(tracer_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, cwd=TMP)
    time.sleep(ready_s)
    try:
        return per_call([prog], n)
    finally:
        os.killpg(t.pid, signal.SIGINT)
        try:
            t.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(t.pid, signal.SIGKILL)


COST_CALLS, COST_CALLS_SSTEP, COST_REPEATS = 200000, 20000, 3


def measure_cost():
    rows = []
    for site, prog in tight_builds().items():
        n = COST_CALLS_SSTEP if "single" in site else COST_CALLS
        none_runs = [per_call([prog], n) for _ in range(COST_REPEATS)]
        r = {"site": site, "calls": n, "none": median(none_runs), "none_runs": none_runs}
        rec = os.path.join(TMP, "c.json")
        # perfgate: the program measures its own loop; entry + return + histogram + shadow stack
        pg_runs = [float(sh([PG, "-q", "record", "-o", rec, "-r", "1", "-f", "target", "--",
                             prog, str(n)]).stdout.split()[-1]) for _ in range(COST_REPEATS)]
        r["perfgate"], r["perfgate_runs"] = median(pg_runs), pg_runs
        r["funclatency"] = with_background_tracer(
            ["funclatency", "%s:target" % prog], prog, n)
        r["bpftrace"] = with_background_tracer(
            ["bpftrace", "-e", bpftrace_latency(prog, "target")], prog, n, 4.0)
        r["bare uprobe"] = with_background_tracer(
            ["bpftrace", "-e", "uprobe:%s:target { }" % prog], prog, n, 4.0)
        if "nop5" in site:
            r["uftrace"] = float(sh(["uftrace", "record", "--no-pager", "-d",
                                     os.path.join(TMP, "uftrace.data"), "-P", "target", prog,
                                     str(n)]).stdout.split()[-1])
        rows.append(r)
        log("cost", r)
    # calibration as perfgate itself measured it
    calib = json.load(open(rec)).get("calibration", {})
    return {"rows": rows, "calibration": calib,
            "params": {"calls": COST_CALLS, "calls_single_stepped": COST_CALLS_SSTEP,
                       "repeats": COST_REPEATS}}


# ---- 2. attaching -------------------------------------------------------------------------

def many_funcs(n):
    src = os.path.join(TMP, "many%d.c" % n)
    with open(src, "w") as f:
        f.write("volatile unsigned long sink;\n")
        for i in range(n):
            f.write("__attribute__((noinline)) void fn_%d(void) { sink += %d; }\n" % (i, i))
        f.write("int main(void) { fn_0(); return 0; }\n")
    exe = os.path.join(TMP, "many%d" % n)
    sh(["gcc", "-O1", "-o", exe, src])
    return exe


ATTACH_N, ATTACH_BPFTRACE_MAX, ATTACH_REPEATS = (100, 2000, 20000), 2000, 3


def measure_attach():
    rows = []
    for n in ATTACH_N:
        exe = many_funcs(n)
        t0 = time.monotonic()
        sh([exe])
        bare = time.monotonic() - t0
        times = []
        for _ in range(ATTACH_REPEATS):
            t0 = time.monotonic()
            sh([PG, "-q", "record", "-o", os.path.join(TMP, "a.json"), "-r", "1",
                "--max-funcs", str(n + 1), "-f", "fn_*", "--", exe])
            times.append(time.monotonic() - t0 - bare)
        r = {"n": n, "perfgate": median(times), "perfgate_runs": times}
        if n <= ATTACH_BPFTRACE_MAX:
            t0 = time.monotonic()
            b = subprocess.run(["env", "BPFTRACE_MAX_PROBES=%d" % (n + 100), "prlimit",
                                "--nofile=20000:20000", "bpftrace", "-e",
                                "uprobe:%s:fn_* { }" % exe, "-c", exe], capture_output=True,
                               text=True, timeout=900, cwd=TMP)
            if b.returncode == 0:
                r["bpftrace"] = time.monotonic() - t0 - bare
            else:
                r["bpftrace_error"] = (b.stderr.strip().splitlines() or ["?"])[-1][:160]
        rows.append(r)
        log("attach", r)
    return {"rows": rows, "params": {"functions": list(ATTACH_N), "repeats": ATTACH_REPEATS,
                                     "bpftrace_max": ATTACH_BPFTRACE_MAX}}


# ---- 3. accuracy --------------------------------------------------------------------------


def unscaled_means(path):
    """Compensated means per call of a run file's functions (first repetition) without the
    scale of the calibrated cost on nop5 sites (a call's own in, its descendants' untimed
    cost) by the probes' BPF run time (core/calib.h, pg_calib_scale), as perfgate computed them
    before commit b20df61 (2026-11-21), for a side-by-side figure."""
    run = load_run(path)
    cal = run["calibration"]
    funcs = {f["id"]: f for f in run["functions"]}
    out = {}
    for x in run["repetitions"][0]["functions"]:
        f = funcs[x["id"]]
        t = x["total_ns"] - x["calls"] * cal[f["site"]]["in_ns"] - x.get("desc_probe_ns", 0)
        for k, n in x.get("desc", {}).items():
            t -= n * (cal[k]["in_ns"] + max(0, cal[k]["out_ns"] - cal[k]["measured_ns"]))
        out[f["name"]] = max(0, t) / x["calls"]
    return out


# calls of each function per process: with 3000 (300 until 2026-11-21) a rare stall moves one
# process's mean a tenth as far; the untraced twin's mean abs error was 3.7-6.0% with 300 calls
# (90 processes) and 1.9-2.2% with 3000 (300 processes), both on 2026-11-21
ACC_CALLS = int(os.environ.get("ACC_CALLS", "3000"))
# one process takes ~1 s; parents' per-process errors spread by tens of percent, so the
# median's interval needs a few hundred processes to be a few points wide
ACC_PROCS = int(os.environ.get("ACC_PROCS", "300"))
# what bench/accuracy.c scales its loops to (its header), in us
ACC_DESIGN_US = {"leaf20": 20, "child2": 2, "parent10_own": 1, "children": 10}
# the project's target for the median error of compensated means (docs/measurement.md)
ACC_TARGET_PCT = 3


def measure_accuracy():
    builds = {
        "nop5 (gcc -pg -mfentry -mnop-mcount)":
            build("accuracy.c", "acc_nop5", ["-O1", "-fno-inline", "-pg", "-mfentry",
                                             "-mnop-mcount", "-fno-pie", "-no-pie"]),
        "frame pointers (gcc -fno-omit-frame-pointer: push %rbp, emulated)":
            build("accuracy.c", "acc_fp", ["-O1", "-fno-inline", "-fno-omit-frame-pointer"]),
        # the functions start with `sub $8,%rsp`: the kernel single-steps it
        "no frame pointers (gcc -fomit-frame-pointer: single-stepped)":
            build("accuracy.c", "acc_sstep", ["-O1", "-fno-inline", "-fomit-frame-pointer"]),
        # `nopl 0x8(%rax,%rax,1)`: a 5-byte nop the kernel optimizes (a nop5 site), -O2 code
        "clang -O2 -fpatchable-function-entry=5 (nop5)":
            build("accuracy.c", "acc_clang", ["-O2", "-fpatchable-function-entry=5"],
                  cc="clang"),
    }
    rows = []
    for name, exe in builds.items():
        truth = {"leaf20": [], "parent10": []}
        meas = {"leaf20": [], "parent10": []}
        raw = {"leaf20": [], "parent10": []}
        unscaled = {"leaf20": [], "parent10": []}   # compensated without the scale
        # medians: the twins' against perfgate's p50 (from per-call compensated histograms)
        truth50 = {"leaf20": [], "parent10": []}
        meas50 = {"leaf20": [], "parent10": []}
        # a second untraced twin: how far one process's mean can be from the truth anyway
        floor = {"leaf20": [], "parent10": []}
        for _ in range(ACC_PROCS):
            # the program times untraced twins interleaved with the traced calls: the truth
            rec = os.path.join(TMP, "acc.json")
            out = sh([PG, "-q", "record", "-o", rec, "-r", "1", "-f", "leaf20", "-f",
                      "parent10", "-f", "child2", "--", exe, str(ACC_CALLS)]).stdout
            for line in out.splitlines():
                k, v = line.split()[0], line.split()[-1]
                if k in truth:
                    truth[k].append(float(v))
                elif k.endswith("_p50") and k[:-4] in truth50:
                    truth50[k[:-4]].append(float(v))
                elif k.endswith("_floor") and k[:-6] in floor:
                    floor[k[:-6]].append(float(v))
            rep = json.loads(sh([PG, "report", rec, "--format", "json"]).stdout)
            for f in rep["functions"]:
                if f["function"] in meas:
                    # null: compensation left nothing (report's n/a*): counted as 0
                    meas[f["function"]].append(f["mean_ns"] or 0.0)
                    meas50[f["function"]].append(f["p50_ns"] or 0.0)
                    raw[f["function"]].append(f["raw_total_ns"] / f["calls"])
            for k, v in unscaled_means(rec).items():
                if k in unscaled:
                    unscaled[k].append(v)
        for k in ("leaf20", "parent10"):
            # the error of each process, then the median: truth and measurement are paired
            err = [(m - t) / t for m, t in zip(meas[k], truth[k])]
            rerr = [(m - t) / t for m, t in zip(raw[k], truth[k])]
            err50 = [(m - t) / t for m, t in zip(meas50[k], truth50[k])]
            uerr = [(m - t) / t for m, t in zip(unscaled[k], truth[k])]
            ferr = [(m - t) / t for m, t in zip(floor[k], truth[k])]
            rows.append({"build": name, "function": k, "calls": ACC_CALLS,
                         "truth": median(truth[k]),
                         "unscaled_errors": uerr, "floor_errors": ferr,
                         "compensated": median(meas[k]), "raw": median(raw[k]),
                         "error": median(err), "raw_error": median(rerr),
                         "errors": err, "truth_p50": median(truth50[k]),
                         "p50": median(meas50[k]), "p50_errors": err50})
            log("accuracy", rows[-1])
    return {"rows": rows, "tail": measure_tail(),
            "params": {"calls": ACC_CALLS, "processes": ACC_PROCS, "design_us": ACC_DESIGN_US,
                       "target_pct": ACC_TARGET_PCT,
                       "tail_pairs": TAIL_PAIRS, "tail_processes": TAIL_PROCS,
                       "tail_design_us": TAIL_DESIGN_US}}


def tail_stats(out):
    st = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] in ("p50", "p90", "p99", "p999", "mean", "mean_trim1"):
            st[f[0]] = float(f[1])
    return st


TAIL_PAIRS, TAIL_PROCS = 5000, 5
# bench/tail.c's header: ~2 us calls, each followed by ~1 us of untraced work
TAIL_DESIGN_US = {"call": 2, "after": 1}


def measure_tail():
    """bench/tail.c: the spread of one traced call's cost, from pairs of twin calls."""
    nop5 = build("tail.c", "tail_nop5", ["-O1", "-fno-inline", "-pg", "-mfentry",
                                          "-mnop-mcount", "-fno-pie", "-no-pie", "-pthread"])
    fp = build("tail.c", "tail_fp", ["-O1", "-fno-inline", "-fno-omit-frame-pointer", "-pthread"])
    # (build, program, threads): two threads calling the traced function at once, on a
    # two-CPU machine, price the counters perfgate's histogram map shares between CPUs
    cases = [("nop5", nop5, 1), ("emulated (push %rbp)", fp, 1), ("nop5", nop5, 2)]
    rows = []
    for name, exe, threads in cases:
        cmd = [exe, str(TAIL_PAIRS), str(threads)]
        rec = os.path.join(TMP, "tail.json")
        tools = {
            "untraced": lambda: sh(cmd).stdout,
            "perfgate": lambda: sh([PG, "-q", "record", "-o", rec, "-r", "1", "-f", "work",
                                    "--"] + cmd).stdout,
            "bpftrace": lambda: sh(["bpftrace", "-e", bpftrace_latency(exe, "work"),
                                    "-c", " ".join(cmd)]).stdout,
        }
        for tool, run in tools.items():
            runs = [tail_stats(run()) for _ in range(TAIL_PROCS)]
            r = {"build": name, "tool": tool, "threads": threads}
            for k in ("p50", "p90", "p99", "p999", "mean", "mean_trim1"):
                r[k] = median([x[k] for x in runs if k in x])
            r["p50_runs"] = [x["p50"] for x in runs if "p50" in x]
            rows.append(r)
            log("tail", r)
    return rows


# ---- 4. statistical quality ---------------------------------------------------------------

def _betainc(x, a, b):
    """The regularized incomplete beta function I_x(a, b), by its continued fraction
    (modified Lentz), for welch_p() without scipy."""
    import math
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _betainc(1 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log(1 - x)) / a
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2:
            num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
        else:
            num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 + num * d
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + num / (c if abs(c) > 1e-300 else 1e-300)
        f *= c * d
        if abs(1 - c * d) < 1e-14:
            break
    return front * (f - 1)


def welch_p(a, b):
    """Two-sided p of Welch's t-test (scipy's ttest_ind(equal_var=False); the same numbers from
    the t distribution computed here when scipy is missing)."""
    try:
        from scipy import stats
        return stats.ttest_ind(a, b, equal_var=False).pvalue
    except ImportError:
        pass
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1) / na
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1) / nb
    if va + vb == 0:
        return 1.0 if ma == mb else 0.0
    t = (ma - mb) / (va + vb) ** 0.5
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    return _betainc(df / (df + t * t), df / 2, 0.5)


STATS_PAIRS, STATS_REPS, STATS_SLOW, STATS_ALPHA, STATS_MIN1 = 20, 10, (2, 5, 10), 0.05, 1
# what bench/stat.c is built for (its header): a ~100 ms run, target ~2% of it
STATS_DESIGN = {"run_ms": 100, "target_share_pct": 2}
# perfgate compare's defaults (docs/statistics.md) that the default column stands for
STATS_GATE = {"alpha": 0.05, "min_effect_pct": 5}


def record_stat(exe, slow, i):
    rec = os.path.join(TMP, "s_%s_%d.json" % (slow, i))
    env = {"PG_SLOW": str(slow)} if slow else {}
    sh([PG, "-q", "record", "-o", rec, "-r", str(STATS_REPS), "--all-functions", "--", exe],
       env=env)
    return rec


def wall_times(rec):
    return [r["wall_ns"] for r in json.load(open(rec))["repetitions"]]


def target_share(rec):
    """target's share of the wall time (percent) in each repetition of @rec."""
    run = load_run(rec)
    ids = [f["id"] for f in run["functions"] if f["name"] == "target"]
    return [100.0 * sum(x["total_ns"] for x in r["functions"] if x["id"] in ids) / r["wall_ns"]
            for r in run["repetitions"]]


def compare(a, b, extra=()):
    r = sh([PG, "compare", a, b, "--json", os.path.join(TMP, "cmp.json")] + list(extra),
           check=False)
    if r.returncode not in (0, 1):
        raise RuntimeError(r.stderr)
    res = json.load(open(os.path.join(TMP, "cmp.json")))
    return r.returncode, res


def measure_stats(pairs=STATS_PAIRS):
    exe = build("stat.c", "stat", ["-O1", "-fno-inline", "-fpatchable-function-entry=5"],
                cc="clang")
    res = {"pairs": pairs, "levels": {},
           "params": {"pairs": pairs, "repetitions": STATS_REPS, "slowdowns_pct": STATS_SLOW,
                      "welch_alpha": STATS_ALPHA, "min_effect_low_pct": STATS_MIN1,
                      "gate_default": STATS_GATE, "design": STATS_DESIGN}}
    base = [record_stat(exe, 0, i) for i in range(pairs)]
    # what the baseline recordings saw of the program (bench/stat.c's design: STATS_DESIGN)
    res["base_wall_ms"] = median([w / 1e6 for a in base for w in wall_times(a)])
    res["target_share_pct"] = median([x for a in base for x in target_share(a)])
    same = [record_stat(exe, 0, pairs + i) for i in range(pairs)]
    fa = {"perfgate": 0, "perfgate_fn": 0, "welch": 0}
    for a, b in zip(base, same):
        code, r = compare(a, b)
        fa["perfgate"] += code == 1
        fa["perfgate_fn"] += r["counts"]["regressions"]
        fa["welch"] += bool(welch_p(wall_times(a), wall_times(b)) < STATS_ALPHA)
    res["false_alarms"] = fa
    log("A/A", fa)
    for slow in STATS_SLOW:
        new = [record_stat(exe, slow, i) for i in range(pairs)]
        d = {"default": 0, "min1": 0, "welch": 0, "target_changes": []}
        for a, b in zip(base, new):
            code, r = compare(a, b)
            t = [f for f in r["functions"] if f["name"] == "target"][0]
            d["default"] += t["verdict"] == "regression"
            d["target_changes"].append(t["change"])
            code, r = compare(a, b, ["--min-effect", str(STATS_MIN1)])
            t = [f for f in r["functions"] if f["name"] == "target"][0]
            d["min1"] += t["verdict"] == "regression"
            d["welch"] += bool(welch_p(wall_times(a), wall_times(b)) < STATS_ALPHA)
        res["levels"][slow] = d
        log("slow", slow, d["default"], d["min1"], d["welch"])
    return res


# ---- 8. interleaved A/B ---------------------------------------------------------------------

AB_SLOW, AB_REPS = (0, 2, 5, 10), 10
AB_TRIALS = int(os.environ.get("AB_TRIALS", "20"))
# PG_MIN_EFFECT_PAIRED (diff/paired.h): the sequential method it is tried with
AB_PAIRED_MIN_PCT = 2


def ab_available():
    return sh([PG, "ab", "--help"], check=False).returncode == 0


def ab_outcome(code, res, secs, walls, target="target"):
    """One trial of one method: exit code, target caught, others flagged, pairs, time, whole
    process (Welch on the per-repetition wall times; the paired wall line when there is one)."""
    fs = res["functions"]
    t = [f for f in fs if f["name"] == target]
    others = [f for f in fs if f["name"] != target and
              f["verdict"] in ("regression", "improvement")]
    w = res.get("wall") or {}
    return {"exit": code, "caught": bool(t and t[0]["verdict"] == "regression"),
            # significant beyond the minimum effect, but under the impact rule's 0.1% of the
            # run: a 5% slowdown of a function holding 2% of the run sits on that line
            "notable": bool(t and t[0]["verdict"] == "notable"),
            "change": t[0]["change"] if t else None,
            "others": len(others), "other_names": [f["name"] for f in others],
            "pairs": max([f.get("pairs", 0) for f in fs] + [res.get("npairs", 0)]),
            "secs": secs, "welch": bool(welch_p(*walls) < STATS_ALPHA),
            "wall_paired": bool(res.get("paired") and w.get("q") is not None and
                                w["q"] <= STATS_ALPHA and (w.get("ci_lo") or 0) > 0)}


def ab_sequential(exe, slow, i):
    """Two recordings one after the other (the stats section's way), compared twice: with the
    default gate and with the paired method's minimum effect."""
    t0 = time.monotonic()
    a, b = record_stat(exe, 0, 10000 + i), record_stat(exe, slow, 20000 + i)
    rec = time.monotonic() - t0
    walls = (wall_times(a), wall_times(b))
    out = {}
    for name, extra in (("seq_default", []),
                        ("seq_min_paired", ["--min-effect", str(AB_PAIRED_MIN_PCT)])):
        t0 = time.monotonic()
        code, res = compare(a, b, extra)
        out[name] = ab_outcome(code, res, rec + time.monotonic() - t0, walls)
    return out


def ab_interleaved(exe, slow, i):
    """perfgate ab at its defaults; None when it failed (exit 2)."""
    d = os.path.join(TMP, "ab_%s_%d" % (slow, i))
    t0 = time.monotonic()
    r = sh([PG, "-q", "ab", "-o", d, "%s 0" % exe, "%s %s" % (exe, slow)], check=False)
    secs = time.monotonic() - t0
    if r.returncode not in (0, 1):
        log("ab failed:", r.stderr[-500:])
        return None
    res = json.load(open(os.path.join(d, "compare.json")))
    walls = (wall_times(os.path.join(d, "base.json")), wall_times(os.path.join(d, "new.json")))
    return ab_outcome(r.returncode, res, secs, walls)


def measure_ab(trials=AB_TRIALS):
    """Sequential recordings against perfgate ab, A/A and slowdowns of a ~2% function."""
    exe = build("stat.c", "stat", ["-O1", "-fno-inline", "-fpatchable-function-entry=5"],
                cc="clang")
    have_ab = ab_available()
    if not have_ab:
        log("ab: this perfgate has no `ab` command: its column is left out")
    res = {"trials": trials, "ab_available": have_ab, "levels": {},
           "params": {"trials": trials, "repetitions": AB_REPS, "slowdowns_pct": AB_SLOW,
                      "paired_min_effect_pct": AB_PAIRED_MIN_PCT, "welch_alpha": STATS_ALPHA,
                      "gate_default": STATS_GATE, "design": STATS_DESIGN}}
    for slow in AB_SLOW:
        rows = {"seq_default": [], "seq_min_paired": []}
        if have_ab:
            rows["ab"] = []
        for i in range(trials):
            for name, o in ab_sequential(exe, slow, i).items():
                rows[name].append(o)
            if have_ab:
                o = ab_interleaved(exe, slow, i)
                if o:
                    rows["ab"].append(o)
        res["levels"][slow] = rows
        log("ab", slow, {k: (sum(o["exit"] == 1 for o in v), len(v)) for k, v in rows.items()})
    return res


# ---- 8, part two: a 50 ns leaf, judged from its samples ---------------------------------------

# bench/leaf.c: leaf() ~50 ns, ~10% of a ~2.5 s run, 4,000,000 calls
LEAF_SLOW, LEAF_TARGET = (0, 10, 5), "leaf"
LEAF_FLAGS = ["-O1", "-fno-inline", "-fpatchable-function-entry=5"]
# seconds the part may take (it stops starting sessions after them; default: 20 rounds)
LEAF_SECS = float(os.environ.get("LEAF_SECS", "0"))
# when time is short (LEAF_SECS), A/A and 10% come first: 5% slower every other round, and
# the exact (-f leaf) session at 10% every fourth (~6 s a repetition)
LEAF_EVERY = {0: 1, 10: 1, 5: 2, "exact": 4}


def leaf_session(exe, slow, i, exact=False):
    """perfgate ab at its defaults on bench/leaf.c (or with -f leaf: the leaf traced)."""
    d = os.path.join(TMP, "leaf_%s_%s_%d" % ("x" if exact else "s", slow, i))
    t0 = time.monotonic()
    r = sh([PG, "-q", "ab", "-o", d] + (["-f", LEAF_TARGET] if exact else []) +
           ["%s 0" % exe, "%s %s" % (exe, slow)], check=False)
    secs = time.monotonic() - t0
    if r.returncode not in (0, 1):
        log("ab failed:", r.stderr[-500:])
        return None
    res = json.load(open(os.path.join(d, "compare.json")))
    base = json.load(open(os.path.join(d, "base.json")))
    walls = (wall_times(os.path.join(d, "base.json")), wall_times(os.path.join(d, "new.json")))
    o = ab_outcome(r.returncode, res, secs, walls, target=LEAF_TARGET)
    t = [f for f in res["functions"] if f["name"] == LEAF_TARGET]
    reps = base["repetitions"]
    o.update({"overall": res.get("overall"), "verdict": t[0]["verdict"] if t else None,
              "sampled": bool(t and t[0].get("origin") == "sampled"),
              "origin": t[0].get("origin") if t else None,
              "ci": [t[0].get("ci_lo"), t[0].get("ci_hi")] if t else None,
              "sample_hz": base["meta"]["options"].get("sample_hz", 0),
              "samples_rep": median([x.get("samples", 0) for x in reps]),
              "cpu_ms": median([x["cpu_ns"] / 1e6 for x in reps]),
              "wall_ms": median([x["wall_ns"] / 1e6 for x in reps])})
    log("leaf", "exact" if exact else "ab", slow, i, o["exit"], o["verdict"], o["change"],
        o["pairs"], "%.0f s" % secs)
    return o


def leaf_sample_cost(exe, hz, rounds=3, reps=3):
    """The sampler's cost on the target: the process tree's CPU time a repetition at @hz
    against --no-sample, interleaved rounds of `record -f main` (traced: one call)."""
    out = {"hz": hz, "rounds": [], "start": now()}
    for k in range(rounds):
        row = {}
        for name, extra in (("none", ["--no-sample"]), ("hz", ["-F", str(hz)])):
            rec = os.path.join(TMP, "leafcost_%s_%d.json" % (name, k))
            sh([PG, "-q", "record", "-o", rec, "-r", str(reps), "-f", "main"] + extra +
               ["--", exe, "0"])
            reps_ = json.load(open(rec))["repetitions"]
            row[name] = {"cpu_ms": median([x["cpu_ns"] / 1e6 for x in reps_]),
                         "wall_ms": median([x["wall_ns"] / 1e6 for x in reps_]),
                         "samples": median([x.get("samples", 0) for x in reps_])}
        out["rounds"].append(row)
        log("leaf cost", row)
    return out


def measure_ableaf():
    """perfgate ab at its defaults on a 50 ns leaf holding 10% of the run (judged from its
    samples), A/A, 10% and 5% slower, beside the same leaf traced (-f leaf) at 10%; rounds of
    one session each (LEAF_EVERY) until AB_TRIALS rounds or LEAF_SECS seconds."""
    exe = build("leaf.c", "leaf", LEAF_FLAGS, cc="clang")
    t_end = time.monotonic() + LEAF_SECS if LEAF_SECS else None
    res = {"params": {"trials": AB_TRIALS, "slowdowns_pct": LEAF_SLOW, "flags": LEAF_FLAGS,
                      "every": {str(k): v for k, v in LEAF_EVERY.items()}, "secs": LEAF_SECS,
                      "design": {"leaf_ns": 50, "share_pct": 10, "calls": 4000000}},
           "levels": {str(s): [] for s in LEAF_SLOW}, "exact": {"10": []}}
    first = leaf_session(exe, 0, 0)
    res["sample_cost"] = leaf_sample_cost(exe, first["sample_hz"]) if first else None
    if first:
        res["levels"]["0"].append(first)
    for i in range(AB_TRIALS):
        for slow in LEAF_SLOW:
            if (i == 0 and slow == 0) or i % LEAF_EVERY[slow]:
                continue
            if t_end and time.monotonic() > t_end:
                return res
            o = leaf_session(exe, slow, i)
            if o:
                res["levels"][str(slow)].append(o)
        if i % LEAF_EVERY["exact"] == 0 and not (t_end and time.monotonic() > t_end):
            o = leaf_session(exe, 10, i, exact=True)
            if o:
                res["exact"]["10"].append(o)
    return res


# ---- 5. compare at scale -------------------------------------------------------------------

CMP_SLOW_PCT = 20
# calls a repetition of the function that slows down (the others: 100), in both files: about
# a fifth of the repetition's 100 ms, so that 20% slower is 4% of it, above compare's minimum
# impact (0.1% of a repetition; a function of 100 calls is ~0.1% in all, and 20% of that came
# out "notable", too little of the run to count, not a regression)
CMP_SLOW_CALLS = 20000


def synth_run(path, nfunc, nrep, seed, slow_id=None, version=1):
    """A run file of @nfunc functions x @nrep repetitions, function @slow_id CMP_SLOW_PCT%
    slower, in the encoding of @version: 1 (an object per function per repetition, as perfgate
    wrote before version 3) or 3 (a string of rows per repetition, docs/run-format.md).
    Function CMP_SLOW_ID is called CMP_SLOW_CALLS times a repetition in either file."""
    rnd = random.Random(seed)
    funcs = [{"id": i, "name": "fn_%d" % i, "display": "fn_%d" % i, "binary": "/bin/synth",
              "address": "0x%x" % (0x1000 + 16 * i), "offset": 0x1000 + 16 * i,
              "site": "nop5", "endbr": False} for i in range(nfunc)]
    reps = []
    for r in range(nrep):
        stats = []
        for i in range(nfunc):
            calls = CMP_SLOW_CALLS if i == CMP_SLOW_ID else 100
            mean = 1000 + 10 * (i % 50)
            if i == slow_id:
                mean *= 1 + CMP_SLOW_PCT / 100.0
            tot = int(calls * mean * rnd.uniform(0.98, 1.02))
            b = 64 + 64 * 4 + (i % 40)
            stats.append({"id": i, "calls": calls, "total_ns": tot, "self_ns": tot,
                          "min_ns": tot // calls - 50, "max_ns": tot // calls + 50,
                          "hist": [[b, calls * 6 // 10], [b + 1, calls - calls * 6 // 10]]})
        rep = {"wall_ns": 10 ** 8, "exit_code": 0, "signal": 0}
        if version >= 3:
            rep["stats"] = ";".join(
                "%d %d %d %d %d %d %s" % (x["id"], x["calls"], x["total_ns"], x["self_ns"],
                                          x["min_ns"], x["max_ns"],
                                          " ".join("%d:%d" % (b, c) for b, c in x["hist"]))
                for x in stats)
        else:
            rep["functions"] = stats
        reps.append(rep)
    doc = {"format": "perfgate-run", "version": version,
           "meta": {"perfgate_version": "bench", "command": ["synth"],
                    "start_time": "2026-11-21T00:00:00Z", "host": "bench", "kernel": "k",
                    "cpu_model": "c", "git_commit": None, "cwd": "/",
                    "options": {"repetitions": nrep, "functions": [], "exclude": []}},
           "histogram": {"scheme": "log-linear", "sub_bucket_bits": 6, "max_exponent": 41},
           "functions": funcs, "repetitions": reps}
    if version >= 3:
        doc["histogram"]["durations"] = "raw"
        doc["stat_columns"] = ["id", "calls", "total_ns", "self_ns", "min_ns", "max_ns"]
    with open(path, "w") as f:
        json.dump(doc, f)


CMP_FUNCS, CMP_REPS, CMP_SLOW_ID, CMP_REPEATS = 10000, 30, 77, 3
CMP_VERSIONS = [1, 3]


def measure_compare():
    """compare of two synthetic files per encoding: wall time and peak RSS (/usr/bin/time),
    the median and the largest of CMP_REPEATS runs, alternating the encodings."""
    files = {}
    for v in CMP_VERSIONS:
        a, b = (os.path.join(TMP, "big_%s_v%d.json" % (x, v)) for x in "ab")
        synth_run(a, CMP_FUNCS, CMP_REPS, 1, version=v)
        synth_run(b, CMP_FUNCS, CMP_REPS, 2, slow_id=CMP_SLOW_ID, version=v)
        files[v] = (a, b)
    runs = {v: [] for v in CMP_VERSIONS}
    found = {}
    for _ in range(CMP_REPEATS):
        for v in CMP_VERSIONS:
            out = os.path.join(TMP, "big_v%d.json" % v)
            r = sh(["/usr/bin/time", "-f", "%e %U %S %M", PG, "compare", files[v][0],
                    files[v][1], "--json", out], check=False)
            if r.returncode != 1:
                raise RuntimeError("compare of the synthetic runs: exit %d: %s" % (
                    r.returncode, r.stderr[-500:]))
            sec, user, sys_, kb = r.stderr.strip().splitlines()[-1].split()
            runs[v].append((float(sec), float(user) + float(sys_), int(kb)))
            found[v] = [f["name"] for f in json.load(open(out))["functions"]
                        if f["verdict"] == "regression"]
    res = {"encodings": [{"version": v, "file_mb": os.path.getsize(files[v][0]) / 1e6,
                          "seconds": median([s for s, _, _ in runs[v]]),
                          "seconds_runs": [s for s, _, _ in runs[v]],
                          "seconds_min": min(s for s, _, _ in runs[v]),
                          "cpu_seconds": median([c for _, c, _ in runs[v]]),
                          "max_rss_mb": max(k for _, _, k in runs[v]) / 1024.0,
                          "found": found[v]} for v in CMP_VERSIONS],
           "params": {"functions": CMP_FUNCS, "repetitions": CMP_REPS,
                      "slowdown_pct": CMP_SLOW_PCT, "slow_function": "fn_%d" % CMP_SLOW_ID,
                      "slow_calls": CMP_SLOW_CALLS, "repeats": CMP_REPEATS}}
    log("compare", res)
    return res


# ---- 6. sampled profiles --------------------------------------------------------------------

SAMPLE_HZ = [0, 99, 199, 499, 999, 4999]
SAMPLE_LAT_HZ, SAMPLE_LAT_CALLS, SAMPLE_LAT_REPEATS = [0, 199, 499, 4999], 2000000, 3
SAMPLE_UNWIND_HZ, SAMPLE_UNWIND_REPS = 999, 3
SAMPLE_UNWIND_ITERS = ["100000000", "1000000000"]
# the rate perfgate chooses without -F (the default flow): sample_chain iterations for ~50 ms,
# ~1 s and ~10 s of CPU loop, and (rounds, repetitions) of the interleaved overhead recordings
SAMPLE_AUTO = [("~50 ms", "50000000", 3, 5), ("~1 s", "1000000000", 3, 3),
               ("~10 s", "10000000000", 1, 3)]


def record_walls(cmd, hz, reps, extra=()):
    """Wall times (s) of the repetitions, and the stderr of a -v recording at @hz (None: no
    -F, the rate perfgate chooses)."""
    rec = os.path.join(TMP, "s.json")
    freq = [] if hz is None else ["--no-sample"] if not hz else ["-F", str(hz)]
    r = sh([PG, "-v", "record", "-o", rec, "-r", str(reps)] + freq + list(extra) +
           ["--"] + cmd)
    run = load_run(rec)
    return [rep["wall_ns"] / 1e9 for rep in run["repetitions"]], r.stderr, run


def unwind_cost(stderr):
    m = re.search(r"unwound and symbolized (\d+) samples, ([0-9.]+) us each", stderr)
    return (int(m.group(1)), float(m.group(2))) if m else (0, float("nan"))


def auto_rate(prog):
    """Section 6's chosen rates: for each length, what the default flow (no -F) samples at and
    takes per repetition, and that rate's overhead against --no-sample under -f main."""
    out = []
    for name, iters, rounds, reps in SAMPLE_AUTO:
        cmd = [prog, iters]
        _, err, run = record_walls(cmd, None, 1)
        hz = run["meta"]["options"]["sample_hz"]
        said = re.search(r"sampling at (\d+) Hz: ~(\d+) samples a repetition", err)
        walls = {0: [], hz: []}
        samples = []
        for _ in range(rounds):
            for f in (0, hz):
                w, _, r = record_walls(cmd, f, reps, ["-f", "main"])
                walls[f] += w
                if f:
                    samples += [rep.get("samples", 0) for rep in r["repetitions"]]
        base, m = min(walls[0]), min(walls[hz])
        out.append({"load": name, "iterations": iters, "rounds": rounds, "repetitions": reps,
                    "hz": hz, "said_hz": int(said.group(1)) if said else None,
                    "said_samples": int(said.group(2)) if said else None,
                    "default_flow_samples": run["repetitions"][0].get("samples", 0),
                    "samples_per_rep": median(samples), "wall_s": base,
                    "overhead_pct": 100 * (m / base - 1),
                    "median_overhead_pct": 100 * (median(walls[hz]) / median(walls[0]) - 1)})
        log("sampling auto", out[-1])
    return out


def measure_sampling(rounds=3, reps=5):
    progs = os.path.join(ROOT, "build", "progs")
    demo = build(os.path.join("..", "examples", "demo", "imgfilter.c"), "imgfilter",
                 ["-O2", "-g", "-fpatchable-function-entry=5"], cc="clang")
    loads = {"demo (examples/demo, imgfilter 3)": [demo, "3"],
             "demo, 300 frames (imgfilter 300)": [demo, "300"],
             "CPU loop (sample_chain 1000000000)": [os.path.join(progs, "sample_chain"),
                                                    "1000000000"]}
    out = {"overhead": [], "latency": [], "unwind": [],
           "params": {"rounds": rounds, "repetitions": reps, "hz": SAMPLE_HZ,
                      "latency_calls": SAMPLE_LAT_CALLS, "latency_repeats": SAMPLE_LAT_REPEATS,
                      "unwind_hz": SAMPLE_UNWIND_HZ, "unwind_repetitions": SAMPLE_UNWIND_REPS,
                      "unwind_iterations": SAMPLE_UNWIND_ITERS}}
    for name, cmd in loads.items():
        walls = {hz: [] for hz in SAMPLE_HZ}
        samples = {hz: 0 for hz in SAMPLE_HZ}
        for _ in range(rounds):	# interleaved, so that drifts of the machine hit all alike
            for hz in SAMPLE_HZ:
                w, _, run = record_walls(cmd, hz, reps, ["-f", "main"])
                walls[hz] += w
                samples[hz] += sum(rep.get("samples", 0) for rep in run["repetitions"])
        # other work on the machine only ever adds time: the minimum is the robust estimate
        base, base_med = min(walls[0]), median(walls[0])
        for hz in SAMPLE_HZ:
            m = min(walls[hz])
            per_s = samples[hz] / sum(walls[hz]) if hz else 0
            out["overhead"].append({"load": name, "hz": hz, "wall_s": m,
                                    "overhead_pct": 100 * (m / base - 1),
                                    "median_overhead_pct":
                                        100 * (median(walls[hz]) / base_med - 1),
                                    "samples_per_s": per_s,
                                    "us_per_sample": (m - base) / m / per_s * 1e6 if hz
                                    else float("nan")})
            log("sampling", out["overhead"][-1])
    # a traced function's latency, as perfgate measures it, with and without sampling
    tight = build("tight.c", "t_nop5s", ["-O2", "-pg", "-mfentry", "-mnop-mcount", "-fno-pie",
                                         "-no-pie"])
    for hz in SAMPLE_LAT_HZ:
        lat = []
        for _ in range(SAMPLE_LAT_REPEATS):
            _, _, run = record_walls([tight, str(SAMPLE_LAT_CALLS)], hz, 1, ["-f", "target"])
            f = [x for x in run["repetitions"][0]["functions"]][0]
            lat.append(f["total_ns"] / f["calls"])
        out["latency"].append({"hz": hz, "ns_per_call": median(lat)})
        log("sampling latency", out["latency"][-1])
    # unwinding + symbolizing in perfgate, after each repetition: a short and a long run give
    # the cost of one more sample (the slope) apart from the one-time cost of loading symbol
    # tables and DWARF (the intercept)
    for name, cmd in [("frame pointers, 3 frames deep (sample_chain)",
                       [os.path.join(progs, "sample_chain")]),
                      ("no frame pointers, through libc's qsort (sample_chain_nofp qsort)",
                       [os.path.join(progs, "sample_chain_nofp"), "qsort"])]:
        pts = []
        for iters in SAMPLE_UNWIND_ITERS:
            n, us = unwind_cost(record_walls(cmd + [iters], SAMPLE_UNWIND_HZ, SAMPLE_UNWIND_REPS,
                                             ["-f", "main"])[1])
            pts.append((n, n * us))
        (n1, t1), (n2, t2) = pts
        out["unwind"].append({"load": name, "samples": n2, "us_per_sample": (t2 - t1) / (n2 - n1),
                              "fixed_ms": (t1 - n1 * (t2 - t1) / (n2 - n1)) / 1e3,
                              "mean_us": t2 / n2})
        log("sampling unwind", out["unwind"][-1])
    out["auto"] = auto_rate(os.path.join(progs, "sample_chain"))
    return out


def measure_realworld():
    """Section 7: the default flow on real programs from Debian sources (its own module).
    RW_PROGRAMS="jq lz4" measures those only (RW_FLOWS="sequential": that flow only); the other
    rows of the last run are kept, each with the date and commit it was measured at."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "realworld"))
    import realworld
    names = os.environ.get("RW_PROGRAMS", "").split() or None
    out = realworld.measure(names)
    if names:
        old = load_results(RESULTS)["sections"].get("realworld", {}).get("data", {})
        stamp_old = old.get("machine")
        kept = []
        for p in old.get("programs", []):
            # a row of another program, or of a flow this run did not measure
            if p["name"] not in names or p.get("flow", "ab") not in realworld.FLOWS:
                p.setdefault("machine", stamp_old)
                kept.append(p)
        out["programs"] = kept + out["programs"]
    return out


def measure_offcpu():
    """Section 8: off-CPU time, its cost per context switch and the metric (its own module)."""
    sys.path.insert(0, BENCH)
    import offcpu
    return offcpu.measure()


def measure_history():
    """Section 10: perfgate history's store and scan at scale (its own module)."""
    sys.path.insert(0, BENCH)
    import history
    return history.measure(PG, TMP, synth_run)


def measure_honesty():
    """Section 11: the demo and history check on this machine (its own module)."""
    sys.path.insert(0, BENCH)
    import honesty
    return honesty.measure(PG, TMP)


def measure_inline():
    """Section 12: which function a verdict names when a helper is inlined everywhere."""
    sys.path.insert(0, BENCH)
    import inline
    return inline.measure()


def measure_probeunc():
    """Section 13: the calibration's uncertainty against the truth (its own module)."""
    sys.path.insert(0, BENCH)
    import probeunc
    return probeunc.measure(PG, TMP)


MEASURES = [("cost", measure_cost), ("attach", measure_attach),
            ("accuracy", measure_accuracy), ("stats", measure_stats),
            ("compare", measure_compare), ("sampling", measure_sampling),
            ("realworld", measure_realworld), ("ab", measure_ab), ("ableaf", measure_ableaf),
            ("offcpu", measure_offcpu), ("history", measure_history),
            ("honesty", measure_honesty), ("inline", measure_inline),
            ("probeunc", measure_probeunc)]


def git(*args):
    r = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return None


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp(start):
    """The machine and the time of one section's run, from @start (UTC, ISO 8601) to now."""
    return {"date": start[:10], "start": start, "end": now(),
            "kernel": platform.release(), "cpu_model": cpu_model(),
            "nproc": len(os.sched_getaffinity(0)), "cpus_online": os.cpu_count(),
            "perfgate_commit": git("rev-parse", "--short=12", "HEAD"),
            # the binary measured may differ from the commit (the files this suite writes
            # do not count)
            "perfgate_dirty": bool(git("status", "--porcelain", "--untracked-files=no", "--",
                                       ".", ":!bench/results.json", ":!BENCHMARKS.md")),
            # how busy the machine was (the 5-minute load average at the section's end), and
            # what the person running the suite said of it (BENCH_NOTE)
            "loadavg5": round(os.getloadavg()[1], 1),
            "note": os.environ.get("BENCH_NOTE") or None}


def load_results(path):
    """results.json, or an empty one; refuses a file of another format."""
    if not os.path.exists(path):
        return {"format": "perfgate-bench-results", "version": 2, "sections": {}}
    res = json.load(open(path))
    if res.get("format") != "perfgate-bench-results" or res.get("version") != 2:
        sys.exit("bench: %s is not a perfgate-bench-results version 2 file" % path)
    return res


def save_results(path, res):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1, default=float)
        f.write("\n")
    os.replace(tmp, path)


def main():
    global TMP
    names = [name for name, _ in MEASURES]
    want = sys.argv[1:] or names
    unknown = [w for w in want if w not in names]
    if unknown:
        sys.exit("bench: unknown section %s (sections: %s)" % (", ".join(unknown),
                                                               " ".join(names)))
    if os.geteuid() != 0:
        sys.exit("bench: run as root (BPF)")
    res = load_results(RESULTS)
    TMP = tempfile.mkdtemp(prefix="perfgate-bench.")
    try:
        for name, fn in MEASURES:
            if name not in want:
                continue
            log("== %s" % name)
            start = now()
            data = fn()
            entry = res["sections"].setdefault(name, {})
            entry["stamp"], entry["data"] = stamp(start), data
            save_results(RESULTS, res)	# after each section: keep what was measured
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()


