# SPDX-License-Identifier: MIT
# perfgate history with SQLite (docs/history.md): add, changes, check and plot on sessions
# made from one recording of tests/progs/knob (tests/e2e/hist_runs.py scales its times per
# session: a drift of 1% between sessions, and leaf_hash 30% slower from a known session on),
# and the store's refusals: a corrupt file, another program's database, a failed add that
# leaves nothing behind, concurrent adds that all land; the medians read with plain SQL,
# prune, and a publisher's lost race and a locked database detected.
source "$(dirname "$0")/lib.sh"
XSD=$PERFGATE_SRCDIR/tests/data/JUnit.xsd
RUNS="python3 $PERFGATE_SRCDIR/tests/e2e/hist_runs.py"
H() { "$PERFGATE" -q history "$@"; }
sessions() { sqlite3 "$1" 'SELECT count(*) FROM session'; }

"$PERFGATE" record -q -o "$TMP/t.json" -r 6 -f leaf_hash -f leaf_mix -f checksum -- ./knob
mkdir "$TMP/slow" "$TMP/flat" "$TMP/late" "$TMP/aa" "$TMP/drop"
# c00..c15, leaf_hash slower from c10 on
$RUNS "$TMP/t.json" "$TMP/slow" 16 --slow leaf_hash=1.3@10
# c00..c11, leaf_hash slower from c08 on, which is also the newest commit (c08 x 4)
$RUNS "$TMP/t.json" "$TMP/late" 12 --slow leaf_hash=1.3@8 --same-commit-from 8
# no change, other noise: new sessions for A/A checks
$RUNS "$TMP/t.json" "$TMP/aa" 3 --seed 7
# leaf_mix no longer called
$RUNS "$TMP/t.json" "$TMP/drop" 1 --seed 9 --drop leaf_mix

# --- add: 16 sessions, each a transaction
DB=$TMP/h.db
for f in "$TMP"/slow/s*.json; do
	check "add $(basename "$f")" H add "$f" --db "$DB" --branch main
done
check_eq "16 sessions stored" 16 "$(sessions "$DB")"
check_eq "schema version 6" 6 "$(sqlite3 "$DB" 'SELECT version FROM schema_version')"
check_eq "commit from the run" c100000000000000000000000000000000000000 \
	"$(sqlite3 "$DB" "SELECT commit_id FROM session WHERE time = '2026-01-01T10:00:00Z'")"
check_eq "branch given" main "$(sqlite3 "$DB" 'SELECT DISTINCT branch FROM session')"
check_eq "a series row per session, function and program" 1 \
	"$(sqlite3 "$DB" "SELECT count(*) = 16 * (SELECT count(*) FROM object) FROM series")"
# --commit, --branch and --time (with a zone: stored in UTC)
T2=$TMP/t2.db
check "add with options" H add "$TMP/aa/s00.json" --db "$T2" --commit abc123 \
	--branch dev --time 2026-02-03T05:30:00.25+02:00
check_eq "options stored" "abc123|dev|2026-02-03T03:30:00Z" \
	"$(sqlite3 "$T2" 'SELECT commit_id, branch, time FROM session')"
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$T2" --time yesterday
has "invalid time 'yesterday'"
check_eq "a refused add adds nothing" 1 "$(sessions "$T2")"

# --- changes: one change point, at c10, a regression, not at the newest commit
expect_exit 0 "$PERFGATE" history changes --db "$DB" --json "$TMP/ch.json"
cat "$TMP/stdout"
check_contains "table row" "$TMP/stdout" '^leaf_hash  *c09000000000  c10000000000  *+[0-9.]*%.*regression$'
python3 - "$TMP/ch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "perfgate-history-changes" and d["sessions"] == 16, d
c = d["changes"]
assert len(c) == 1, c
c = c[0]
assert c["name"] == "leaf_hash" and c["metric"] == "self", c
assert c["commit"].startswith("c10") and c["previous_commit"].startswith("c09"), c
assert c["regression"] and not c["newest"], c
assert c["change"] > 0.2 and c["ci_lo"] > 0.1, c
assert c["sessions_before"] == 10 and c["sessions_after"] == 6, c
assert d["newest_regressions"] == 0
PY
expect_exit 0 "$PERFGATE" history changes --db "$DB" --function 'leaf_m*'
check_contains "no change in leaf_mix" "$TMP/stdout" '^perfgate: no change point in 16 sessions'
# the newest commit starts a slowdown (four sessions of it): exit 1, for a nightly job. The
# first scan (8 sessions) leaves its cache, the second resumes from it after four adds, and
# finds what a scan from scratch (the cache deleted) finds
for f in "$TMP"/late/s0[0-7].json; do H add "$f" --db "$TMP/late.db"; done
expect_exit 0 "$PERFGATE" history changes --db "$TMP/late.db"
check_eq "a cache per metric" 2 "$(sqlite3 "$TMP/late.db" 'SELECT count(*) FROM changes_cache')"
for f in "$TMP"/late/s0[89].json "$TMP"/late/s1*.json; do H add "$f" --db "$TMP/late.db"; done
expect_exit 1 "$PERFGATE" -v history changes --db "$TMP/late.db" --json "$TMP/late.json"
has "resuming from 8 of 12 sessions"
cp "$TMP/late.db" "$TMP/late2.db"
sqlite3 "$TMP/late2.db" 'DELETE FROM changes_cache'
expect_exit 1 "$PERFGATE" history changes --db "$TMP/late2.db" --json "$TMP/late2.json"
check "resumed and from scratch agree" cmp -s "$TMP/late.json" "$TMP/late2.json"
check_contains "regression at the newest commit" "$TMP/stdout" '1 regression(s) starting at the newest'
check_eq "JSON says newest" "True 1" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["changes"][0]["newest"], d["newest_regressions"])' "$TMP/late.json")"

# --markdown: the short form for a job summary, the change point's function, object, commit
# and size
expect_exit 0 "$PERFGATE" history changes --db "$DB" --markdown "$TMP/ch.md"
check_contains "summary: counts" "$TMP/ch.md" '^### perfgate history: 1 change point(s) in 16 sessions'
check_contains "summary: the row" "$TMP/ch.md" \
	'^| `leaf_hash` | knob | c10000000000 | +[0-9.]*% \[+[0-9.]*%, +[0-9.]*%\] | regression |$'
expect_exit 1 "$PERFGATE" history changes --db "$TMP/late.db" --markdown "$TMP/late.md"
check_contains "summary: at the newest commit" "$TMP/late.md" 'regression, \*\*at the newest commit'

# --- --alert-new: a publisher's scan after each add alerts on a regression once, in the scan
# that first finds it (with one session a commit, none starts at the newest commit), and the
# Markdown plots its trend: the medians of every session (Mermaid), the change point's two
# levels as a second line stepping at c10, and a sparkline in the table's output
A=$TMP/alert.db
for f in "$TMP"/slow/s0*.json; do H add "$f" --db "$A" --branch main; done
alerts=""
for i in 10 11 12 13 14 15; do
	H add "$TMP/slow/s$i.json" --db "$A" --branch main
	st=0
	"$PERFGATE" history changes --db "$A" --branch main --alert-new --markdown "$TMP/a$i.md" \
		--json "$TMP/a$i.json" >"$TMP/a$i.out" 2>"$TMP/stderr" || st=$?
	alerts+=" $i:$st"
	[ "$st" != 1 ] || first=$i
done
check_eq "alert-new: one alert in six scans" 1 "$(echo "$alerts" | grep -o ':1' | wc -l)"
check_eq "alert-new: no error" 0 "$(echo "$alerts" | grep -c ':2')"
check_eq "alert-new: not again without an add" 0 \
	"$("$PERFGATE" history changes --db "$A" --branch main --alert-new >/dev/null; echo $?)"
check_eq "alert-new: the row recorded, at c10" "1|c10" "$(sqlite3 "$A" "SELECT count(*),
	substr(s.commit_id, 1, 3) FROM changes_alerted a JOIN session s ON s.id = a.session_id")"
python3 - "$TMP/a$first.json" "$TMP/a15.json" <<'PY' || check_failed "alert-new: JSON" "see above"
import json, sys
a, z = (json.load(open(p)) for p in sys.argv[1:])
assert a["alerts"] == 1 and a["newest_regressions"] == 0, a
assert [c["name"] for c in a["changes"] if c["alert"]] == ["leaf_hash"], a
assert z["alerts"] == 0 and not any(c["alert"] for c in z["changes"]), z
PY
check_contains "alert-new: the sparkline" "$TMP/a$first.out" \
	"^trend: leaf_hash [▁▂▃▄▅▆▇█]\{10\}|[▁▂▃▄▅▆▇█]* +[0-9.]*% from c10000000000 "
check_contains "alert-new: the row marked new" "$TMP/a$first.md" '| regression, \*\*new\*\* |$'
check "alert-new: a chart in a later summary" not grep -q mermaid "$TMP/a15.md"
# the chart: a point per session so far, labelled by commit, c10 marked, the levels' line
# stepping up exactly there, and the medians the point table holds
python3 - "$TMP/a$first.md" "$first" "$A" <<'PY' || check_failed "alert-new: chart" "see above"
import re, sqlite3, sys
md, n = open(sys.argv[1]).read(), int(sys.argv[2]) + 1
block = re.search(r"```mermaid\nxychart-beta\n(.*?)```", md, re.S).group(1)
labels = re.findall(r'"([^"]*)"', re.search(r"x-axis \[(.*)\]", block).group(1))
lines = [[float(v) for v in l.split(", ")] for l in re.findall(r"line \[(.*)\]", block)]
assert len(labels) == n and all(len(l) == n for l in lines), (n, labels, lines)
assert labels[10] == "c100000 ▲" and sum("▲" in x for x in labels) == 1, labels
step = [i for i in range(1, n) if lines[1][i] != lines[1][i - 1]]
assert step == [10] and lines[1][10] > 1.2 * lines[1][9], lines[1]
db = sqlite3.connect(sys.argv[3])
want = [r[0] for r in db.execute("SELECT self FROM trend WHERE name = 'leaf_hash' ORDER BY time")]
# in the chart's unit, to 3 decimals
div = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[
    re.search(r'y-axis "self per call, (ns|us|ms|s)"', block).group(1)]
assert all(abs(a * div - b) <= 0.0005 * div for a, b in zip(lines[0], want[:n])), (lines, want)
assert 'title "leaf_hash: +' in block and "from c100000" in block, block
PY
# prune removes the rows of the sessions it removes
cp "$A" "$TMP/alert-p.db"
cp "$A" "$TMP/alert-vg.db"
sqlite3 "$TMP/alert-vg.db" 'DELETE FROM changes_alerted'	# for valgrind (below): alerts again
expect_exit 0 "$PERFGATE" history prune --db "$TMP/alert-p.db" --keep 3
check_eq "prune: the alerted row of c10 gone" 0 \
	"$(sqlite3 "$TMP/alert-p.db" 'SELECT count(*) FROM changes_alerted')"

# --- the medians as plain columns: a function's trend by plain SQL (the query of
# docs/history.md's Grafana panel), each session's median within its interval
check_eq "one point per session" 16 "$(sqlite3 "$DB" "SELECT count(*) FROM trend
	WHERE name = 'leaf_hash' AND branch = 'main' AND self_lo <= self AND self <= self_hi")"
sqlite3 -separator ' ' "$DB" "SELECT strftime('%s', time) AS time, self AS leaf_hash
	FROM trend WHERE binary_file = 'knob' AND name = 'leaf_hash' AND branch = 'main'
	ORDER BY time" >"$TMP/panel"
check_eq "the panel's 16 rows, in time order" "16 1" \
	"$(awk 'NR > 1 && $1 <= t { bad = 1 } { t = $1; n++ } END { print n, !bad }' "$TMP/panel")"
# leaf_hash 30% slower from c10 (hist_runs.py), the other sessions within the drift of 1%
check_eq "the step in the medians" 1 "$(sqlite3 "$DB" "SELECT
	(SELECT min(self) FROM trend WHERE name = 'leaf_hash' AND commit_id >= 'c10') >
	1.2 * (SELECT max(self) FROM trend WHERE name = 'leaf_hash' AND commit_id < 'c10')")"
check_eq "the program's wall time, calls a repetition" "16|16" "$(sqlite3 "$DB" "SELECT
	(SELECT count(wall) FROM trend WHERE name = '[program]'),
	(SELECT count(calls) FROM trend WHERE name = 'leaf_hash' AND calls > 0)")"

# --- publishing: history last, a lost race (another write since the generation read), and
# a database another writer keeps locked: exit 2, one line saying what to do, nothing added
P=$TMP/pub.db
cp "$DB" "$P"
expect_exit 0 "$PERFGATE" history last --db "$P" --branch main
check_contains "last: generation" "$TMP/stdout" '^generation=16$'
check_contains "last: newest commit" "$TMP/stdout" '^commit=c150000000000000000000000000000000000000$'
check "add at the generation read" H add "$TMP/aa/s00.json" --db "$P" --expect-generation 16
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s01.json" --db "$P" --expect-generation 16
has "is at generation 17, not 16: another publisher wrote to it since; restore"
check_eq "lost race: one line" 1 "$(wc -l <"$TMP/stderr")"
check_eq "lost race: nothing added" 17 "$(sessions "$P")"
(echo 'BEGIN IMMEDIATE;'; sleep 3; echo 'ROLLBACK;') | sqlite3 "$P" &
LOCKER=$!
sleep 0.5
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s01.json" --db "$P" --wait 1
has "database is locked: another writer held it too long: let that one finish"
check_eq "locked: one line" 1 "$(wc -l <"$TMP/stderr")"
wait "$LOCKER"
check_eq "locked: nothing added" 17 "$(sessions "$P")"

# --- prune: each branch's newest N, every row of the others, one generation
sqlite3 "$P" "UPDATE session SET branch = 'dev' WHERE id = 17"
expect_exit 0 "$PERFGATE" history prune --db "$P" --keep 10 --dry-run
check_contains "dry run: said" "$TMP/stdout" '^branch main: would remove 6 session(s), 2026-01-01T00:00:00Z .. 2026-01-01T05:00:00Z$'
check_eq "dry run: nothing removed" 17 "$(sessions "$P")"
expect_exit 2 "$PERFGATE" history prune --db "$P" --keep 10 --expect-generation 16
expect_exit 0 "$PERFGATE" history prune --db "$P" --keep 10 --expect-generation 17
check_contains "prune: reported" "$TMP/stdout" '^perfgate: removed 6 session(s) (24 series rows) and 0 object(s) no session holds; 11 session(s) kept$'
check_eq "prune: main's newest 10 and dev's one" "10|1|c06" "$(sqlite3 "$P" "SELECT
	sum(branch = 'main'), sum(branch = 'dev'), (SELECT min(substr(commit_id, 1, 3)) FROM
	session WHERE branch = 'main') FROM session")"
check_eq "prune: no row of a removed session in any table" "0|0|0|0" "$(sqlite3 "$P" "SELECT
	(SELECT count(*) FROM series WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM point WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM summary WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM changes_cache)")"
check_eq "prune: a generation" 18 "$(sqlite3 "$P" \
	"SELECT value FROM perfgate_history WHERE key = 'generation'")"
expect_exit 0 "$PERFGATE" history prune --db "$P" --before 2026-01-01T12:00:00Z --branch main
check_eq "--before, one branch" "4|1" "$(sqlite3 "$P" "SELECT sum(branch = 'main'),
	sum(branch = 'dev') FROM session")"
expect_exit 2 "$PERFGATE" history prune --db "$P"
has "give --keep N, --older-than DAYS or --before TIME"
expect_exit 0 "$PERFGATE" history changes --db "$P"

# --- check: the sessions since the last change point are the baseline
FLAT=$TMP/flat.db
for i in 00 01 02 03 04 05 06 07 08 09; do H add "$TMP/slow/s$i.json" --db "$FLAT"; done
expect_exit 1 "$PERFGATE" history check "$TMP/slow/s12.json" --db "$FLAT" --json "$TMP/r.json" \
	--junit "$TMP/r.xml" --markdown "$TMP/r.md"
cat "$TMP/stdout"
check_contains "REGRESSION line" "$TMP/stdout" '^perfgate: REGRESSION in 1 function: leaf_hash'
check_contains "base: the newest stored session" "$TMP/stdout" 'commit c09000000000'
check "JUnit validates" xmllint --noout --schema "$XSD" "$TMP/r.xml"
check_contains "Markdown names it" "$TMP/r.md" 'leaf_hash'
# self time is corrected for the machine's speed the on-CPU times show, and on-CPU time for
# its own; but three traced functions are too few: each would be corrected by the median of
# two others
check_eq "self time: its speed from three on-CPU times at most, too few" "True False" \
	"$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["speed"]; print(s["refs"] <= 3, s["applied"])' "$TMP/r.json")"
check_eq "the program's CPU time judged, as measured" "True unchanged" \
	"$(python3 -c 'import json,sys, pgtest; r=pgtest.load(sys.argv[1]); print(r["judged"]["program"], pgtest.func(r, "cpu-time")["verdict"])' "$TMP/r.json")"
expect_exit 1 "$PERFGATE" history check "$TMP/slow/s12.json" --db "$FLAT" --metric cpu
check_contains "machine speed not corrected, said" "$TMP/stdout" \
	'machine speed: not corrected: [0-3] functions* to tell it from, 4 needed'
check_eq "JSON result: leaf_hash regressed over 10 sessions" "regression regression 10" \
	"$(python3 - "$TMP/r.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
f = pgtest.func(r, "leaf_hash")
print(r["overall"], f["verdict"], f["n_base"])
PY
)"
# A/A: new sessions of the same code pass, also through compare's writers
for i in 00 01 02; do
	expect_exit 0 "$PERFGATE" history check "$TMP/aa/s$i.json" --db "$FLAT" --json "$TMP/aa$i.json"
	check_contains "A/A $i passes" "$TMP/stdout" '^perfgate: PASS'
done
# a function the new run no longer calls is removed, the others still judged
expect_exit 0 "$PERFGATE" history check "$TMP/drop/s00.json" --db "$FLAT" --json "$TMP/drop.json"
check_eq "removed: leaf_mix, leaf_hash still judged" "removed 10" "$(python3 - "$TMP/drop.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
print(pgtest.func(r, "leaf_mix")["verdict"], pgtest.func(r, "leaf_hash")["n_base"])
PY
)"
# after the change point only the slower sessions are the baseline: a slow session passes...
expect_exit 0 "$PERFGATE" history check "$TMP/slow/s15.json" --db "$DB"
# ...and --until before it takes the earlier level: the same session is a regression
expect_exit 1 "$PERFGATE" history check "$TMP/slow/s15.json" --db "$DB" --until c05
check_contains "--until: base commit" "$TMP/stdout" 'commit c05000000000'
expect_exit 2 "$PERFGATE" history check "$TMP/slow/s15.json" --db "$DB" --until deadbeef
has "no stored session of commit 'deadbeef'"
expect_exit 2 "$PERFGATE" history check "$TMP/slow/s15.json" --db "$DB" --flamegraph x.svg
has "is for two runs"
# too few sessions to judge: inconclusive, never PASS
TWO=$TMP/two.db
H add "$TMP/slow/s00.json" --db "$TWO"
H add "$TMP/slow/s01.json" --db "$TWO"
expect_exit 0 "$PERFGATE" history check "$TMP/slow/s12.json" --db "$TWO"
check_contains "two sessions: inconclusive" "$TMP/stdout" '^perfgate: INCONCLUSIVE'
expect_exit 2 "$PERFGATE" history check "$TMP/slow/s12.json" --db "$TWO" --strict

# --- plot: SVG and HTML, one point per session, the change point marked, commits on hover
expect_exit 0 "$PERFGATE" history plot leaf_hash '[program]' --db "$DB" -o "$TMP/p.svg"
check "SVG is XML" xmllint --noout "$TMP/p.svg"
check_eq "16 points per panel, 2 panels" 32 "$(grep -o '<circle' "$TMP/p.svg" | wc -l)"
check_eq "one change point line" 1 "$(grep -o 'class="cp"' "$TMP/p.svg" | wc -l)"
check_contains "commit on hover" "$TMP/p.svg" '<title>commit c100000000000000000000000000000000000000'
expect_exit 0 "$PERFGATE" history plot 'leaf_*' --db "$DB" -o "$TMP/p.html"
check_contains "HTML page" "$TMP/p.html" '<html><head><meta charset="utf-8"/>'
render_svg "file://$TMP/p.html" "$TMP/p.png"
python3 - "$TMP/p.png" <<'PY'
import sys
from pgtest import png_pixels
px = png_pixels(sys.argv[1])
red = sum(1 for r, g, b in px if r > 180 and g < 90 and b < 90)
blue = sum(1 for r, g, b in px if b > 150 and r < 80 and 90 < g < 160)
assert red > 50, ("no change point drawn", red)
assert blue > 300, ("no points drawn", blue)
PY
expect_exit 2 "$PERFGATE" history plot nosuchfunc --db "$DB" -o "$TMP/n.svg"
has "no stored session has a function matching 'nosuchfunc'"
check "no plot file" test ! -e "$TMP/n.svg"

# --- refusals: exit 2, one message, the file untouched
head -c 8192 /dev/urandom >"$TMP/corrupt.db"
cp "$TMP/corrupt.db" "$TMP/corrupt.orig"
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$TMP/corrupt.db"
has "corrupt.db: .*file is not a database"
check_eq "one line" 1 "$(wc -l <"$TMP/stderr")"
check "corrupt file unchanged" cmp -s "$TMP/corrupt.db" "$TMP/corrupt.orig"
expect_exit 2 "$PERFGATE" history changes --db "$TMP/corrupt.db"
sqlite3 "$TMP/foreign.db" 'CREATE TABLE notes(x); INSERT INTO notes VALUES (1)'
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$TMP/foreign.db"
has "foreign.db is not a perfgate history database (it holds other tables)"
check_eq "foreign database unchanged" notes "$(sqlite3 "$TMP/foreign.db" .tables)"
expect_exit 2 "$PERFGATE" history changes --db "$TMP/missing.db"
has "no history database at"
check "not created" test ! -e "$TMP/missing.db"
# a version-1 database (a series row per metric, no change points' cache) is upgraded when
# opened, its series the same as those an add writes now
cp "$DB" "$TMP/v1.db"
python3 "$PERFGATE_SRCDIR/tests/e2e/hist_v1.py" "$TMP/v1.db"
check_eq "version 1: a row per metric" 1 "$(sqlite3 "$TMP/v1.db" \
	"SELECT count(*) > 2 * 16 * (SELECT count(*) FROM object) FROM series")"
expect_exit 0 "$PERFGATE" history changes --db "$TMP/v1.db"
check_eq "migrated to version 6" "6|changes_cache|changes_alerted|session_env" \
	"$(sqlite3 "$TMP/v1.db" "SELECT version,
	(SELECT name FROM sqlite_master WHERE name = 'changes_cache'),
	(SELECT name FROM sqlite_master WHERE name = 'changes_alerted'),
	(SELECT name FROM sqlite_master WHERE name = 'session_env') FROM schema_version")"
# the medians filled from the series are those the adds wrote, within the 0.025% the
# encoded values keep
check_eq "migrated points: every one, the same medians" \
	"$(sqlite3 "$DB" 'SELECT count(*) FROM point')" "$(sqlite3 "$TMP/v1.db" "ATTACH '$DB' AS o;
	SELECT count(*) FROM point p JOIN o.point k USING(session_id, object_id) WHERE
	(p.self IS NULL AND k.self IS NULL OR abs(p.self - k.self) <= 0.0003 * abs(k.self)) AND
	(p.wall IS NULL AND k.wall IS NULL OR abs(p.wall_hi - k.wall_hi) <= 0.0003 * k.wall_hi)")"
rows() { sqlite3 "$1" 'SELECT session_id, object_id, hex(vals) FROM series ORDER BY 1, 2'; }
check_eq "migrated series unchanged" "$(rows "$DB" | md5sum)" "$(rows "$TMP/v1.db" | md5sum)"
check_eq "the old rows gone" "" "$(sqlite3 "$TMP/v1.db" \
	"SELECT name FROM sqlite_master WHERE name = 'series_v2'")"
sqlite3 "$T2" 'UPDATE schema_version SET version = 99'
expect_exit 2 "$PERFGATE" history changes --db "$T2"
has "schema version 99, newer than this perfgate's"
# an add that fails half-way (the summaries' table is gone) leaves no trace
cp "$FLAT" "$TMP/broken.db"
sqlite3 "$TMP/broken.db" 'DROP TABLE summary'
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$TMP/broken.db"
check_eq "rolled back: no session" 10 "$(sessions "$TMP/broken.db")"
check_eq "rolled back: no series" "$(sqlite3 "$FLAT" 'SELECT count(*) FROM series')" \
	"$(sqlite3 "$TMP/broken.db" 'SELECT count(*) FROM series')"
expect_exit 2 "$PERFGATE" history nosuch
has "unknown command 'nosuch'"

# --- concurrent adds to one new file: all land
C=$TMP/conc.db
pids=()
for i in 00 01 02 03 04 05; do
	"$PERFGATE" -q history add "$TMP/slow/s$i.json" --db "$C" 2>"$TMP/conc$i.err" &
	pids+=($!)
done
for p in "${pids[@]}"; do check "concurrent add $p" wait "$p"; done
check_eq "six concurrent adds, six sessions" 6 "$(sessions "$C")"
check_eq "each session complete" 6 \
	"$(sqlite3 "$C" 'SELECT count(DISTINCT session_id) FROM summary')"

# --- the CI templates' history step (ci-templates/perfgate-ci.sh): publish adds the run of
# HEAD to the history, compare mode checks a run against it
R=$TMP/repo
mkdir -p "$R/out"
git -C "$R" init -q -b main
git -C "$R" -c user.email=t@e -c user.name=t commit -q --allow-empty -m one
ci_history() { # MODE DB [VAR=VALUE]...: the history step of $R/out/run.json
	local mode=$1 db=$2
	shift 2
	(cd "$R" && env PERFGATE="$PERFGATE" PG_OUT="$R/out" PG_BASE_REF=main PG_MODE="$mode" \
		PG_HISTORY="$db" "$@" bash "$PERFGATE_SRCDIR/ci-templates/perfgate-ci.sh" history)
}
for i in 00 01 02 03 04 05; do
	cp "$TMP/slow/s$i.json" "$R/out/run.json"
	check "CI publish $i" ci_history publish "$R/out/h.db"
done
check_eq "CI: six sessions of main at HEAD" "6|main|$(git -C "$R" rev-parse HEAD)" \
	"$(sqlite3 "$R/out/h.db" 'SELECT count(*), branch, commit_id FROM session')"
check "CI: changes written" test -s "$R/out/history-changes.json"
cp "$TMP/slow/s12.json" "$R/out/run.json"
expect_exit 1 ci_history compare "$R/out/h.db"
check "CI: history check's outputs" test -s "$R/out/history-check.json" -a \
	-s "$R/out/history-summary.md"
expect_exit 0 ci_history compare "$R/out/h.db" PG_HISTORY_GATE=false
expect_exit 0 ci_history compare "$R/out/none.db"
has "history: none yet"
expect_exit 0 ci_history compare ""
# GitLab's publisher fetches the newest published copy (the default branch's latest artifact,
# served here) again before its own is kept: the same generation as it started from keeps its
# copy; another publisher's adds the run to that copy; an unreadable one keeps nothing
W=$TMP/www/api/v4/projects/1/jobs/artifacts/main/raw/out
mkdir -p "$W"
python3 - "$TMP/www" "$TMP/www.port" <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.HTTPServer(("127.0.0.1", 0), h)
open(sys.argv[2] + ".tmp", "w").write(str(s.server_address[1]))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
PY
WWW=$!
ON_EXIT='kill $WWW 2>/dev/null'
for _ in $(seq 50); do [ -s "$TMP/www.port" ] && break; sleep 0.1; done
GL=(GITLAB_CI=true "CI_API_V4_URL=http://127.0.0.1:$(cat "$TMP/www.port")/api/v4"
    CI_PROJECT_ID=1 CI_DEFAULT_BRANCH=main)
gen() { "$PERFGATE" history last --db "$1" | sed -n 's/^generation=//p'; }
cp "$R/out/h.db" "$W/g.db"	# published: h.db and another publisher's run
H add "$TMP/slow/s06.json" --db "$W/g.db" --branch main
cp "$R/out/h.db" "$R/out/g.db"	# what this job restored: one generation older
cp "$TMP/slow/s07.json" "$R/out/run.json"
g=$(gen "$R/out/g.db")
expect_exit 0 ci_history publish out/g.db "${GL[@]}"
has "another publisher saved the history since this job restored it (generation $g, now $((g + 1))): adding this job's run to that copy instead"
check_eq "GitLab race: both runs kept" "$(($(sessions "$R/out/h.db") + 2))" \
	"$(sessions "$R/out/g.db")"
check_eq "GitLab race: the other's run kept" 1 "$(sqlite3 "$R/out/g.db" \
	"SELECT count(*) FROM session WHERE time = '2026-01-01T06:00:00Z'")"
cp "$W/g.db" "$W/g2.db"	# no race: downloaded, added to, unchanged when fetched again
expect_exit 0 ci_history publish out/g2.db "${GL[@]}"
check "GitLab, no race: said it lost one" not grep -q 'another publisher' "$TMP/stderr"
check_eq "GitLab, no race: its run added" $(($(sessions "$W/g2.db") + 1)) \
	"$(sessions "$R/out/g2.db")"
echo 'not a database' >"$W/g3.db"
cp "$R/out/h.db" "$R/out/g3.db"
expect_exit 2 ci_history publish out/g3.db "${GL[@]}"
has "nothing saved; re-run this job to add its run"
check "GitLab, unreadable copy: something kept" test ! -e "$R/out/g3.db"
check "GitLab, unreadable copy: the job's copy lost" test -s \
	"$R/out/perfgate-history-not-saved.db"
kill "$WWW"

# --- the history's reading and writing paths under valgrind memcheck: no error, no leak
# (not while another process's uprobe sits in libc: valgrind runs its int3 and dies of SIGTRAP)
if command -v valgrind >/dev/null && valgrind -q /bin/true 2>/dev/null; then
	VG=(valgrind -q --error-exitcode=99 --leak-check=full
	    --show-leak-kinds=definite,indirect,possible
	    --errors-for-leak-kinds=definite,indirect,possible)
	V=$TMP/vg.db
	cp "$FLAT" "$V"
	expect_exit 0 "${VG[@]}" "$PERFGATE" -q history add "$TMP/aa/s00.json" --db "$V"
	expect_exit 0 "${VG[@]}" "$PERFGATE" history changes --db "$V" --json "$TMP/vg.json"
	expect_exit 1 "${VG[@]}" "$PERFGATE" history changes --db "$TMP/alert-vg.db" --alert-new \
		--markdown "$TMP/vg.md" --json "$TMP/vg.json"
	expect_exit 1 "${VG[@]}" "$PERFGATE" history check "$TMP/slow/s12.json" --db "$V" \
		--json "$TMP/vgc.json" --junit "$TMP/vgc.xml" --markdown "$TMP/vgc.md"
	expect_exit 0 "${VG[@]}" "$PERFGATE" history plot 'leaf_*' '[program]' --db "$V" \
		-o "$TMP/vg.html"
	expect_exit 2 "${VG[@]}" "$PERFGATE" history changes --db "$TMP/corrupt.db"
else
	echo "valgrind part skipped: valgrind missing, or it cannot run /bin/true here"
fi
