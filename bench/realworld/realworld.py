#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/realworld/realworld.py - perfgate's default flow on real programs.

Real programs built from their Debian source packages with their own build systems and default
flags (bench/realworld/fetch.sh: zstd, leveldb, lz4, jq and spdlog, each as Debian ships it and
with one known change; jq twice: its parser on a large input, its interpreter on a loop of tiny
calls; spdlog's formatter-bench, a Google Benchmark suite, docs/gbench.md), and perfgate's own
demo (examples/demo, built as its run.sh builds it, run at perfgate's defaults rather than
run.sh's --budget 20 -F 999). For each program this measures what a user of the default flow
gets:

  overhead   the traced repetitions of each A/A session (their median wall_ns) against
             untraced runs of the same command right before and right after that session
             (RW_BRACKET each): the median over sessions of that ratio. The machine's speed
             moves by 20% within minutes here, so untraced runs timed apart from the traced
             ones would measure the machine, not the probes;
  A/A        RW_PAIRS pairs of the default CI flow on the same build (baseline with the
             default selection, change with --functions-of the baseline, compare): a pair
             whose compare exits 1 is a false alarm; the functions it named are listed;
  change     the same flow from the base build to the changed build, RW_CHANGES times: the
             functions flagged, each classed as 'changed' (declared in the changed source
             file; the demo's, all in one file: those whose machine code differs), 'caller' (a caller of a changed function on the sampled stacks) or
             'untouched'; the change is found when every session flags it;
  time       the wall time of the whole gate (two recordings and the comparison).

A Google Benchmark program (spdlog) is also judged benchmark by benchmark: the suite's own
figures (GB_PAIRS untraced runs of each build, interleaved, their CPU time per iteration) say
which benchmarks the change slows ("affected": the median of the pairs' changes at least
GB_AFFECTED and every pair slower); each session's benchmark verdicts are checked against that.

Each program is gated two ways, each its own rows: "sequential" (two recordings one after the
other, as above) and "ab" (`perfgate ab` at its defaults: both commands' repetitions
interleaved in one session, compared pair by pair; skipped when this perfgate has no `ab`).

measure() returns a dict (JSON-able) and render() turns it into Markdown; run alone
(`realworld.py [PROGRAM...]`) it prints both. Environment: PERFGATE (the binary, default
./perfgate), RW_REPS (repetitions a side, default 10), RW_PAIRS (A/A pairs, default 10),
RW_CHANGES (sessions of the change, default 3), RW_GB_PAIRS (untraced pairs of a Google
Benchmark program's builds, default 5), RW_SELECTIONS (one-repetition recordings
whose default selections are compared, for stability, default 10), RW_FLOWS (the flows to
measure, default "ab sequential"), RW_BRACKET (untraced runs before and after
each A/A session, default 3), RW_DIR (the build cache, default build/realworld). The files of every A/A false alarm and of
every change session that flagged nothing are kept under RW_DIR/alarms/ for a closer look
(RW_KEEP=all: of every session).
"""
import itertools
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PERFGATE = os.environ.get("PERFGATE", os.path.join(TOP, "perfgate"))
RW_DIR = os.environ.get("RW_DIR", os.path.join(TOP, "build", "realworld"))
REPS = int(os.environ.get("RW_REPS", "10"))
PAIRS = int(os.environ.get("RW_PAIRS", "10"))
CHANGES = int(os.environ.get("RW_CHANGES", "3"))
BRACKET = int(os.environ.get("RW_BRACKET", "3"))
SELECTIONS = int(os.environ.get("RW_SELECTIONS", "10"))
FLOWS = os.environ.get("RW_FLOWS", "ab sequential").split()
GB_PAIRS = int(os.environ.get("RW_GB_PAIRS", "5"))
KEEP_ALL = os.environ.get("RW_KEEP") == "all"
GB_AFFECTED = 0.05	# a benchmark the change slows by this much, by its own figures
GB_BINARY = "[benchmark]"	# a compare result's benchmark entries (docs/compare-format.md)


def log(*a):
    print("realworld:", *a, file=sys.stderr, flush=True)


# each program: the package fetch.sh builds, and which of its lines are the base and change
PACKAGES = {"zstd": ("zstd", 0, 1), "leveldb": ("leveldb", 0, 1), "lz4": ("lz4", 0, 1),
            "jq": ("jq", 0, 1), "jq-interp": ("jq", 0, 2), "spdlog": ("spdlog", 0, 1)}


DEMO_SRC = os.path.join(TOP, "examples", "demo", "imgfilter.c")
DEMO_FRAMES = "50"	# frames a run: ~0.55 s untraced here (11 ms a frame)


def demo_cflags():
    """The compiler flags examples/demo/run.sh builds the demo with (its CFLAGS line)."""
    with open(os.path.join(TOP, "examples", "demo", "run.sh")) as f:
        for line in f:
            if line.startswith("CFLAGS="):
                return shlex.split(line.split("=", 1)[1])[0].split()
    raise RuntimeError("examples/demo/run.sh sets no CFLAGS")


def build_demo():
    """The demo's two builds as run.sh makes them (clang, its CFLAGS; the change -DDEMO_SLOW)
    under RW_DIR/demo/{base,new}/imgfilter, rebuilt when the source is newer."""
    bins = []
    for side, extra in (("base", []), ("new", ["-DDEMO_SLOW"])):
        out = os.path.join(RW_DIR, "demo", side, "imgfilter")
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(DEMO_SRC):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            subprocess.run(["clang", *demo_cflags(), *extra, "-o", out, DEMO_SRC], check=True)
        bins.append(out)
    return tuple(bins)


def build(names):
    """Fetch and build the packages of @names; {program: (base binary, changed binary)}."""
    lines = {}
    built = {n: build_demo() for n in names if n == "demo"}
    names = [n for n in names if n != "demo"]
    for pkg in dict.fromkeys(PACKAGES[n][0] for n in names):
        lines[pkg] = subprocess.run([os.path.join(HERE, "fetch.sh"), pkg], check=True,
                                    text=True, stdout=subprocess.PIPE).stdout.split()
    built.update({n: (lines[PACKAGES[n][0]][PACKAGES[n][1]],
                      lines[PACKAGES[n][0]][PACKAGES[n][2]]) for n in names})
    return built


def corpus_tar():
    """The compressors' input, made once: zstd's own lib/ and programs/ as a tar (~7.8 MB)."""
    corpus = os.path.join(RW_DIR, "corpus.tar")
    if not os.path.exists(corpus):
        tree = os.path.join(RW_DIR, "src", "zstd", "tree")
        subprocess.run(["tar", "-C", tree, "-cf", corpus, "lib", "programs"], check=True)
    return corpus


def zstd_program(bins, work):
    corpus = corpus_tar()
    out = os.path.join(work, "out.zst")
    return {"name": "zstd", "changed_file": "lib/compress/huf_compress.c",
            "change": "huf_compress.c at -O1",
            "argv": lambda b: [b, "-q", "-3", "-f", corpus, "-o", out],
            "bins": bins}


def leveldb_program(bins, work):
    db = os.path.join(work, "bench.db")
    return {"name": "leveldb", "changed_file": "table/block_builder.cc",
            "change": "block_builder.cc at -O0",
            "argv": lambda b: [b, "--benchmarks=fillseq,readrandom", "--num=50000",
                               "--db=" + db],
            "bins": bins}


def lz4_program(bins, work):
    corpus = corpus_tar()
    big = os.path.join(RW_DIR, "corpus3.tar")	# three copies: a ~60 ms run
    if not os.path.exists(big):
        with open(big + ".tmp", "wb") as out:
            for _ in range(3):
                with open(corpus, "rb") as f:
                    shutil.copyfileobj(f, out)
        os.replace(big + ".tmp", big)
    out = os.path.join(work, "out.lz4")
    return {"name": "lz4", "changed_file": "lib/lz4.c", "change": "lz4.c at -O1",
            "argv": lambda b: [b, "-q", "-1", "-f", big, out],
            "bins": bins}


def jq_input():
    """jq's input, made once: a JSON array of 250,000 small records (~25 MB)."""
    path = os.path.join(RW_DIR, "jq-big.json")
    if not os.path.exists(path):
        import random
        rng = random.Random(1)
        recs = [{"x": rng.randint(0, 9), "name": "item%d" % i, "v": rng.random() * 1000,
                 "tags": ["a", "b", "c"][:rng.randint(0, 3)], "ok": bool(i % 2)}
                for i in range(250000)]
        with open(path + ".tmp", "w") as f:
            json.dump(recs, f)
        os.replace(path + ".tmp", path)
    return path


def jq_program(bins, work):
    """jq as its developers run it from the build tree: ./jq, a libtool wrapper script, with
    the time in the build's own libjq.so.1 (Debian's libjq1, of the same soname, is installed
    beside it); the change is the JSON parser's source file."""
    data = jq_input()
    return {"name": "jq", "changed_file": "src/jv_parse.c", "change": "jv_parse.c at -O0",
            "argv": lambda b: [b, "-c", "map(select(.x > 3)) | length", data],
            "bins": bins}


def jq_interp_program(bins, work):
    """jq's interpreter on a loop of a million tiny calls; the change is the interpreter."""
    return {"name": "jq-interp", "changed_file": "src/execute.c", "change": "execute.c at -O1",
            "argv": lambda b: [b, "-n", "[range(1000000)] | map(.*2) | add"],
            "bins": bins}


def spdlog_program(bins, work):
    """spdlog's formatter-bench, the issue's command: it takes one argument of its own, so
    its filter goes through Google Benchmark's environment; the change is the compiled
    library's one source file, the pattern formatter."""
    return {"name": "spdlog", "changed_file": "src/spdlog.cpp", "change": "spdlog.cpp at -Os",
            "argv": lambda b: ["BENCHMARK_FILTER=%Y-%m-%d", b, "all"],
            "bins": bins, "gbench": True,
            # its formatters are template instances, weak symbols of spdlog.cpp's object
            "weak": True}


def code_of(binary):
    """{function: its instructions} of @binary's .text, with what a rebuild moves taken out:
    each instruction's address, the address before a symbol (a call's or a jump's target is
    kept as <symbol+offset>), RIP-relative displacements and objdump's comments."""
    out = run(["objdump", "-d", "--no-show-raw-insn", "--section=.text", binary]).stdout
    fns, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = fns.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
        if m and cur is not None:
            ins = re.sub(r"\b[0-9a-f]+ <([^>]+)>", r"<\1>", m.group(1))
            ins = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "(%rip)", ins)
            cur.append(re.sub(r"#.*$", "", ins).strip())
    return fns


def differing_functions(base_bin, new_bin):
    """The functions of both builds whose machine code differs (code_of())."""
    a, b = code_of(base_bin), code_of(new_bin)
    return {f for f in a if f in b and a[f] != b[f]}


def demo_program(bins, work):
    """perfgate's own demo (examples/demo), built as run.sh builds it and gated at perfgate's
    defaults (run.sh itself asks for --budget 20 -F 999). All its functions are in one file,
    so the changed file says nothing: the changed functions are those whose machine code
    differs between the two builds (differing_functions(): blur_row, 7 taps instead of 5,
    and tone_px, 13 rounds instead of 10, the two -DDEMO_SLOW slows); the others are
    classed by the stacks as the other programs' are (tone_row and process_image callers,
    fill_row, sharpen_row and checksum_row untouched)."""
    changed = differing_functions(*bins)
    if changed != {"blur_row", "tone_px"}:
        log("demo: the builds differ in", sorted(changed), "(run.sh's change: blur_row, tone_px)")
    return {"name": "demo", "changed_file": "examples/demo/imgfilter.c",
            "change": "-DDEMO_SLOW: blur_row and tone_px slower",
            "argv": lambda b: [b, DEMO_FRAMES], "bins": bins, "changed_functions": changed}


PROGRAMS = {"zstd": zstd_program, "leveldb": leveldb_program, "lz4": lz4_program,
            "jq": jq_program, "jq-interp": jq_interp_program, "spdlog": spdlog_program,
            "demo": demo_program}


def plain(argv):
    """@argv runnable without perfgate: its leading NAME=value words through env."""
    return ["env", *argv] if "=" in argv[0] and "/" not in argv[0].split("=")[0] else argv


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def untraced(argv, n):
    """The wall times of @n untraced runs of @argv."""
    walls = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(plain(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        walls.append(time.monotonic() - t0)
    return walls


def record(out, argv, extra=()):
    t0 = time.monotonic()
    r = run([PERFGATE, "record", "-q", "-r", str(REPS), "-o", out, *extra, "--", *argv])
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("record failed (%d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
    with open(out) as f:
        run_file = json.load(f)
    reps = [rep["wall_ns"] / 1e9 for rep in run_file["repetitions"]]
    return {"wall": wall, "rep_median": statistics.median(reps),
            "functions": len(run_file["functions"]), "stderr": r.stderr}


def compare(base, new, out):
    t0 = time.monotonic()
    r = run([PERFGATE, "compare", base, new, "--json", out])
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):
        raise RuntimeError("compare failed (%d): %s" % (r.returncode, r.stderr.strip()))
    with open(out) as f:
        res = json.load(f)
    flagged = [fn for fn in res["functions"] if fn["verdict"] == "regression"]
    return {"exit": r.returncode, "wall": wall, "flagged": flagged, "result": res}


def gate(base_argv, new_argv, work, tag):
    """The default CI flow: baseline, change with the baseline's functions, compare."""
    b, n, c = (os.path.join(work, tag + s) for s in ("-base.json", "-new.json", "-cmp.json"))
    t0 = time.monotonic()
    rb = record(b, base_argv)
    rn = record(n, new_argv, ["--functions-of", b])
    rc = compare(b, n, c)
    return {"base": rb, "new": rn, "cmp": rc, "wall": time.monotonic() - t0, "files": (b, n),
            "cmp_file": c}


def selections(argv, work):
    """The default selection of @argv in SELECTIONS recordings of one repetition each: how
    many chose the set chosen most often, and the sets' sizes."""
    sets = []
    for i in range(SELECTIONS):
        out = os.path.join(work, "sel%d.json" % i)
        r = run([PERFGATE, "record", "-q", "-r", "1", "-o", out, "--", *argv])
        if r.returncode != 0:
            raise RuntimeError("record failed (%d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
        with open(out) as f:
            sets.append(tuple(sorted(fn["display"] for fn in json.load(f)["functions"])))
    top = max(set(sets), key=sets.count)
    return {"runs": len(sets), "same": sets.count(top), "sizes": [len(x) for x in sets],
            "top": list(top)}


def keep_alarm(g, tag):
    """Copy the run files of an A/A false alarm (or a missed change) and its comparison to
    RW_DIR/alarms/TAG, for a look at its per-repetition values later; returns that directory."""
    d = os.path.join(RW_DIR, "alarms", time.strftime("%Y%m%d-%H%M%S-") + tag)
    os.makedirs(d, exist_ok=True)
    for f in (*g["files"], g["cmp_file"]):
        shutil.copy(f, d)
    return d


def has_ab():
    return run([PERFGATE, "ab", "--help"]).returncode == 0


def gate_ab(base_argv, new_argv, work, tag):
    """perfgate ab at its defaults: one interleaved session, compared pair by pair."""
    d = os.path.join(work, tag + "-ab")
    t0 = time.monotonic()
    r = run([PERFGATE, "ab", "-q", "-o", d, shlex.join(base_argv), shlex.join(new_argv)])
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):
        raise RuntimeError("ab failed (%d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
    files = (os.path.join(d, "base.json"), os.path.join(d, "new.json"))
    with open(os.path.join(d, "compare.json")) as f:
        res = json.load(f)
    with open(files[0]) as f:
        base = json.load(f)
    walls = [rep["wall_ns"] / 1e9 for rep in base["repetitions"]]
    flagged = [fn for fn in res["functions"] if fn["verdict"] == "regression"]
    return {"base": {"rep_median": statistics.median(walls),
                     "functions": len(base["functions"])},
            "cmp": {"exit": r.returncode, "flagged": flagged, "result": res,
                    "pairs": res.get("npairs")},
            "wall": wall, "files": files, "cmp_file": os.path.join(d, "compare.json")}


def changed_functions(run_path, changed_file):
    """Functions declared in @changed_file, traced or seen on the run's sampled stacks
    (its functions' and frame_sources' declaration files, docs/run-format.md)."""
    with open(run_path) as f:
        run = json.load(f)
    out = {fn[k] for fn in run["functions"] for k in ("display", "name")
           if (fn.get("file") or "").endswith(changed_file)}
    out |= {src[0] for src in run.get("frame_sources", [])
            if len(src) > 1 and (src[1] or "").endswith(changed_file)}
    return out


def object_symbols(new_bin, changed_file, weak=False):
    """The functions defined in the object file the changed source compiled to (found under
    the changed build's directory: huf_compress.o, block_builder.cc.o), by their symbol and
    demangled names: what the change touched, whether or not the build has DWARF (zstd's
    default flags have none, so the declaration files above are unknown there). @weak: its
    weak symbols too (the template instances a header-only library's compiled file holds)."""
    stem = os.path.basename(changed_file)
    want = (os.path.splitext(stem)[0] + ".o", stem + ".o")
    # the binary's directory, then the tree above it (lz4's tool links ../lib/lz4.o)
    here = os.path.dirname(new_bin)
    for root, _, files in itertools.chain(os.walk(here), os.walk(os.path.dirname(here))):
        for f in files:
            if f in want:
                obj = os.path.join(root, f)
                out = set()
                for demangle in ([], ["-C"]):
                    r = run(["nm", "--defined-only", *demangle, obj])
                    for line in r.stdout.splitlines():
                        parts = line.split(" ", 2)
                        if len(parts) == 3 and parts[1] in ("tTwW" if weak else "tT"):
                            out.add(parts[2])
                return out
    return set()


def folded_stacks(run_path):
    """The run's sampled stacks, each a list of frames, root first."""
    r = run([PERFGATE, "folded", run_path])
    return [line.rsplit(" ", 1)[0].split(";") for line in r.stdout.splitlines()]


def inlined_into(run_path, stacks, changed):
    """Frames of the run's sampled @stacks that are code inlined into @changed functions: named
    by DWARF after an inline function (jq's stack_block, exec_stack.h's, compiled into
    execute.c), no symbol of the run's binaries, and under a changed frame wherever they are."""
    with open(run_path) as f:
        run_ = json.load(f)
    bins = {fn["binary"] for fn in run_["functions"] if fn.get("binary")}
    if run_["meta"].get("program"):
        bins.add(run_["meta"]["program"])
    symbols = set()
    for b in bins:
        for flags in ([], ["-C"], ["-D"], ["-D", "-C"]):
            r = run(["nm", "--defined-only", *flags, b])
            symbols |= {ln.split(" ", 2)[2] for ln in r.stdout.splitlines()
                        if len(ln.split(" ", 2)) == 3}
    parents = {}
    for stack in stacks:
        for i in range(1, len(stack)):
            if stack[i] not in symbols:
                parents.setdefault(stack[i], set()).add(stack[i - 1])
    inl = set()
    while True:
        more = {fr for fr, ps in parents.items()
                if fr not in inl and ps <= (changed | inl)}
        if not more:
            return inl
        inl |= more


def callers_of(stacks, changed):
    """Functions above a frame of @changed (function names) on the sampled @stacks."""
    out = set()
    for stack in stacks:
        for i, fr in enumerate(stack):
            if fr in changed:
                out.update(stack[:i])
    return out


def classify(fn, changed_file, changed_names, callers):
    if fn.get("binary") == GB_BINARY:
        return "benchmark"	# a Google Benchmark's benchmark: checked against its own figures
    if fn.get("origin") == "program" or fn["display"].startswith("the program"):
        return "program"	# the whole program's CPU or wall time: not a function
    src = fn.get("file") or ""
    if (changed_file and src.endswith(changed_file)) or fn["name"] in changed_names:
        return "changed"
    if fn["display"] in callers or fn["name"] in callers:
        return "caller"
    return "untouched"


def gb_figures(p, work):
    """The suite's own verdict on the change: GB_PAIRS untraced runs of each build, interleaved
    (the base first, then the change first), each benchmark's CPU time per iteration from
    Google Benchmark's JSON; {benchmark: {base, new, changes, change, affected}}."""
    vals = {}
    out = os.path.join(work, "gb-own.json")
    for i in range(GB_PAIRS):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            env = dict(os.environ, BENCHMARK_OUT=out, BENCHMARK_OUT_FORMAT="json")
            subprocess.run(plain(p["argv"](p["bins"][side])), env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                for b in json.load(f)["benchmarks"]:
                    if b.get("run_type", "iteration") == "iteration":
                        v = vals.setdefault(b["name"], ([], []))
                        v[side].append(b["cpu_time"])
    res = {}
    for name, (base, new) in vals.items():
        changes = [n / b - 1 for b, n in zip(base, new)]
        res[name] = {"base": base, "new": new, "changes": changes,
                     "change": statistics.median(changes),
                     "affected": statistics.median(changes) >= GB_AFFECTED and
                     min(changes) > 0}
    log(p["name"], "the suite's own figures:",
        ", ".join("%s %+.1f%%" % (n[:30], 100 * r["change"]) for n, r in res.items()))
    return res


def gb_verdicts(cmp_result):
    """The benchmarks' verdicts of a compare result: {benchmark: verdict}."""
    return {f["name"]: f["verdict"] for f in cmp_result["functions"]
            if f.get("binary") == GB_BINARY}


def measure_program(p, work, flow="sequential"):
    base_bin, new_bin = p["bins"]
    argv_b, argv_n = p["argv"](base_bin), p["argv"](new_bin)
    gate_fn = gate_ab if flow == "ab" else gate
    res = {"name": p["name"], "flow": flow, "change": p["change"], "reps": REPS,
           "pairs": PAIRS}
    log(p["name"], flow, "A/A pairs")
    aa, walls = [], []
    for i in range(PAIRS):
        before = untraced(argv_b, BRACKET)
        g = gate_fn(argv_b, argv_b, work, "aa%d" % i)
        around = statistics.median(before + untraced(argv_b, BRACKET))
        walls.append(around)
        aa.append({"exit": g["cmp"]["exit"], "wall": g["wall"],
                   "speed": (g["cmp"]["result"].get("speed") or {}).get("source"),
                   "traced_s": g["base"]["rep_median"], "untraced_s": around,
                   "functions": g["base"]["functions"],
                   "flagged": [f["display"] for f in g["cmp"]["flagged"]],
                   "ab_pairs": g["cmp"].get("pairs")})
        if p.get("gbench"):
            aa[-1]["benchmarks"] = gb_verdicts(g["cmp"]["result"])
        log(p["name"], flow, "A/A", i + 1, "exit", g["cmp"]["exit"], aa[-1]["flagged"],
            "traced/untraced %.2f" % (aa[-1]["traced_s"] / around))
        if g["cmp"]["exit"] == 1 or KEEP_ALL:
            aa[-1]["kept"] = keep_alarm(g, "%s-%s-aa%d" % (p["name"], flow, i))
    res["aa"] = aa
    if p.get("gbench"):
        res["gbench"] = {"own": gb_figures(p, work), "affected_at": GB_AFFECTED}
    if flow == "ab" and SELECTIONS:
        res["selections"] = selections(argv_b, work)
    res["traced_s"] = statistics.median(a["traced_s"] for a in aa)
    res["untraced_s"] = statistics.median(walls)
    res["ratio"] = statistics.median(a["traced_s"] / a["untraced_s"] for a in aa)
    res["changes"] = []
    for i in range(CHANGES):
        log(p["name"], flow, "change", i + 1)
        g = gate_fn(argv_b, argv_n, work, "change%d" % i)
        cmp_fns = g["cmp"]["result"]["functions"]
        # the changed file's functions, unless the program names them itself
        changed_file = None if "changed_functions" in p else p["changed_file"]
        if changed_file:
            changed_names = changed_functions(g["files"][1], changed_file)
            changed_names |= {f[k] for f in cmp_fns for k in ("display", "name")
                              if (f.get("file") or "").endswith(changed_file)}
            changed_names |= object_symbols(new_bin, changed_file, p.get("weak", False))
        else:
            changed_names = set(p["changed_functions"])
        stacks = folded_stacks(g["files"][1])
        changed_names |= inlined_into(g["files"][1], stacks, changed_names)
        callers = callers_of(stacks, changed_names)
        res["changes"].append({
            "exit": g["cmp"]["exit"], "wall": g["wall"], "pairs": g["cmp"].get("pairs"),
            "flagged": [{"function": f["display"], "change": f["change"],
                         "ci": [f["ci_lo"], f["ci_hi"]], "code": f.get("code"),
                         "cause_line": f.get("cause_line", ""),
                         "class": classify(f, changed_file, changed_names, callers)}
                        for f in g["cmp"]["flagged"]]})
        if p.get("gbench"):
            res["changes"][-1]["benchmarks"] = gb_verdicts(g["cmp"]["result"])
            res["changes"][-1]["attributed"] = [
                f["reason"].split("; on the stacks of ", 1)[1]
                for f in g["cmp"]["flagged"] if "; on the stacks of " in (f["reason"] or "")]
        if not res["changes"][-1]["flagged"] or KEEP_ALL:
            res["changes"][-1]["kept"] = keep_alarm(g, "%s-%s-%s%d" % (
                p["name"], flow, "change" if res["changes"][-1]["flagged"] else "miss", i))
        log(p["name"], flow, "change", i + 1, "exit", g["cmp"]["exit"],
            [(f["function"][:40], f["class"]) for f in res["changes"][-1]["flagged"]])
    return res


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    git = run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"]).stdout.strip()
    return {"kernel": platform.release(), "cpu": cpu, "nproc": os.cpu_count(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": git,
            "loadavg": [round(x, 1) for x in os.getloadavg()]}


def measure(names=None):
    names = names or list(PROGRAMS)
    bins = build(names)
    work = tempfile.mkdtemp(prefix="pg-realworld.")
    try:
        out = {"machine": machine(), "programs": []}
        flows = (["ab"] if has_ab() else []) + ["sequential"]
        flows = [f for f in flows if f in FLOWS]
        for name in names:
            prog = PROGRAMS[name](bins[name], work)
            for flow in flows:
                out["programs"].append(measure_program(prog, work, flow))
                out["programs"][-1]["machine"] = machine()
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


TARGET_RATIO = 1.15	# traced / untraced repetition time at the default budget: the realworld target


def names_changed(line):
    """Does a cause line name changed code: a callee or caller marked "(changed", or the
    changed ancestors it was "reached from changed code" through?"""
    return bool(line) and ("(changed" in line or "reached from changed code: " in line)


def cls_of(f):
    """A flagged entry's class; the whole program's entries of runs measured before they had
    a class of their own are "program" too."""
    return "program" if f["function"].startswith("the program") else f["class"]


def render_lines(res):
    """The section's text (for bench/render.py, below its title and stamp): a table, what each
    program's change and A/A pairs flagged, and each target met or missed, from @res alone."""
    lines = ["Programs built from their Debian source packages with their own build systems and "
             "default flags (`bench/realworld/fetch.sh`), each gated two ways: *ab*, "
             "`perfgate ab` at its defaults (both builds' repetitions interleaved in one "
             "session and compared pair by pair: the CI templates' default flow), and "
             "*sequential*, two recordings one after the other (the baseline with the default "
             "selection, the change with `--functions-of` the baseline, then `compare`). "
             "Overhead: the traced repetitions of each A/A session against untraced runs of "
             "the same command right before and after it, the median ratio over sessions. "
             "The change is gated in several sessions; it is found when every one flags it.",
             "",
             "| program | flow | untraced | traced (median rep) | ratio | A/A false alarms | "
             "change found | change: flagged (changed / caller / untouched; + the program) | "
             "gate wall time (change) | measured |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in res["programs"]:
        fa = sum(1 for a in p["aa"] if a["exit"] == 1)
        ch = p["changes"]
        cls = [cls_of(f) for c in ch for f in c["flagged"]]
        found = sum(1 for c in ch if c["flagged"])
        ratio = p["ratio"]
        m = p.get("machine") or res["machine"]
        if p.get("gbench"):	# found: every benchmark its own figures say is slower failed
            found = sum(1 for c in ch if gb_found(p, c))
        nfn = len(cls) - cls.count("program") - cls.count("benchmark")
        lines.append("| %s | %s | %.3f s | %.3f s | %.2fx | %d / %d | %d / %d | %d (%d / %d / %d; "
                     "+%d%s) | %.1f s | %s, %s |"
                     % (p["name"], p["flow"], p["untraced_s"], p["traced_s"],
                        ratio, fa, len(p["aa"]), found, len(ch), nfn,
                        cls.count("changed"), cls.count("caller"), cls.count("untouched"),
                        cls.count("program"),
                        "; %d benchmarks" % cls.count("benchmark") if p.get("gbench") else "",
                        statistics.median(c["wall"] for c in ch), m["date"], m["commit"]))
    lines.append("")
    for p in res["programs"]:
        alarms = sorted({f for a in p["aa"] for f in a["flagged"]})
        ratio = p["ratio"]
        fa = sum(1 for a in p["aa"] if a["exit"] == 1)
        ch = p["changes"]
        cls = [cls_of(f) for c in ch for f in c["flagged"]]
        sel = p.get("selections")
        if sel:
            lines.append("- **%s**: the default selection was the same in %d of %d recordings "
                         "(%s functions)." % (p["name"], sel["same"], sel["runs"],
                                              "/".join(str(n) for n in sel["sizes"])))
        met = [("overhead at most %.2fx" % TARGET_RATIO, ratio <= TARGET_RATIO),
               ("no A/A false alarm", fa == 0),
               ("the change found", all(c["flagged"] for c in ch)),
               ("nothing flagged in untouched code", "untouched" not in cls)]
        untouched = [f for c in ch for f in c["flagged"] if cls_of(f) == "untouched"]
        if untouched and any("code" in f for f in untouched):
            met.append(("each untouched function flagged marked as the same machine code in "
                        "both builds", all(f.get("code") == "same" for f in untouched)))
        same = [f for c in ch for f in c["flagged"] if f.get("code") == "same"]
        if same and any("cause_line" in f for f in same):
            met.append(("each flagged function whose code did not change carries a cause line "
                        "naming changed code", all(names_changed(f.get("cause_line"))
                                                   for f in same)))
        if p.get("gbench"):
            met[2:3] = gb_lines(p, lines)
        lines.append("- **%s**, %s (%s, %d repetitions a side): the change flagged %s; the A/A "
                     "pairs flagged %s. Targets: %s."
                     % (p["name"], p["flow"], p["change"], p["reps"],
                        "; ".join("session %d: %s" % (
                            i + 1, ", ".join("`%s` %+.1f%% (%s%s)" % (
                                f["function"], 100 * f["change"], cls_of(f),
                                ", same code" + (": " + f["cause_line"] if f.get("cause_line")
                                                 else "")
                                if f.get("code") == "same" else "")
                                for f in c["flagged"]) or "nothing")
                            for i, c in enumerate(ch)),
                        ", ".join("`%s`" % a for a in alarms) or "nothing",
                        "; ".join("%s %s" % (what, "met" if ok else "**missed**")
                                  for what, ok in met)))
    return lines


def gb_split(p):
    """The benchmarks the suite's own figures say the change slows, and the others."""
    own = p["gbench"]["own"]
    return ([n for n in own if own[n]["affected"]], [n for n in own if not own[n]["affected"]])


def gb_failed(c):
    """The benchmarks change session @c failed."""
    return {n for n, v in c.get("benchmarks", {}).items() if v == "regression"}


def gb_found(p, c):
    """Did change session @c fail every benchmark the suite's own figures say is slower?"""
    affected = gb_split(p)[0]
    return bool(affected) and set(affected) <= gb_failed(c)


def gb_lines(p, lines):
    """A Google Benchmark program's bullet (appended to @lines): the suite's own figures, each
    session's benchmark verdicts and attributions; returns its targets."""
    affected, others = gb_split(p)
    own, ch = p["gbench"]["own"], p["changes"]
    per = []
    for c in ch:
        fns = [f["function"].split("(")[0] for f in c["flagged"]
               if cls_of(f) in ("changed", "caller")]
        per.append("%d of %d affected failed, %d of %d others" % (
            len(gb_failed(c) & set(affected)), len(affected),
            len(gb_failed(c) & set(others)), len(others)) +
            ("; functions named: %s" % ", ".join("`%s`" % f for f in fns) if fns else
             "; no function of the changed code named") +
            (" (on the stacks of %s)" % c["attributed"][0] if c.get("attributed") else ""))
    if len(set(per)) == 1:	# the same in every session: said once
        per = ["in each of the %d: %s" % (len(per), per[0])]
    else:
        per = ["session %d: %s" % (i + 1, t) for i, t in enumerate(per)]
    aa_bench = sorted({n for a in p["aa"] for n, v in a.get("benchmarks", {}).items()
                       if v in ("regression", "improvement")})
    lines.append("- **%s**, %s, benchmark by benchmark: the suite's own figures (%d untraced "
                 "pairs, interleaved, CPU time per iteration) %s; affected: at least %+.0f%%, "
                 "every pair slower. Change sessions: %s. A/A: benchmarks flagged: %s."
                 % (p["name"], p["flow"], len(next(iter(own.values()))["changes"]),
                    "; ".join("`%s` %+.1f%% (%s)" % (n, 100 * own[n]["change"],
                                                     "affected" if own[n]["affected"] else
                                                     "unaffected") for n in own),
                    100 * p["gbench"]["affected_at"],
                    "; ".join(per),
                    ", ".join("`%s`" % n for n in aa_bench) or "none"))
    return [("the affected benchmarks failed in every session", all(gb_found(p, c) for c in ch)),
            ("no unaffected benchmark flagged" + ("" if others else
                                                  " (the selection holds none)"),
             not any(gb_failed(c) & set(others) for c in ch)),
            ("the functions that explain it named",
             all(any(cls_of(f) in ("changed", "caller") for f in c["flagged"]) for c in ch))]


def render(res):
    m = res["machine"]
    return "\n".join(["## Real programs", "",
                      "Measured %s on %s (%d CPUs, Linux %s), perfgate %s." %
                      (m["date"], m["cpu"], m["nproc"], m["kernel"], m["commit"]), ""] +
                     render_lines(res)) + "\n"


if __name__ == "__main__":
    r = measure(sys.argv[1:] or None)
    print(json.dumps(r, indent=1))
    print(render(r))
