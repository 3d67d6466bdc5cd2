#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/e2e/hist_runs.py - sessions for the history tests, made from one recorded run.

    hist_runs.py TEMPLATE.json OUTDIR N [--noise SD] [--seed S] [--slow FUNC=FACTOR@FROM]...
                 [--same-commit-from K] [--drop FUNC]

writes OUTDIR/s00.json ... s{N-1}.json: copies of the template (a version-3 run file) whose
times are multiplied, per session, by one factor exp(SD * N(0, 1)) (the machine's drift from
session to session) and, per repetition, by another exp(SD / 2 * N(0, 1)); from session FROM
on, FUNC's times also by FACTOR. Session i has commit "c%02d" padded to 40 hex-like characters
(sessions from --same-commit-from K on share session K's commit) and a start time i hours
after 2026-01-01T00:00:00Z. --drop FUNC: FUNC is called in no repetition (still listed). Every
invariant of the run file holds: all the time columns of a
stat (and the repetition's wall time) are scaled together.
"""
import json
import math
import random
import sys

TIME_COLUMNS = ("total_ns", "self_ns", "min_ns", "max_ns", "offcpu_ns", "runq_ns",
                "self_offcpu_ns", "self_runq_ns")


def scale_rows(columns, rows, factors, drop=None):
    """@rows (a repetition's "stats") with the time columns of function id k times
    factors(k), without function id @drop."""
    out = []
    for row in rows.split(";") if rows else []:
        words = row.split(" ")
        if int(words[0]) == drop:
            continue
        f = factors(int(words[0]))
        for i, name in enumerate(columns):
            if name in TIME_COLUMNS:
                words[i] = str(int(round(int(words[i]) * f)))
        # min <= max and self <= total survive rounding only if kept in order
        col = {n: i for i, n in enumerate(columns)}
        if int(words[col["self_ns"]]) > int(words[col["total_ns"]]):
            words[col["self_ns"]] = words[col["total_ns"]]
        out.append(" ".join(words))
    return ";".join(out)


def commit(i):
    return ("c%02d" % i) + "0" * 37


def main(argv):
    template, outdir, n = argv[1], argv[2], int(argv[3])
    noise, seed, slow, same_from, drop = 0.01, 1, [], None, None
    args = argv[4:]
    while args:
        opt, val = args[0], args[1]
        args = args[2:]
        if opt == "--noise":
            noise = float(val)
        elif opt == "--seed":
            seed = int(val)
        elif opt == "--slow":
            func, rest = val.split("=")
            factor, start = rest.split("@")
            slow.append((func, float(factor), int(start)))
        elif opt == "--same-commit-from":
            same_from = int(val)
        elif opt == "--drop":
            drop = val
        else:
            sys.exit("hist_runs.py: unknown option " + opt)
    rng = random.Random(seed)
    with open(template) as f:
        base = json.load(f)
    ids = {fn["name"]: fn["id"] for fn in base["functions"]}
    for i in range(n):
        doc = json.loads(json.dumps(base))
        session = math.exp(noise * rng.gauss(0, 1))
        extra = {}
        for func, factor, start in slow:
            if i >= start:
                extra[ids[func]] = extra.get(ids[func], 1.0) * factor
        for rep in doc["repetitions"]:
            f = session * math.exp(noise / 2 * rng.gauss(0, 1))
            rep["stats"] = scale_rows(doc["stat_columns"], rep["stats"],
                                      lambda k, f=f: f * extra.get(k, 1.0),
                                      ids[drop] if drop else None)
            rep["wall_ns"] = int(rep["wall_ns"] * f)
        k = same_from if same_from is not None and i >= same_from else i
        doc["meta"]["git_commit"] = commit(k)
        doc["meta"]["start_time"] = "2026-01-%02dT%02d:00:00Z" % (1 + i // 24, i % 24)
        with open("%s/s%02d.json" % (outdir, i), "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main(sys.argv)
