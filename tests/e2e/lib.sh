# Shared helpers for the end-to-end tests (sourced). Each test runs real probes on the small
# programs in tests/progs (built into $PROGS) and checks timing-free facts: exact call counts,
# exit codes, files written or not, and relations that hold whatever the timings.
set -euo pipefail
: "${PERFGATE:?run through tests/run.sh}"
: "${PROGS:?run through tests/run.sh}"
TMP=$(mktemp -d /tmp/perfgate-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cd "$PROGS"

fail() { echo "FAILED: $*" >&2; exit 1; }

# calls RUN.json: "function calls_per_repetition" lines, sorted (the normalized output).
calls() {
	local reps
	reps=$("$PERFGATE" report "$1" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["repetitions"])')
	"$PERFGATE" report "$1" --format csv |
		python3 -c '
import csv, sys
reps = int(sys.argv[1])
rows = list(csv.DictReader(sys.stdin))
for r in sorted(rows, key=lambda r: r["function"]):
    c = int(r["calls"])
    print(r["function"], c // reps if c % reps == 0 else "%d/%d" % (c, reps))
' "$reps"
}

# expect_output NAME <<EOF ... : compare stdin of a command with the expected text
expect_same() { # expected-file actual-file
	if ! diff -u "$1" "$2"; then
		fail "output differs from expected (above)"
	fi
}

# expect_exit CODE CMD...: run CMD, check its exit status, keep its stderr in $TMP/stderr
expect_exit() {
	local want=$1 got=0
	shift
	"$@" >"$TMP/stdout" 2>"$TMP/stderr" || got=$?
	if [ "$got" != "$want" ]; then
		cat "$TMP/stdout" "$TMP/stderr" >&2
		fail "'$*' exited $got, expected $want"
	fi
}
