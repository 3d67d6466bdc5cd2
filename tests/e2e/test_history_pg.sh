# SPDX-License-Identifier: MIT
# perfgate history against a real PostgreSQL server (docs/history.md): the test starts
# Debian's PostgreSQL 15 itself, as the postgres user, with initdb in a temporary directory,
# its Unix socket there and no TCP (listen_addresses ''), and stops it at the end. Every
# command, the schema check, a refused foreign database, concurrent adds; the medians read
# with plain SQL, prune, a lost race and a writer's lock held too long.
source "$(dirname "$0")/lib.sh"
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
RUNS="python3 $PERFGATE_SRCDIR/tests/e2e/hist_runs.py"
if [ ! -x "$PGBIN/initdb" ] || ! id postgres >/dev/null 2>&1; then
	echo "SKIP: no PostgreSQL 15 server binaries in $PGBIN (make deps installs postgresql)"
	exit 0
fi

# the server's directory must belong to postgres; $TMP (mode 700, root's) is not reachable
PGD=$(mktemp -d /tmp/perfgate-pg.XXXXXX)
chown postgres "$PGD"
as_pg() { su postgres -s /bin/sh -c "$*"; }
ON_EXIT="as_pg '$PGBIN/pg_ctl -D $PGD/data -m immediate stop' >/dev/null 2>&1; rm -rf '$PGD'"
as_pg "$PGBIN/initdb -D $PGD/data -A trust -U postgres" >"$TMP/initdb.log" 2>&1 ||
	{ cat "$TMP/initdb.log" >&2; fail "initdb failed"; }
as_pg "$PGBIN/pg_ctl -D $PGD/data -l $PGD/server.log -w -o \"-c listen_addresses='' -k $PGD\" start" \
	>"$TMP/start.log" 2>&1 || { cat "$TMP/start.log" "$PGD/server.log" >&2; fail "no server"; }
URI="postgresql:///postgres?host=$PGD&user=postgres"
psql() { "$PGBIN/psql" -X -q -t -A "$URI" -c "$1"; }
check_eq "no TCP listener" "" "$(psql 'SHOW listen_addresses')"
H() { "$PERFGATE" -q history "$@"; }

"$PERFGATE" record -q -o "$TMP/t.json" -r 6 -f leaf_hash -f leaf_mix -f checksum -- ./knob
mkdir "$TMP/s" "$TMP/aa"
$RUNS "$TMP/t.json" "$TMP/s" 16 --slow leaf_hash=1.3@10
$RUNS "$TMP/t.json" "$TMP/aa" 1 --seed 7

# a database that holds a table of ours but not our marker: refused, untouched
psql 'CREATE TABLE session(x int)'
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$URI"
has "is not a perfgate history database (it holds other tables)"
check_eq "the foreign table untouched, nothing created" "session" \
	"$(psql "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'")"
psql 'DROP TABLE session'
expect_exit 2 "$PERFGATE" history changes --db "$URI"
has "holds no history yet"

for f in "$TMP"/s/s*.json; do check "add $(basename "$f")" H add "$f" --db "$URI"; done
check_eq "16 sessions" 16 "$(psql 'SELECT count(*) FROM session')"
check_eq "schema version" 6 "$(psql 'SELECT version FROM schema_version')"
check_eq "the password is never shown" 0 "$("$PERFGATE" history changes \
	--db "postgresql://postgres:hunter2@/nosuchdb?host=$PGD" 2>&1 | grep -c hunter2)"

expect_exit 0 "$PERFGATE" history changes --db "$URI" --json "$TMP/ch.json"
check_contains "change at c10" "$TMP/stdout" '^leaf_hash  *c09000000000  c10000000000 .*regression$'
check_eq "one change point" 1 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["changes"]))' "$TMP/ch.json")"
check_eq "the change points' cache" 2 "$(psql 'SELECT count(*) FROM changes_cache')"
expect_exit 0 "$PERFGATE" history changes --db "$URI" --json "$TMP/ch2.json"
check "the cached scan agrees" cmp -s "$TMP/ch.json" "$TMP/ch2.json"
# --alert-new: the change at c10 alerts once, recorded in changes_alerted
expect_exit 1 "$PERFGATE" history changes --db "$URI" --alert-new
expect_exit 0 "$PERFGATE" history changes --db "$URI" --alert-new
check_eq "alerted once, at c10" "1|c10" "$(psql "SELECT count(*), min(substr(s.commit_id, 1, 3))
	FROM changes_alerted a JOIN session s ON s.id = a.session_id")"
expect_exit 0 "$PERFGATE" history check "$TMP/s/s15.json" --db "$URI"
expect_exit 1 "$PERFGATE" history check "$TMP/s/s15.json" --db "$URI" --until c09 \
	--json "$TMP/r.json"
check_contains "regression against the earlier level" "$TMP/stdout" \
	'^perfgate: REGRESSION in 1 function: leaf_hash'
expect_exit 0 "$PERFGATE" history plot leaf_hash --db "$URI" -o "$TMP/p.svg"
check_eq "16 points" 16 "$(grep -o '<circle' "$TMP/p.svg" | wc -l)"

# the medians as plain columns: the Grafana panel's query of docs/history.md, a time series
# of leaf_hash's median self time, 30% slower from c10 on
psql "SELECT time::timestamptz AS time, self AS leaf_hash FROM trend WHERE binary_file =
	'knob' AND name = 'leaf_hash' AND branch = '' ORDER BY 1" >"$TMP/panel"
check_eq "the panel: 16 rows" 16 "$(wc -l <"$TMP/panel")"
check_eq "the step in the medians, each within its interval" t "$(psql "SELECT
	(SELECT min(self) FROM trend WHERE name = 'leaf_hash' AND commit_id >= 'c10') >
	1.2 * (SELECT max(self) FROM trend WHERE name = 'leaf_hash' AND commit_id < 'c10') AND
	(SELECT bool_and(self_lo <= self AND self <= self_hi) FROM trend)")"
psql 'CREATE TABLE kept AS SELECT * FROM point'

# a version-1 database (a series row per metric, no change points' cache) is upgraded when
# opened, its series the same as those an add writes now
rows() { psql "SELECT session_id, object_id, encode(vals, 'hex') FROM series ORDER BY 1, 2"; }
rows >"$TMP/rows3"
python3 "$PERFGATE_SRCDIR/tests/e2e/hist_v1.py" --pg <"$TMP/rows3" >"$TMP/v1.sql"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$URI" -f "$TMP/v1.sql" >/dev/null
n3=$(wc -l <"$TMP/rows3")
check_eq "version 1: a row per metric" 1 "$(psql "SELECT (count(*) > 2 * $n3)::int FROM series")"
expect_exit 0 "$PERFGATE" history changes --db "$URI"
check_eq "migrated to version 6" 6 "$(psql 'SELECT version FROM schema_version')"
check_eq "migrated series unchanged" "$(md5sum <"$TMP/rows3")" "$(rows | md5sum)"
check_eq "the old rows gone" "" \
	"$(psql "SELECT tablename FROM pg_tables WHERE tablename = 'series_v2'")"
check_eq "migrated points: the same medians" "$(psql 'SELECT count(*) FROM kept')" "$(psql "
	SELECT count(*) FROM point p JOIN kept k USING (session_id, object_id) WHERE
	(p.self IS NULL AND k.self IS NULL OR abs(p.self - k.self) <= 0.0003 * abs(k.self)) AND
	(p.wall IS NULL AND k.wall IS NULL OR abs(p.wall_hi - k.wall_hi) <= 0.0003 * k.wall_hi)")"
psql 'DROP TABLE kept'

# publishing: a lost race, and the writers' lock held by another: exit 2, one line
gen=$("$PERFGATE" history last --db "$URI" | sed -n 's/^generation=//p')
check_eq "generation: the migrated database's sessions" 16 "$gen"
check "add at the generation read" H add "$TMP/aa/s00.json" --db "$URI" --expect-generation 16
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$URI" --expect-generation 16
has "is at generation 17, not 16: another publisher wrote to it since"
check_eq "lost race: one line, nothing added" "1 17" \
	"$(wc -l <"$TMP/stderr") $(psql 'SELECT count(*) FROM session')"
psql "SELECT pg_advisory_lock($(grep -o '"[0-9]*"' "$PERFGATE_SRCDIR/history/schema.h" |
	tr -d '"')), pg_sleep(3)" >/dev/null &
LOCKER=$!
sleep 0.5
expect_exit 2 "$PERFGATE" history add "$TMP/aa/s00.json" --db "$URI" --wait 1
has "the writers' lock: another writer held it too long"
check_eq "locked: one line" 1 "$(wc -l <"$TMP/stderr")"
wait "$LOCKER"
check_eq "locked: nothing added" 17 "$(psql 'SELECT count(*) FROM session')"

# prune: the newest 10, every row of the others
expect_exit 0 "$PERFGATE" history prune --db "$URI" --keep 10 --expect-generation 17
check_contains "prune: reported" "$TMP/stdout" '^perfgate: removed 7 session(s) (28 series rows)'
check_eq "prune: no row of a removed session, no cache" "10|0|0|0|0" "$(psql "SELECT
	(SELECT count(*) FROM session),
	(SELECT count(*) FROM series WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM point WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM summary WHERE session_id NOT IN (SELECT id FROM session)),
	(SELECT count(*) FROM changes_cache)")"
expect_exit 0 "$PERFGATE" history changes --db "$URI"

# concurrent adds: all land (the writers' advisory lock)
pids=()
for i in 00 01 02 03; do
	"$PERFGATE" -q history add "$TMP/s/s$i.json" --db "$URI" --branch conc &
	pids+=($!)
done
for p in "${pids[@]}"; do check "concurrent add $p" wait "$p"; done
check_eq "four more sessions" 4 "$(psql "SELECT count(*) FROM session WHERE branch = 'conc'")"
check_eq "each complete" 4 "$(psql "SELECT count(DISTINCT s.session_id) FROM summary s JOIN session x ON x.id = s.session_id WHERE x.branch = 'conc'")"
