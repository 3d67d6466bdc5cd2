#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/offcpu.py - the off-CPU section of the benchmark suite: what perfgate's
context-switch hooks cost, and which metric gates better.

  switch   bench/switch.c, two threads handing a token through a mutex and a condition
           variable (~1.7 context switches a handoff): ns per handoff untraced, under perfgate
           record --no-offcpu and under perfgate record (one traced function: the difference
           is the hooks), OFF_REPEATS times each, interleaved; the added cost per context
           switch of the traced tree; the same program run beside a recording of another
           process (its switches pay the hooks' filter only);
  bpf      the hooks' own run time per invocation, from the kernel's BPF statistics
           (kernel.bpf_stats_enabled) during a long recording of bench/switch.c;
  lock     tests/progs/offcpu.c's lock waiter (waiter() waits while another thread holds the
           lock PG_HOLD_MS): A/A, +10% and +50% hold time, OFF_TRIALS times, judged by
           self time (the default) and by on-CPU self time (--metric cpu);
  zstd     OFF_PAIRS A/A pairs of zstd -3 with every function traced (record --all-functions,
           10 repetitions a side, the build of bench/realworld/fetch.sh), each compared by
           self time and by --metric cpu: false alarms of each, and for the self-time ones how
           much of the change was off-CPU.

measure() returns a dict (with "params"), render_lines() the Markdown; bench/measure.py and
bench/render.py call them for the "offcpu" section. Environment: OFF_REPEATS (default 7),
OFF_TRIALS (3), OFF_PAIRS (10), RW_DIR (the realworld build cache).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PG = os.path.join(TOP, "perfgate")
RW_DIR = os.environ.get("RW_DIR", os.path.join(TOP, "build", "realworld"))
REPEATS = int(os.environ.get("OFF_REPEATS", "7"))
TRIALS = int(os.environ.get("OFF_TRIALS", "3"))
PAIRS = int(os.environ.get("OFF_PAIRS", "10"))
HANDOFFS = 100000
HOOKS = ("pg_switch", "pg_wakeup", "pg_wakeup_new")


def log(*a):
    print("offcpu:", *a, file=sys.stderr, flush=True)


def sh(argv, env=None, check=True):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(argv, env=e, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (argv, r.returncode, r.stderr[-2000:]))
    return r


def build(work):
    sw = os.path.join(work, "switch")
    sh(["gcc", "-O2", "-pthread", "-o", sw, os.path.join(HERE, "switch.c")])
    oc = os.path.join(work, "offcpu")
    sh(["gcc", "-O1", "-g", "-fno-inline", "-fno-omit-frame-pointer", "-pthread", "-o", oc,
        os.path.join(TOP, "tests", "progs", "offcpu.c")])
    return sw, oc


def handoff(argv):
    """ns per handoff and context switches, as bench/switch.c printed them."""
    ns, switches = sh(argv).stdout.split()[-2:]
    return float(ns), int(switches)


def switch_cost(sw, work):
    rec = os.path.join(work, "sw.json")
    pg = [PG, "-q", "record", "--no-sample", "-o", rec, "-r", "1", "-f", "handoffs"]
    modes = {"untraced": [sw, str(HANDOFFS)],
             "no_offcpu": pg + ["--no-offcpu", "--", sw, str(HANDOFFS)],
             "offcpu": pg + ["--", sw, str(HANDOFFS)]}
    runs = {m: [] for m in modes}
    switches = []
    for i in range(REPEATS):
        for m, argv in modes.items():
            ns, n = handoff(argv)
            runs[m].append(ns)
            switches.append(n)
        log("switch", i + 1, {m: v[-1] for m, v in runs.items()})
    # a bystander: the same program, not traced, while perfgate records another process
    bg = subprocess.Popen([PG, "-q", "record", "--no-sample", "-o",
                           os.path.join(work, "bg.json"), "-r", "1", "-f", "main", "--",
                           "sleep", "1000"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(3)
    beside = []
    try:
        for _ in range(REPEATS):
            beside.append(handoff([sw, str(HANDOFFS)])[0])
    finally:
        os.killpg(bg.pid, 2)
        bg.wait(30)
    runs["untraced_beside_recording"] = beside
    med = {m: statistics.median(v) for m, v in runs.items()}
    per_handoff = statistics.median(switches) / HANDOFFS
    return {"runs": runs, "median_ns_per_handoff": med, "switches_per_handoff": per_handoff,
            "cost_per_switch_ns": (med["offcpu"] - med["no_offcpu"]) / per_handoff,
            "bystander_per_switch_ns": (med["untraced_beside_recording"] - med["untraced"]) /
            per_handoff}


def hook_stats(skip=()):
    """{id: (name, run_time_ns, run_cnt)} of the loaded context-switch programs but @skip's."""
    out = {}
    for p in json.loads(sh(["bpftool", "-j", "prog", "show"]).stdout):
        if p.get("name") in HOOKS and p["id"] not in skip:
            out[p["id"]] = (p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))
    return out


def bpf_cost(sw, work):
    """The hooks' BPF run time per invocation while perfgate records a long handoff run (the
    programs loaded after it started: bpftool here cannot tell whose they are)."""
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    before = hook_stats()
    with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
        f.write("1")
    rec = subprocess.Popen([PG, "-q", "record", "--no-sample", "-o", os.path.join(work, "b.json"),
                            "-r", "1", "-f", "handoffs", "--", sw, str(30 * HANDOFFS)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        a = hook_stats(before)
        time.sleep(3)
        b = hook_stats(before)
    finally:
        rec.wait(600)
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(old)
    out = {}
    for pid, (name, t1, n1) in b.items():
        if pid in a and n1 > a[pid][2]:
            dt, dn = t1 - a[pid][1], n1 - a[pid][2]
            out[name] = {"ns_per_run": dt / dn, "runs_per_s": dn / 3.0}
    return out


def verdict(cmp_json, name):
    with open(cmp_json) as f:
        res = json.load(f)
    for fn in res["functions"]:
        if fn["name"] == name:
            return fn
    return None


def lock_detection(oc, work):
    F = ["-f", "waiter", "-f", "contend"]
    cases = {"A/A": 20, "+10%": 22, "+50%": 30}
    out = {c: {"self": [], "cpu": []} for c in cases}
    for t in range(TRIALS):
        files = {}
        for tag, hold in [("base", 20)] + list(cases.items()):
            files[tag] = os.path.join(work, "lock-%s.json" % tag.replace("/", ""))
            sh([PG, "-q", "record", "--no-sample", "-o", files[tag], "-r", "10"] + F +
               ["--", oc, "mutex"], env={"PG_HOLD_MS": str(hold)})
        for c in cases:
            for metric in ("self", "cpu"):
                cj = os.path.join(work, "lock.cmp.json")
                r = sh([PG, "compare", files["base"], files[c], "--metric", metric, "--json",
                        cj], check=False)
                fn = verdict(cj, "waiter") or {}
                out[c][metric].append({"exit": r.returncode, "verdict": fn.get("verdict"),
                                       "change": fn.get("change"),
                                       "change_offcpu": fn.get("change_offcpu")})
        log("lock trial", t + 1, {c: [x["verdict"] for x in v["self"]] for c, v in out.items()})
    return out


def zstd_aa(work):
    zstd = os.path.join(RW_DIR, "src", "zstd", "tree", "programs", "zstd")
    corpus = os.path.join(RW_DIR, "corpus.tar")
    if not (os.path.exists(zstd) and os.path.exists(corpus)):
        sh([os.path.join(HERE, "realworld", "fetch.sh"), "zstd"])
        if not os.path.exists(corpus):
            tree = os.path.join(RW_DIR, "src", "zstd", "tree")
            sh(["tar", "-C", tree, "-cf", corpus, "lib", "programs"])
    argv = [zstd, "-q", "-3", "-f", corpus, "-o", os.path.join(work, "out.zst")]
    pairs = []
    for i in range(PAIRS):
        a, b = os.path.join(work, "za.json"), os.path.join(work, "zb.json")
        for path in (a, b):
            sh([PG, "-q", "record", "--no-sample", "--all-functions", "-r", "10", "-o", path,
                "--"] + argv)
        pair = {}
        for metric in ("self", "cpu"):
            cj = os.path.join(work, "z.cmp.json")
            r = sh([PG, "compare", a, b, "--metric", metric, "--json", cj], check=False)
            with open(cj) as f:
                res = json.load(f)
            pair[metric] = {"exit": r.returncode,
                            "flagged": [{"function": fn["display"], "change": fn["change"],
                                         "change_cpu": fn.get("change_cpu"),
                                         "change_offcpu": fn.get("change_offcpu"),
                                         "reason": fn["reason"]}
                                        for fn in res["functions"]
                                        if fn["verdict"] == "regression"]}
        with open(a) as f:
            pair["functions"] = len(json.load(f)["functions"])
        pairs.append(pair)
        log("zstd A/A", i + 1, {m: [x["function"] for x in pair[m]["flagged"]]
                                for m in ("self", "cpu")})
    return pairs


def measure():
    work = tempfile.mkdtemp(prefix="pg-offcpu.")
    sw, oc = build(work)
    out = {"params": {"handoffs": HANDOFFS, "repeats": REPEATS, "trials": TRIALS,
                      "pairs": PAIRS}}
    log("switch cost")
    out["switch"] = switch_cost(sw, work)
    log("BPF run time")
    out["bpf"] = bpf_cost(sw, work)
    log("lock contention")
    out["lock"] = lock_detection(oc, work)
    log("zstd A/A")
    out["zstd"] = zstd_aa(work)
    subprocess.run(["rm", "-rf", work])
    return out


def spread(v):
    """(max - min) / median of @v."""
    return (max(v) - min(v)) / statistics.median(v) if v else 0


def render_lines(d):
    s, L = d["switch"], []
    med = s["median_ns_per_handoff"]
    L += ["bench/switch.c: two threads hand a token back and forth %d times through a mutex "
          "and a condition variable (%.2f context switches a handoff), %d runs of each kind, "
          "interleaved; medians:" % (d["params"]["handoffs"], s["switches_per_handoff"],
                                     d["params"]["repeats"]), "",
          "| run | ns per handoff |", "| --- | ---: |",
          "| untraced | %.0f |" % med["untraced"],
          "| `perfgate record --no-offcpu -f handoffs` | %.0f |" % med["no_offcpu"],
          "| `perfgate record -f handoffs` (off-CPU time on) | %.0f |" % med["offcpu"],
          "| untraced, beside a recording of another process | %.0f |"
          % med["untraced_beside_recording"], "",
          "In wall time, off-CPU time added %.0f ns per context switch of the traced process "
          "tree (the difference of the two recordings' medians, over the switches), and a "
          "switch of a process perfgate does not trace, which pays the hooks' filter only, "
          "%+.0f ns: on this shared machine the medians of one kind spread by %.0f%% from "
          "run to run, more than these differences, which the BPF run time below measures "
          "directly." % (s["cost_per_switch_ns"], s["bystander_per_switch_ns"],
                         100 * spread(s["runs"]["untraced"])), ""]
    if d.get("bpf"):
        L += ["The hooks' own BPF run time (kernel.bpf_stats_enabled, during a recording of "
              "the same program): " + ", ".join(
                  "`%s` %.0f ns a run (%.0f runs/s)" % (k, v["ns_per_run"], v["runs_per_s"])
                  for k, v in sorted(d["bpf"].items())) + ".", ""]
    L += ["tests/progs/offcpu.c's `waiter` waits for a lock another thread holds for "
          "PG_HOLD_MS (20 ms in the base run); regressions of `waiter` over %d trials, 10 "
          "repetitions a side:" % d["params"]["trials"], "",
          "| hold time | by self time (default) | by on-CPU self time (`--metric cpu`) |",
          "| --- | --- | --- |"]
    for case, v in d["lock"].items():
        cell = lambda m: "%d of %d" % (sum(x["verdict"] == "regression" for x in v[m]),
                                       len(v[m]))
        L.append("| %s | %s | %s |" % (case, cell("self"), cell("cpu")))
    pairs = d["zstd"]
    fa = {m: sum(p[m]["exit"] == 1 for p in pairs) for m in ("self", "cpu")}
    names = {m: sorted({f["function"] for p in pairs for f in p[m]["flagged"]})
             for m in ("self", "cpu")}
    L += ["", "zstd -3 of an 7.8 MB tar with every function traced (%d functions), %d A/A "
          "pairs of 10 repetitions a side:" % (pairs[0]["functions"] if pairs else 0,
                                               len(pairs)), "",
          "| judged by | false alarms (pairs) | functions flagged |", "| --- | ---: | --- |",
          "| self time (default) | %d of %d | %s |" % (fa["self"], len(pairs),
                                                        ", ".join(names["self"]) or "none"),
          "| on-CPU self time (`--metric cpu`) | %d of %d | %s |"
          % (fa["cpu"], len(pairs), ", ".join(names["cpu"]) or "none"), ""]
    flagged = [f for p in pairs for f in p["self"]["flagged"]]
    if flagged:
        L += ["What compare said of each function self time flagged: " + "; ".join(
            "`%s` %s" % (f["function"], f["reason"].replace("|", "/")) for f in flagged) + "."]
    return L


if __name__ == "__main__":
    res = measure()
    print(json.dumps(res, indent=1))
    print("\n".join(render_lines(res)))
