# SPDX-License-Identifier: MIT
"""Section 11 of the benchmark: the demo, and history check against stored sessions, on this
(noisy, shared) machine: false alarms and power on real recordings (docs/history.md).

measure(pg, tmp) -> dict, render_lines(data) -> Markdown lines.

- Demo: HON_DEMO_RUNS runs of `make demo` (examples/demo/run.sh: perfgate ab of the two builds
  of examples/demo/imgfilter.c); per run its exit, the verdicts of the functions the change
  slowed (blur_row; tone_px, sampled; tone_row, whose self time holds tone_px) and of the
  others, which nothing touched.
- A/A: for the demo's baseline build (`imgfilter 10`, --budget 20 as the demo) and for zstd
  (-3 of a tar of its own source, the build of bench/realworld/fetch.sh, the default
  selection), HON_HISTORY sessions of HON_REPS repetitions stored with `perfgate history add`
  (one commit each), then HON_SESSIONS more sessions recorded one after the other, each checked
  with `perfgate history check` against the stored ones (the same HON_HISTORY every time); a
  false alarm is a check that fails (exit 1). Then the checked sessions are added too and
  `perfgate history changes` scans all of them: every change point it finds is a false one.
- Power: bench/stat.c with target() holding HON_SHARE% of the run (PG_SHARE), HON_HISTORY
  sessions stored, then HON_SESSIONS sessions with target() HON_SLOW% slower (PG_SLOW), each
  checked against the stored ones; found = target's verdict is regression. The slow sessions
  are then added one by one, and after each `history changes --function target` says whether
  it finds target's change point at the first slow session's commit, give or take one.
Every session after the first of a series traces the first one's functions (--functions-of),
as a CI job recording with a stored baseline's selection does.
"""
import json
import os
import subprocess
import sys
import time

def _env(name, default):
    return int(os.environ.get(name, default))


HON_DEMO_RUNS, HON_SESSIONS = _env("HON_DEMO_RUNS", 20), _env("HON_SESSIONS", 20)
HON_HISTORY, HON_REPS = _env("HON_HISTORY", 10), 10
HON_SHARE, HON_SLOW = 5, 8
BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
RW_DIR = os.environ.get("RW_DIR", os.path.join(ROOT, "build", "realworld"))
CLANG = ["clang", "-g", "-fpatchable-function-entry=5"]
# what the demo's change slows: blur_row exactly, tone_px in the samples, tone_row's self time
# holds tone_px
DEMO_CHANGED = ("blur_row", "tone_px", "tone_row")
FLAGS = ("regression", "improvement")
# each check is made with the default gate, with a minimum effect of 2% (what ab's paired
# comparisons use) and on on-CPU self time (time waiting for a CPU left out)
GATES = (("default", []), ("min2", ["--min-effect", "2"]), ("cpu", ["--metric", "cpu"]))


def log(*a):
    print("bench honesty:", *a, file=sys.stderr, flush=True)


def sh(argv, check=True, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        sys.exit("bench honesty: %s failed (%d): %s" % (argv[0], r.returncode, r.stderr[-2000:]))
    return r


def flagged(res, skip=()):
    """The functions (and whole-program lines) of a compare result with a regression or an
    improvement, but those in @skip."""
    return [{"name": f["display"], "verdict": f["verdict"], "change": f["change"]}
            for f in res["functions"] if f["verdict"] in FLAGS and f["name"] not in skip]


def demo_runs():
    runs = []
    out = os.path.join(ROOT, "examples", "demo", "out", "compare.json")
    for i in range(HON_DEMO_RUNS):
        t0 = time.monotonic()
        r = sh(["make", "-C", ROOT, "--no-print-directory", "demo"], check=False)
        sec = time.monotonic() - t0
        with open(out) as f:
            res = json.load(f)
        verdicts = {f["name"]: f["verdict"] for f in res["functions"]}
        run = {"exit": r.returncode, "seconds": sec, "pairs": res.get("npairs"),
               "changed": {n: verdicts.get(n) for n in DEMO_CHANGED},
               "whole": {n: verdicts.get(n) for n in ("cpu-time", "wall-time")},
               "others_flagged": flagged(res, DEMO_CHANGED + ("cpu-time", "wall-time")),
               "others_notable": [f["display"] for f in res["functions"]
                                  if f["verdict"] == "notable"
                                  and f["name"] not in DEMO_CHANGED],
               "loadavg1": os.getloadavg()[0]}
        runs.append(run)
        log("demo", i + 1, run["exit"], run["changed"], run["others_flagged"])
    return runs


class History:
    """A series of sessions of one command in one SQLite file."""

    def __init__(self, pg, work, name, argv, first_opts):
        self.pg, self.work, self.name, self.argv = pg, work, name, argv
        self.first_opts = first_opts
        self.db = os.path.join(work, name + ".db")
        self.first = None
        self.n = 0	# sessions recorded
        self.added = 0	# sessions added

    def record(self, extra_env=()):
        path = os.path.join(self.work, "%s-%d.json" % (self.name, self.n))
        sel = self.first_opts if self.first is None else ["--functions-of", self.first]
        sh([self.pg, "-q", "record", "-o", path, "-r", str(HON_REPS)] + sel + ["--"] +
           list(extra_env) + self.argv)
        if self.first is None:
            self.first = path
        self.n += 1
        return path

    def add(self, path):
        self.added += 1
        sh([self.pg, "-q", "history", "add", path, "--db", self.db, "--branch", "main",
            "--commit", "%040x" % self.added,
            "--time", "2026-01-%02dT%02d:00:00Z" % (1 + self.added // 24, self.added % 24)])

    def check(self, path, opts=()):
        cj = os.path.join(self.work, self.name + ".check.json")
        r = sh([self.pg, "history", "check", path, "--db", self.db, "--json", cj] + list(opts),
               check=False)
        if r.returncode not in (0, 1):
            sys.exit("bench honesty: history check failed: " + r.stderr[-2000:])
        with open(cj) as f:
            res = json.load(f)
        return r.returncode, res

    def changes(self, glob=None):
        cj = os.path.join(self.work, self.name + ".changes.json")
        sh([self.pg, "history", "changes", "--db", self.db, "--json", cj] +
           (["--function", glob] if glob else []), check=False)
        with open(cj) as f:
            res = json.load(f)
        return [{"name": c["display"], "session": c["session"], "change": c["change"],
                 "regression": c["regression"]} for c in res["changes"]]


def aa(pg, work, name, argv, first_opts):
    h = History(pg, work, name, argv, first_opts)
    for _ in range(HON_HISTORY):
        h.add(h.record())
    with open(h.first) as f:
        nfuncs = len(json.load(f)["functions"])
    checks, news = [], []
    for i in range(HON_SESSIONS):
        path = h.record()
        c = {}
        for gate, opts in GATES:
            rc, res = h.check(path, opts)
            c[gate] = {"exit": rc, "overall": res["overall"], "flagged": flagged(res)}
        checks.append(c)
        news.append(path)
        log(name, "A/A", i + 1, {g: (c[g]["exit"], c[g]["flagged"]) for g in c})
    for path in news:
        h.add(path)
    return {"functions": nfuncs, "checks": checks, "changes": h.changes()}


def power(pg, work):
    stat = os.path.join(work, "stat")
    sh(CLANG + ["-O1", "-fno-inline", "-o", stat, os.path.join(BENCH, "stat.c")])
    share = "PG_SHARE=%d" % HON_SHARE
    h = History(pg, work, "stat", [stat], ["-f", "target", "-f", "stage_*"])
    for _ in range(HON_HISTORY):
        h.add(h.record([share]))
    checks, news = [], []
    for i in range(HON_SESSIONS):
        path = h.record([share, "PG_SLOW=%d" % HON_SLOW])
        c = {}
        for gate, opts in GATES:
            rc, res = h.check(path, opts)
            t = [f for f in res["functions"] if f["name"] == "target"]
            c[gate] = {"exit": rc, "target": t[0]["verdict"] if t else None,
                       "change": t[0]["change"] if t else None,
                       "ci": [t[0]["ci_lo"], t[0]["ci_hi"]] if t else None,
                       "others_flagged": [x for x in flagged(res) if x["name"] != "target"]}
        checks.append(c)
        news.append(path)
        log("stat power", i + 1, {g: (c[g]["target"], c[g]["change"]) for g in c})
    after = []
    for k, path in enumerate(news, 1):
        h.add(path)
        cps = h.changes("target")
        after.append({"slow_sessions": k, "changes": cps,
                      "found": any(abs(c["session"] - HON_HISTORY) <= 1 and c["regression"]
                                   for c in cps)})
        log("stat changes after", k, "slow sessions:", cps)
    return {"checks": checks, "changes_after": after, "changes_all": h.changes()}


def zstd_argv(work):
    zstd = os.path.join(RW_DIR, "src", "zstd", "tree", "programs", "zstd")
    corpus = os.path.join(RW_DIR, "corpus.tar")
    if not (os.path.exists(zstd) and os.path.exists(corpus)):
        sh([os.path.join(BENCH, "realworld", "fetch.sh"), "zstd"], env=dict(os.environ,
                                                                            RW_DIR=RW_DIR))
        if not os.path.exists(corpus):
            tree = os.path.join(RW_DIR, "src", "zstd", "tree")
            sh(["tar", "-C", tree, "-cf", corpus, "lib", "programs"])
    return [zstd, "-q", "-3", "-f", corpus, "-o", os.path.join(work, "out.zst")]


def measure(pg, tmp):
    work = os.path.join(tmp, "honesty")
    os.makedirs(work, exist_ok=True)
    res = {"params": {"demo_runs": HON_DEMO_RUNS, "sessions": HON_SESSIONS,
                      "history": HON_HISTORY, "repetitions": HON_REPS, "share": HON_SHARE,
                      "slow": HON_SLOW, "nproc": os.cpu_count()}}
    want = os.environ.get("HON_PARTS", "demo aa-demo aa-zstd power").split()
    if "demo" in want:
        log("make demo x %d" % HON_DEMO_RUNS)
        res["demo"] = demo_runs()
    if "aa-demo" in want:
        img = os.path.join(work, "imgfilter")
        sh(CLANG + ["-O2", "-o", img, os.path.join(ROOT, "examples", "demo", "imgfilter.c")])
        res["aa_demo"] = aa(pg, work, "demo", [img, "10"], ["--budget", "20"])
    if "aa-zstd" in want:
        res["aa_zstd"] = aa(pg, work, "zstd", zstd_argv(work), [])
    if "power" in want:
        res["power"] = power(pg, work)
    return res


def names(flags):
    return ", ".join("%s %s %+.1f%%" % (f["name"], f["verdict"], 100 * f["change"])
                     for f in flags)


def render_demo(d, p):
    runs = d["demo"]
    n = len(runs)
    bad = [r for r in runs if r["others_flagged"]]
    caught = {c: sum(1 for r in runs if r["changed"][c] == "regression") for c in DEMO_CHANGED}
    secs = sorted(r["seconds"] for r in runs)
    pairs = sorted(r["pairs"] for r in runs if r["pairs"])
    L = ["**The demo.** %d runs of `make demo` one after the other (`perfgate ab` of the two "
         "builds, 20 pairs of `imgfilter 10`, `--budget 20 -F 999`): exit 0 (the regression "
         "found, as the demo expects) in %d; untouched functions flagged (regression or "
         "improvement: `fill_row`, `sharpen_row`, `checksum_row`, `process_image`, `main`) in "
         "%d of %d runs; notable (reported, never a failure) in %d. The changed functions "
         "found: `blur_row` %d/%d, `tone_px` (sampled) %d/%d, `tone_row` (whose self time "
         "holds `tone_px`) %d/%d; the whole program's CPU time %d/%d. A run took %.0f-%.0f s "
         "(median %.0f s)."
         % (n, sum(1 for r in runs if r["exit"] == 0), len(bad), n,
            sum(1 for r in runs if r["others_notable"]), caught["blur_row"], n,
            caught["tone_px"], n, caught["tone_row"], n,
            sum(1 for r in runs if r["whole"]["cpu-time"] == "regression"), n,
            secs[0], secs[-1], secs[len(secs) // 2])]
    for r in bad:
        L[-1] += " Flagged: %s." % names(r["others_flagged"])
    return L + [""]


GATE_TITLE = {"default": "default gate (min effect 5%)", "min2": "`--min-effect 2`",
              "cpu": "`--metric cpu`"}


def gates(checks):
    """The gates the checks were made with (a run before `--metric cpu` has two)."""
    return [g for g in GATE_TITLE if checks and g in checks[0]]


def render_aa(title, a, gate):
    checks = [c[gate] for c in a["checks"]]
    fa = [c for c in checks if c["exit"] == 1]
    fl = [c for c in checks if c["flagged"]]
    s = ("| %s | %s | %d | %d/%d | %d/%d |"
         % (title, GATE_TITLE[gate], a["functions"], len(fa), len(checks), len(fl),
            len(checks)))
    if not fl:
        return s, []
    flags = [f for c in fl for f in c["flagged"]]
    kinds = {}
    for f in flags:
        kinds[f["name"]] = kinds.get(f["name"], 0) + 1
    most = sorted(kinds.items(), key=lambda x: (-x[1], x[0]))[:4]
    changes = sorted(f["change"] for f in flags)
    note = ("%s, %s: %d function verdicts in %d checks (%d to %d a check), %d regressions and "
            "%d improvements, %+.1f%% to %+.1f%%; most often %s"
            % (title, GATE_TITLE[gate], len(flags), len(fl),
               min(len(c["flagged"]) for c in fl), max(len(c["flagged"]) for c in fl),
               sum(1 for f in flags if f["verdict"] == "regression"),
               sum(1 for f in flags if f["verdict"] == "improvement"),
               100 * changes[0], 100 * changes[-1],
               ", ".join("`%s` (%d)" % m for m in most)))
    return s, [note]


def power_figures(pw, gate):
    ch = [c[gate] for c in pw["checks"]]
    found = sum(1 for c in ch if c["target"] == "regression")
    changes = sorted(c["change"] for c in ch if c["change"] is not None)
    lows = sorted(c["ci"][0] for c in ch if c["ci"])
    return ch, found, changes, lows


def render_lines(d):
    p = d["params"]
    L = []
    if "demo" in d:
        L += render_demo(d, p)
    rows, notes, cps = [], [], []
    for key, title in (("aa_demo", "demo (`imgfilter 10`, `--budget 20`)"),
                       ("aa_zstd", "zstd -3 (default selection)")):
        if key not in d:
            continue
        for gate in gates(d[key]["checks"]):
            r, n = render_aa(title, d[key], gate)
            rows.append(r)
            notes += n
        cps.append("%s: %s" % (title, ", ".join(
            "%s at session %d (%+.1f%%)" % (c["name"], c["session"], 100 * c["change"])
            for c in d[key]["changes"]) or "none"))
    if rows:
        L += ["**A/A against a stored history.** %d sessions of %d repetitions stored "
              "(`history add`, one commit each), then %d sessions recorded one after the "
              "other, each checked with `history check` against those %d (with each gate "
              "of the table); a check failed: exit 1; a function flagged: "
              "a regression or an improvement."
              % (p["history"], p["repetitions"], p["sessions"], p["history"]), "",
              "| program | gate | functions traced | checks failed | checks with a function "
              "flagged |",
              "| --- | --- | ---: | ---: | ---: |"] + rows + [""]
        if notes:
            L += ["- " + n for n in notes] + [""]
        L += ["Then all %d sessions in the history and `history changes` over them (every "
              "change point a false one): %s." % (p["history"] + p["sessions"],
                                                   "; ".join(cps)), ""]
    if "power" in d:
        pw = d["power"]
        txt = []
        for gate in gates(pw["checks"]):
            ch, found, changes, lows = power_figures(pw, gate)
            oth = [c for c in ch if c["others_flagged"]]
            txt.append("%s: a regression in %d/%d checks, an untouched function flagged in %d%s"
                       % (GATE_TITLE[gate], found, len(ch), len(oth),
                          " (%s)" % "; ".join(names(c["others_flagged"]) for c in oth)
                          if oth else ""))
        ch, found, changes, lows = power_figures(pw, "default")
        held = [a["slow_sessions"] for a in pw["changes_after"] if a["found"]]
        L += ["**Power.** bench/stat.c with `target` holding %d%% of the run (`PG_SHARE=%d`, "
              "`-f target -f 'stage_*'`): %d sessions stored, then %d sessions with `target` "
              "%d%% slower (`PG_SLOW=%d`), each checked against the stored ones. `target`'s "
              "estimated change %+.1f%% to %+.1f%% (median %+.1f%%), the low end of its "
              "interval %+.1f%% to %+.1f%% (median %+.1f%%); %s."
              % (p["share"], p["share"], p["history"], p["sessions"], p["slow"], p["slow"],
                 100 * changes[0], 100 * changes[-1], 100 * changes[len(changes) // 2],
                 100 * lows[0], 100 * lows[-1], 100 * lows[len(lows) // 2], "; ".join(txt)),
              "",
              "The slow sessions then added one by one, and `history changes --function "
              "target` after each: the change point at the first slow session's commit (+-1) "
              "found in %d of the %d scans (%s); over all %d sessions, change points of any "
              "function: %s."
              % (len(held), len(pw["changes_after"]),
                 ("from %d slow sessions on" % held[0]
                  if held == list(range(held[0], len(pw["changes_after"]) + 1)) else
                  "after %s slow sessions" % ", ".join(map(str, held))) if held else "none",
                 p["history"] + p["sessions"],
                 ", ".join("%s at session %d (%+.1f%%)" % (c["name"], c["session"],
                                                         100 * c["change"])
                           for c in pw["changes_all"]) or "none"), ""]
    t = []
    aa = [c["default"] for k in ("aa_demo", "aa_zstd") for c in d.get(k, {}).get("checks", [])]
    if aa:
        t.append("0 false alarms in the A/A checks (%s): %s"
                 % (", ".join("%s %d" % (k[3:], len(d[k]["checks"]))
                              for k in ("aa_demo", "aa_zstd") if k in d),
                    "met" if not any(c["exit"] == 1 for c in aa) else "missed"))
    if "power" in d:
        ch, found, changes, lows = power_figures(d["power"], "default")
        oth = sum(1 for c in ch if any(f["verdict"] == "regression"
                                       for f in c["others_flagged"]))
        if oth:
            t[-1] += (", but an untouched function failed %d of the %d checks of the power "
                      "series" % (oth, len(ch)))
        t.append("an %d%% slowdown of a function holding %d%% of the run found by "
                 "`history check` in at least 19 of 20: %s (%d/%d)"
                 % (p["slow"], p["share"], "met" if found * 20 >= 19 * len(ch) else "missed",
                    found, len(ch)))
        last = d["power"]["changes_after"][-1]
        t.append("and by `history changes` at the right commit +-1: %s"
                 % ("met" if last["found"] else "missed"))
    if "demo" in d:
        runs = d["demo"]
        t.append("0 untouched functions flagged in %d runs of `make demo`: %s"
                 % (len(runs), "met" if not any(r["others_flagged"] for r in runs)
                    else "missed"))
    if t:
        L += ["Targets: " + "; ".join(t) + "."]
    return L
