#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/inline.py - which function a verdict names when the compiler inlined a helper into
many places: the "inline" section of the benchmark suite.

tests/progs/inline_mix.c has one static inline mix() that gcc -O2 inlines into leaf() (~20% of
the run), sixteen spread_N() (~20% together) and outer() (the rest). Three changes, each gated
INL_SESSIONS times (default 20) with `perfgate ab` of the base build against the change:

  leaf     leaf's call of mix does 15% more rounds: the gate must name leaf (or a caller of it)
           and nothing else; never mix;
  spread   every spread_N's does 15% more: spread functions, their caller or the program,
           never mix alone;
  aa       the base against itself: nothing flagged, exit 0.

Each change is gated two ways: "defaults" (`perfgate ab` with no options: the budget traces
what it can afford, here leaf exactly) and "sampled" (`-f outer -F 1999`: leaf and spread_N
judged from their samples, which is where inlined frames used to pool; at the default rate a
100 ms run gives leaf ~4 samples a repetition, too few for a sampled verdict). Every
session's regressions are kept with their origin and object; a sampled verdict without an
object is counted.

measure() returns a dict and render_lines() the Markdown; bench/measure.py and
bench/render.py call them for the "inline" section. Environment: INL_SESSIONS (20),
INL_MODES ("defaults sampled").
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
PG = os.environ.get("PERFGATE", os.path.join(TOP, "perfgate"))
SESSIONS = int(os.environ.get("INL_SESSIONS", "20"))
MODES = os.environ.get("INL_MODES", "defaults sampled").split()
MODE_ARGS = {"defaults": [], "sampled": ["-f", "outer", "-F", "1999"]}
CHANGES = (("leaf", "leaf"), ("spread", "spread"), ("aa", None))
# what each change may name besides itself: callers and the program's own lines
ALLOWED = {"leaf": {"leaf", "main"},
           "spread": {"main"} | {"spread_%d" % i for i in range(16)},
           "aa": set()}
PROGRAM = {"[program]", "cpu-time", "wall-time"}


def log(*a):
    print("inline:", *a, file=sys.stderr, flush=True)


def build(work):
    exe = os.path.join(work, "inline_mix")
    subprocess.run(["gcc", "-O2", "-g", "-o", exe, os.path.join(TOP, "tests", "progs",
                                                                 "inline_mix.c")], check=True)
    return exe


def session(exe, change, mode, out):
    new = exe if change is None else "%s %s" % (exe, change)
    argv = [PG, "ab", "-q", "-o", out] + MODE_ARGS[mode] + [exe, new]
    r = subprocess.run(argv, capture_output=True, text=True, cwd=os.path.dirname(exe))
    if r.returncode == 2:
        raise RuntimeError("%s failed: %s" % (argv, r.stderr[-2000:]))
    res = json.load(open(os.path.join(out, "compare.json")))
    regs, empty = [], 0
    for f in res["functions"]:
        if f.get("origin") == "sampled" and not f.get("binary"):
            empty += 1
        if f["verdict"] == "regression":
            regs.append({"name": f["name"], "origin": f.get("origin", "exact"),
                         "binary": f.get("binary", ""), "change": f.get("change")})
    return {"exit": r.returncode, "regressions": regs, "empty_objects": empty,
            "overall": res.get("overall")}


def judge(kind, s):
    """Did session @s of change @kind name what it must, and only that?"""
    names = {r["name"] for r in s["regressions"]} - PROGRAM
    if kind == "aa":
        return s["exit"] == 0 and not s["regressions"]
    if "mix" in names or any(n.startswith("mix") for n in names):
        return False
    if not names <= ALLOWED[kind]:
        return False
    if kind == "leaf":
        return "leaf" in names
    return True		# spread: any of them, or the program, or nothing (inconclusive)


def measure():
    work = tempfile.mkdtemp(prefix="pg-inline-")
    exe = build(work)
    out = {"params": {"sessions": SESSIONS, "modes": MODES}, "rows": []}
    for mode in MODES:
        for kind, arg in CHANGES:
            row = {"mode": mode, "change": kind, "sessions": []}
            for i in range(SESSIONS):
                s = session(exe, arg, mode, os.path.join(work, "%s-%s-%d" % (mode, kind, i)))
                s["ok"] = judge(kind, s)
                row["sessions"].append(s)
                log(mode, kind, i + 1, s["exit"], [r["name"] for r in s["regressions"]],
                    "ok" if s["ok"] else "MISS")
            out["rows"].append(row)
    return out


def names_of(row):
    seen = {}
    for s in row["sessions"]:
        for r in s["regressions"]:
            seen[r["name"]] = seen.get(r["name"], 0) + 1
    return ", ".join("`%s` %d" % (n, c) for n, c in sorted(seen.items(),
                                                          key=lambda kv: (-kv[1], kv[0])))


TARGETS = {"leaf": "leaf named, nothing but callers: at least 19 of 20",
           "spread": "never mix, only spread functions, callers or the program: 20 of 20",
           "aa": "nothing flagged: 20 of 20"}


def render_lines(d):
    p = d["params"]
    L = ["`tests/progs/inline_mix.c` (gcc -O2 -g: a static inline `mix()` inlined into "
         "`leaf()`, ~20%% of the run, sixteen `spread_N()`, ~20%% together, and `outer()`, the "
         "rest), each change gated in %d `perfgate ab` sessions: *defaults* with no options "
         "(the budget traces leaf exactly), *sampled* with `-f outer -F 1999` (leaf and spread_N "
         "judged from their samples). A session is right when it names what the change "
         "must and nothing else (the target column)." % p["sessions"], "",
         "| mode | change | right | failed builds | PASS, INCONCLUSIVE | named (sessions) | "
         "sampled verdicts without an object | target |",
         "| --- | --- | ---: | ---: | ---: | --- | ---: | --- |"]
    for row in d["rows"]:
        ss = row["sessions"]
        said = "n/a" if any("overall" not in s for s in ss) else "%d, %d" % (
            sum(s["overall"] == "pass" for s in ss),
            sum(s["overall"] == "inconclusive" for s in ss))
        L.append("| %s | %s | %d / %d | %d | %s | %s | %d | %s |" % (
            row["mode"], row["change"], sum(s["ok"] for s in ss), len(ss),
            sum(s["exit"] == 1 for s in ss), said, names_of(row) or "nothing",
            sum(s["empty_objects"] for s in ss), TARGETS[row["change"]]))
    return L


if __name__ == "__main__":
    res = measure()
    print(json.dumps(res, indent=1))
    print("\n".join(render_lines(res)))
