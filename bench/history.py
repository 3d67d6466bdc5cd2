# SPDX-License-Identifier: MIT
"""Section 10 of the benchmark: perfgate history's store and scan at scale (docs/history.md).

measure(pg, tmp, synth_run) -> dict, render_lines(data) -> Markdown lines.

- Ingestion: HIST_SESSIONS sessions of HIST_FUNCS functions x HIST_REPS repetitions (the
  synthetic run files of the compare section, bench/measure.py synth_run(), version 3), each
  `perfgate history add` timed whole: reading the run file (json-c), computing the series,
  one transaction. HIST_DISTINCT distinct files, each added HIST_SESSIONS / HIST_DISTINCT
  times with its own commit and time (the store keeps every session whole: the size does not
  depend on the values repeating); from session HIST_STEP on, the files of one function 20%
  slower.
- Size: the database file after HIST_SESSIONS sessions; then the same rows copied in SQL
  (sessions renumbered, times shifted) to HIST_BIG sessions, measured again, not extrapolated.
- Scan: `perfgate history changes` over the HIST_BIG sessions (every function's change points,
  and the program's), wall time and peak memory.
- PostgreSQL: the same on a server the section starts (initdb in a temporary directory, Unix
  socket, no TCP), sizes from pg_total_relation_size.
- Power: bench/cppower.c, the change points' power and false alarms on synthetic series
  (no timing).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

def _env(name, default):
    return int(os.environ.get(name, default))


# HIST_FUNCS, HIST_SESSIONS, HIST_BIG from the environment: smaller trial runs
HIST_FUNCS, HIST_REPS = _env("HIST_FUNCS", 10000), 30
HIST_SESSIONS, HIST_DISTINCT = _env("HIST_SESSIONS", 100), 10
HIST_STEP, HIST_BIG = HIST_SESSIONS * 6 // 10, _env("HIST_BIG", 1000)
HIST_SLOW_ID = 77
PGBIN = "/usr/lib/postgresql/15/bin"
BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def log(*a):
    print("bench history:", *a, file=sys.stderr, flush=True)


def timed(argv, env=None):
    """(wall seconds, peak RSS MB, CompletedProcess) of @argv under /usr/bin/time; the CPU
    seconds (user + system) in r.cpu."""
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + argv, capture_output=True,
                       text=True, env=env)
    sec = time.monotonic() - t0
    user, sys_, kb = r.stderr.strip().splitlines()[-1].split()
    r.cpu = float(user) + float(sys_)
    return sec, int(kb) / 1024.0, r


def session_time(i):
    return "2026-%02d-%02dT%02d:00:00Z" % (1 + i // (24 * 28), 1 + (i // 24) % 28, i % 24)


def make_runs(tmp, synth_run):
    files = []
    for k in range(HIST_DISTINCT):
        normal = os.path.join(tmp, "h_n%d.json" % k)
        slow = os.path.join(tmp, "h_s%d.json" % k)
        synth_run(normal, HIST_FUNCS, HIST_REPS, 100 + k, version=3)
        synth_run(slow, HIST_FUNCS, HIST_REPS, 200 + k, slow_id=HIST_SLOW_ID, version=3)
        files.append((normal, slow))
    return files


def ingest(pg, db, files):
    secs, rss = [], []
    for i in range(HIST_SESSIONS):
        normal, slow = files[i % HIST_DISTINCT]
        sec, mb, r = timed([pg, "-q", "history", "add", slow if i >= HIST_STEP else normal,
                            "--db", db, "--commit", "%040x" % (i + 1),
                            "--time", session_time(i)])
        if r.returncode:
            raise RuntimeError("history add: %s" % r.stderr[-500:])
        secs.append(sec)
        rss.append(mb)
    return {"seconds": secs, "max_rss_mb": max(rss)}


def scan(pg, db, out):
    sec, mb, r = timed([pg, "history", "changes", "--db", db, "--json", out])
    if r.returncode not in (0, 1):
        raise RuntimeError("history changes: %s" % r.stderr[-500:])
    found = [line.split()[0] for line in r.stdout.splitlines()[1:-1]]
    return {"seconds": sec, "cpu_seconds": r.cpu, "max_rss_mb": mb, "change_points": len(found),
            "functions_with_change_points": sorted(set(found))[:10]}


SQLITE_COPY = """
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
INSERT INTO session SELECT id + {k} * {n}, printf('%040x', id + {k} * {n}), branch,
  strftime('%Y-%m-%dT%H:%M:%SZ', time, '+{h} hours'), host, command, reps, added
  FROM session WHERE id <= {n};
INSERT INTO series SELECT session_id + {k} * {n}, object_id, vals FROM series
  WHERE session_id <= {n};
INSERT INTO summary SELECT session_id + {k} * {n}, metric_id, objects, vals FROM summary
  WHERE session_id <= {n};
INSERT INTO point SELECT session_id + {k} * {n}, object_id, self, self_lo, self_hi, total,
  total_lo, total_hi, cpu, cpu_lo, cpu_hi, calls, wall, wall_lo, wall_hi, program_cpu,
  program_cpu_lo, program_cpu_hi FROM point WHERE session_id <= {n};
"""

PG_COPY = """
INSERT INTO session SELECT id + {k} * {n}, lpad(to_hex(id + {k} * {n}), 40, '0'), branch,
  to_char((time::timestamptz + interval '{h} hours') AT TIME ZONE 'UTC',
          'YYYY-MM-DD"T"HH24:MI:SS"Z"'), host, command, reps, added
  FROM session WHERE id <= {n};
INSERT INTO series SELECT session_id + {k} * {n}, object_id, vals FROM series
  WHERE session_id <= {n};
INSERT INTO summary SELECT session_id + {k} * {n}, metric_id, objects, vals FROM summary
  WHERE session_id <= {n};
INSERT INTO point SELECT session_id + {k} * {n}, object_id, self, self_lo, self_hi, total,
  total_lo, total_hi, cpu, cpu_lo, cpu_hi, calls, wall, wall_lo, wall_hi, program_cpu,
  program_cpu_lo, program_cpu_hi FROM point WHERE session_id <= {n};
"""


def grow(run_sql, template):
    """The first HIST_SESSIONS sessions copied until there are HIST_BIG."""
    t0 = time.monotonic()
    for k in range(1, HIST_BIG // HIST_SESSIONS):
        run_sql(template.format(k=k, n=HIST_SESSIONS, h=k * HIST_SESSIONS))
    return time.monotonic() - t0


def add_one_more(pg, db, files):
    """One more session after the HIST_BIG: what a nightly job adds before its scan."""
    r = subprocess.run([pg, "-q", "history", "add", files[0][1], "--db", db, "--commit",
                        "%040x" % (HIST_BIG + 1), "--time", session_time(HIST_BIG)],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("history add: %s" % r.stderr[-500:])


def measure_sqlite(pg, tmp, files):
    db = os.path.join(tmp, "history.db")
    res = {"ingest": ingest(pg, db, files), "size_mb": os.path.getsize(db) / 1e6}
    log("sqlite ingest", res)
    res["grow_seconds"] = grow(lambda sql: subprocess.run(["sqlite3", db], input=sql,
                                                           text=True, check=True), SQLITE_COPY)
    res["big_size_mb"] = os.path.getsize(db) / 1e6
    res["scan"] = scan(pg, db, os.path.join(tmp, "changes-sqlite.json"))
    add_one_more(pg, db, files)
    res["scan_resumed"] = scan(pg, db, os.path.join(tmp, "changes-sqlite2.json"))
    log("sqlite scan", res)
    os.unlink(db)
    return res


def pg_server():
    # its own directory: the section's (root's, mode 700) is not reachable by postgres
    d = tempfile.mkdtemp(prefix="perfgate-bench-pg.")
    shutil.chown(d, "postgres")
    as_pg = ["su", "postgres", "-s", "/bin/sh", "-c"]
    subprocess.run(as_pg + ["%s/initdb -D %s/data -A trust -U postgres" % (PGBIN, d)],
                   check=True, capture_output=True)
    subprocess.run(as_pg + ["%s/pg_ctl -D %s/data -l %s/log -w -o \"-c listen_addresses='' "
                            "-k %s\" start" % (PGBIN, d, d, d)], check=True,
                   capture_output=True)

    def stop():
        subprocess.run(as_pg + ["%s/pg_ctl -D %s/data -m fast stop" % (PGBIN, d)],
                       capture_output=True)
        shutil.rmtree(d, ignore_errors=True)
    return "postgresql:///postgres?host=%s&user=postgres" % d, stop


def measure_postgres(pg, tmp, files):
    if not os.path.exists(os.path.join(PGBIN, "initdb")):
        return {"skipped": "no PostgreSQL 15 server in %s" % PGBIN}
    uri, stop = pg_server()
    psql = lambda sql: subprocess.run(  # noqa: E731
        [os.path.join(PGBIN, "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", uri],
        input=sql, text=True, check=True, capture_output=True).stdout.strip()
    size = "SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['session', 'object', " \
           "'series', 'summary', 'point', 'metric', 'schema_version', 'perfgate_history']) c"
    try:
        res = {"ingest": ingest(pg, uri, files), "size_mb": int(psql(size)) / 1e6}
        log("postgres ingest", res)
        res["grow_seconds"] = grow(psql, PG_COPY)
        # the copies chose their ids: the next add's identity must come after them
        psql("SELECT setval(pg_get_serial_sequence('session', 'id'), max(id)) FROM session")
        psql("VACUUM ANALYZE")
        res["big_size_mb"] = int(psql(size)) / 1e6
        res["scan"] = scan(pg, uri, os.path.join(tmp, "changes-pg.json"))
        add_one_more(pg, uri, files)
        res["scan_resumed"] = scan(pg, uri, os.path.join(tmp, "changes-pg2.json"))
        log("postgres scan", res)
    finally:
        stop()
    return res


def power(tmp):
    exe = os.path.join(tmp, "cppower")
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(BENCH, "cppower.c"),
                    os.path.join(ROOT, "diff", "changepoint.c"), "-lm"], check=True)
    return json.loads(subprocess.run([exe, "200"], check=True, capture_output=True,
                                     text=True).stdout)


def measure(pg, tmp, synth_run):
    res = {"params": {"functions": HIST_FUNCS, "repetitions": HIST_REPS,
                      "sessions": HIST_SESSIONS, "distinct_files": HIST_DISTINCT,
                      "step_at": HIST_STEP, "slow_function": "fn_%d" % HIST_SLOW_ID,
                      "big_sessions": HIST_BIG, "nproc": os.cpu_count()}}
    res["power"] = power(tmp)
    log("power", res["power"]["false_per_series"])
    files = make_runs(tmp, synth_run)
    res["run_file_mb"] = os.path.getsize(files[0][0]) / 1e6
    res["sqlite"] = measure_sqlite(pg, tmp, files)
    res["postgres"] = measure_postgres(pg, tmp, files)
    return res


def median(v):
    s = sorted(v)
    return (s[len(s) // 2] + s[(len(s) - 1) // 2]) / 2


def engine_row(name, e, p):
    if "skipped" in e:
        return "| %s | not measured: %s | | | | |" % (name, e["skipped"])
    i = e["ingest"]["seconds"]
    rs = e.get("scan_resumed")
    return ("| %s | %.2f s (%.2f-%.2f s), %.0f MB | %.0f MB (%.2f MB a session) | %.0f MB | "
            "%.1f s (CPU %.1f s), %.0f MB | %s |" % (
                name, median(i), min(i), max(i), e["ingest"]["max_rss_mb"], e["size_mb"],
                e["size_mb"] / p["sessions"], e["big_size_mb"], e["scan"]["seconds"],
                e["scan"].get("cpu_seconds", float("nan")), e["scan"]["max_rss_mb"],
                "%.1f s (CPU %.1f s)" % (rs["seconds"], rs["cpu_seconds"]) if rs else "-"))


def targets(e, p):
    """Which targets the SQLite figures @e met, in words."""
    ing, big = median(e["ingest"]["seconds"]), e["big_size_mb"]
    scan = e["scan"]
    words = ["SQLite: ingestion %s (median %.2f s)" % ("met" if ing < 1 else "missed", ing),
             "size %s (%.2f GB at %s sessions)" % ("met" if big < 2000 else "missed", big / 1000,
                                                   "{:,}".format(p["big_sessions"])),
             "scan %s (%.0f s wall" % ("met" if scan["seconds"] < 30 else "missed",
                                       scan["seconds"])]
    if "cpu_seconds" in scan:
        words[-1] += "; its %.0f s of CPU time over %d CPUs would take about %.0f s on the " \
                     "machine alone" % (scan["cpu_seconds"], p["nproc"],
                                        scan["cpu_seconds"] / p["nproc"])
    words[-1] += ")"
    if "scan_resumed" in e:
        words.append("the resumed scan after one more session %s (%.0f s)" % (
            "met" if e["scan_resumed"]["seconds"] < 30 else "missed",
            e["scan_resumed"]["seconds"]))
    return ", ".join(words)


def render_lines(d):
    p = d["params"]
    s = ["Sessions of {:,} functions x {} repetitions (synthetic run files of {:.0f} MB, as in "
         "section 5; {} distinct files added {} times each, each session with its own commit "
         "and time; {} 20% slower from session {} on). Ingestion: each `perfgate history add` "
         "timed whole (reading the run file, the series, one transaction), median and range "
         "over {} sessions, and its peak memory. Size: the database after {} sessions, and "
         "after their rows were copied in SQL to {:,} sessions (measured, not extrapolated). "
         "Scan: `perfgate history changes` over the {:,} sessions x {:,} functions (every "
         "function's change points and the program's, on all CPUs), wall time, CPU time "
         "(user and system, all threads) and peak memory; then one more session added and "
         "the scan again, resumed from the first scan's cache of weak change points (what a "
         "nightly job does). The copies repeat the 20% step, "
         "so the slow function has a change point at each copy's step up and down. The "
         "machine ({} CPUs) was shared: other agents were building and testing perfgate on "
         "it during this run, so the times are upper bounds.".format(
             p["functions"], p["repetitions"], d["run_file_mb"], p["distinct_files"],
             p["sessions"] // p["distinct_files"], p["slow_function"], p["step_at"],
             p["sessions"], p["sessions"], p["big_sessions"], p["big_sessions"],
             p["functions"], p["nproc"]), "",
         "| store | ingestion a session | size, %d sessions | size, %s sessions | scan | "
         "scan after one more add |" % (p["sessions"], "{:,}".format(p["big_sessions"])),
         "| --- | --- | --- | --- | --- | --- |",
         engine_row("SQLite (file)", d["sqlite"], p),
         engine_row("PostgreSQL 15 (Unix socket)", d["postgres"], p), "",
         "Targets: ingestion under 1 s a session into SQLite, 1,000 sessions under 2 GB, the "
         "scan under 30 s. %s. Change points the scan found: %d in SQLite (%s)." % (
             targets(d["sqlite"], p), d["sqlite"]["scan"]["change_points"],
             ", ".join(d["sqlite"]["scan"]["functions_with_change_points"]) or "none")]
    if "big_size_mb" in d["postgres"]:
        s[-1] += (" PostgreSQL holds the same rows in %.2f GB (%.1f times SQLite's file: "
                  "PostgreSQL spends a row header and a primary-key index entry on each series "
                  "row)." % (
                      d["postgres"]["big_size_mb"] / 1000,
                      d["postgres"]["big_size_mb"] / d["sqlite"]["big_size_mb"]))
    pw = d["power"]
    afters = sorted({x["after"] for x in pw["power"]})
    steps = sorted({x["step_sd"] for x in pw["power"]})
    s += ["", "Change points' power (bench/cppower.c, no timing): series of %d sessions at one "
          "level, then N sessions a step higher, log-normal noise of %.0f%% between sessions; "
          "found = a change point within one session of the true one, over %d series each; "
          "default options, no minimum magnitude. False alarms: %.2f change points per series "
          "of 100 sessions without a change." % (pw["before"], pw["noise_sd"] * 100,
                                                 pw["trials"], pw["false_per_series"]), "",
          "| step | " + " | ".join("N = %d" % a for a in afters) + " |",
          "| --- |" + " --- |" * len(afters)]
    for st in steps:
        row = {x["after"]: x["found"] for x in pw["power"] if x["step_sd"] == st}
        s.append("| %g sd (%+.0f%%) | " % (st, st * pw["noise_sd"] * 100) +
                 " | ".join("%.0f%%" % (100 * row[a]) for a in afters) + " |")
    return s
