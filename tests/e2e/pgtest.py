#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/e2e/pgtest.py - reading perfgate's JSON for the end-to-end tests, in one place.

A run file (perfgate-run, docs/run-format.md) lists its functions once ("functions", each
with an "id") and, per repetition, the stats of those called ("repetitions"[r]["functions"],
by "id"); a compare result (compare --json) lists one entry per function with its
"verdict". The tests ask the same few questions of them; the answers are here.

Version 3 run files keep a repetition's stats as rows of numbers in one string
("repetitions"[r]["stats"], columns named by "stat_columns"); load() decodes them into the
"functions" list of versions 1 and 2 (rep_stats()), so that a test reads every version alike.
A run file loaded so and written back keeps its "stats" (perfgate reads those; it ignores the
added "functions" of a version-3 repetition).

From a test script (tests/e2e/lib.sh defines `pgtest` and puts this directory on PYTHONPATH):

    pgtest get RUN.json meta.git_commit      # a value by dotted path ("-": stdin); a list
                                             # index is a number: functions.0.name
    pgtest names RUN.json                    # the function names, sorted, one a line
    pgtest calls RUN.json main               # main's calls, summed over the repetitions
    pgtest verdicts CMP.json [VERDICT]       # "name verdict" lines, or the names of VERDICT
    pgtest calls-per-rep REPS <CSV           # report --format csv as "function calls/rep"

png_read(PNG) and png_pixels(PNG) read a screenshot (lib.sh's render_svg) from Python.

From Python (a heredoc in a test):

    import pgtest
    run = pgtest.load(sys.argv[1])
    for rep in pgtest.reps(run):             # per repetition, {name: stat}
        assert rep["spin"]["self_ns"] == rep["spin"]["total_ns"]

A failed question (no such function, no such member) raises; from the command line that is
exit status 1 with the reason on stderr.
"""
import csv
import json
import struct
import sys
import zlib


def load(path):
    """The JSON document at @path ("-": stdin), a version-3 run file's rows decoded."""
    if path == "-":
        doc = json.load(sys.stdin)
    else:
        with open(path) as f:
            doc = json.load(f)
    if isinstance(doc, dict) and doc.get("format") == "perfgate-run" and \
            doc.get("version", 0) >= 3:
        for rep in doc.get("repetitions", []):
            rep["functions"] = rep_stats(doc["stat_columns"], rep["stats"])
    return doc


def rep_stats(columns, rows):
    """The stats of a version-3 repetition's @rows in @columns, as versions 1 and 2 hold them:
    {"id", "calls", "total_ns", ..., "hist": [[bucket, count], ...]}, "desc" and "kids" as
    {site: count} without zeros (as perfgate wrote them, possibly empty), the probe times only
    when not 0."""
    out = []
    for row in rows.split(";") if rows else []:
        words = row.split(" ")
        s = {"desc": {}, "kids": {}}
        for name, v in zip(columns, words):
            v = int(v)
            if "." in name:
                group, site = name.split(".", 1)
                if v:
                    s.setdefault(group, {})[site] = v
            elif v or not name.endswith("probe_ns"):
                s[name] = v
        s["hist"] = [[int(b), int(c)] for b, c in (w.split(":") for w in words[len(columns):])]
        out.append(s)
    return out


def get(doc, path):
    """The member of @doc at a dotted @path ("meta.options.budget_pct", "functions.0.name")."""
    for key in path.split(".") if path else []:
        doc = doc[int(key)] if isinstance(doc, list) else doc[key]
    return doc


def names(run):
    """The names of a run's functions, sorted."""
    return sorted(f["name"] for f in run["functions"])


def func(doc, name):
    """The function entry called @name of a run file or a compare result."""
    found = [f for f in doc["functions"] if f["name"] == name]
    if not found:
        raise KeyError("no function %r" % name)
    return found[0]


def reps(run):
    """Each repetition's stats as a dict {function name: stat}."""
    by_id = {f["id"]: f["name"] for f in run["functions"]}
    return [{by_id[s["id"]]: s for s in rep["functions"]} for rep in run["repetitions"]]


def calls(run, name):
    """@name's calls, summed over the repetitions (0 if never called)."""
    return sum(rep[name]["calls"] for rep in reps(run) if name in rep)


def probe_cost(run, name, stat):
    """What the probes of @name cost in one repetition's @stat, in ns, as perfgate estimates it
    for its budget and its warnings (core/calib.h, pg_fstat_probe_cost()): the calls times the
    calibrated cost of the function's kind of site (its in_ns and the part of out_ns the BPF
    programs do not time), plus the probes' timed run time. 0 in an uncalibrated run."""
    cal = run.get("calibration")
    if not cal:
        return 0
    k = func(run, name)["site"]
    c = cal[k]
    rest = c["out_ns"] - c.get("measured_ns", 0)
    return stat["calls"] * (c["in_ns"] + max(0, rest)) + stat.get("probe_ns", 0)


def reps_probe_cost(run):
    """Each repetition's probe cost in ns (probe_cost() summed over its functions)."""
    return [sum(probe_cost(run, n, s) for n, s in rep.items()) for rep in reps(run)]


def verdicts(result):
    """{function name: verdict} of a compare result's functions (exact and sampled; not the
    whole program's entries: program())."""
    return {f["name"]: f["verdict"] for f in result["functions"]
            if f.get("origin") != "program"}


def with_verdict(result, verdict):
    """The names of a compare result's functions (exact and sampled, not the whole program) of
    @verdict, in the result's order."""
    return [f["name"] for f in result["functions"]
            if f["verdict"] == verdict and f.get("origin") != "program"]


def program(result, name="cpu-time"):
    """The whole program's entry @name ("cpu-time" or "wall-time") of a compare result."""
    found = [f for f in result["functions"] if f.get("origin") == "program" and f["name"] == name]
    if not found:
        raise KeyError("no program entry %r" % name)
    return found[0]


def bench_verdicts(result):
    """{benchmark name: verdict} of a compare result (Google Benchmark, docs/gbench.md)."""
    return {f["name"]: f["verdict"] for f in result["functions"]
            if f["binary"] == "[benchmark]"}


def gbench(run):
    """Each repetition's Google Benchmark figures as a dict {benchmark name: entry}."""
    return [{b["name"]: b for b in rep.get("gbench", [])} for rep in run["repetitions"]]


def calls_per_rep(rows, reps_):
    """report --format csv rows as sorted "function calls_per_repetition" lines ("c/reps"
    when the calls do not divide evenly)."""
    out = []
    for r in sorted(rows, key=lambda r: r["function"]):
        c = int(r["calls"])
        per_rep = c // reps_ if c % reps_ == 0 else "%d/%d" % (c, reps_)
        out.append("%s %s" % (r["function"], per_rep))
    return out


def png_read(path):
    """(width, height, pixels) of an 8-bit PNG (what Chromium writes): the RGB tuples row by
    row in one list, read with zlib (no PIL needed)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [tuple(r[x:x + 3]) for r in rows for x in range(0, stride, bpp)]


def png_pixels(path):
    """The RGB pixels of a PNG, row by row in one list (png_read)."""
    return png_read(path)[2]


def _lines(v):
    for line in v:
        print(line)


def _print(v):
    """A value as the shell compares it: JSON for objects and lists, whole floats as ints."""
    if isinstance(v, float) and v.is_integer():
        print(int(v))
    elif isinstance(v, (dict, list)):
        print(json.dumps(v, sort_keys=True))
    else:
        print(v)


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "get":
        _print(get(load(args[0]), args[1]))
    elif cmd == "names":
        _lines(names(load(args[0])))
    elif cmd == "calls":
        print(calls(load(args[0]), args[1]))
    elif cmd == "verdicts":
        r = load(args[0])
        if len(args) > 1:
            _lines(with_verdict(r, args[1]))
        else:
            _lines("%s %s" % kv for kv in verdicts(r).items())
    elif cmd == "calls-per-rep":
        _lines(calls_per_rep(list(csv.DictReader(sys.stdin)), int(args[0])))
    else:
        raise SystemExit("pgtest: unknown command %r" % cmd)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (KeyError, IndexError, ValueError, OSError) as e:
        print("pgtest %s: %s" % (" ".join(sys.argv[1:]), e), file=sys.stderr)
        sys.exit(1)
