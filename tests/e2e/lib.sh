# SPDX-License-Identifier: MIT
# Shared helpers for the end-to-end tests (sourced). Each test runs real probes on the small
# programs in tests/progs (built into $PROGS) and checks timing-free facts: exact call counts,
# exit codes, files written or not, and relations that hold whatever the timings.
#
# Two kinds of assertion:
#  - named checks (check, check_eq, check_contains, has, expect_exit): a failure prints
#    "FAIL: NAME: why" and the script goes on, so one run names every check that failed;
#    the script then exits 1 at the end (the EXIT trap below), after "N of M checks failed".
#  - fail MESSAGE: stops the script at once, for a step the rest cannot do without.
# Commands that are not checks (recording the runs the checks read) run under set -e: their
# failure stops the script. JSON is read with tests/e2e/pgtest.py ($PGTEST, see there).
#
#	expect_exit 2 "$PERFGATE" compare "$TMP/a.json" "$TMP/missing.json"
#	has "missing.json"			# in the stderr of the last expect_exit
#	check_eq "main is called once" 1 "$(pgtest calls "$TMP/a.json" main)"
#	check "no run file" test ! -e "$TMP/x.json"
set -euo pipefail
: "${PERFGATE:?run through tests/run.sh}"
: "${PROGS:?run through tests/run.sh}"
TMP=$(mktemp -d /tmp/perfgate-e2e.XXXXXX)
PGTEST=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pgtest.py
export PYTHONPATH=${PGTEST%/*}${PYTHONPATH:+:$PYTHONPATH}	# heredocs: import pgtest
CHECKS_RUN=0 CHECKS_FAILED=0
ON_EXIT=""	# a test's own clean-up, run first at exit
on_exit() {
	local rc=$?
	eval "$ON_EXIT" || true
	rm -rf "$TMP"
	if [ "$CHECKS_FAILED" -gt 0 ]; then
		echo "$CHECKS_FAILED of $CHECKS_RUN checks failed" >&2
		[ "$rc" -ne 0 ] || rc=1
	fi
	exit "$rc"
}
trap on_exit EXIT
# a command outside the checks that fails stops the script (set -e): say which, and what it
# said when its stderr went to $TMP/stderr, so that a stop is never a silent exit
on_err() {
	local rc=$?
	echo "FAILED: line ${BASH_LINENO[0]}: '$BASH_COMMAND' exited $rc" >&2
	if [ -s "$TMP/stderr" ]; then
		tail -n 20 "$TMP/stderr" | sed 's/^/    | /' >&2
	fi
}
trap on_err ERR
cd "$PROGS"

fail() { echo "FAILED: $*" >&2; exit 1; }

# check_failed NAME WHY...: count a failed check and say which
check_failed() {
	CHECKS_FAILED=$((CHECKS_FAILED + 1))
	echo "FAIL: $1: ${*:2}" >&2
}

# check NAME CMD...: CMD exits 0 (its output goes to the log)
check() {
	local name=$1 rc=0
	shift
	CHECKS_RUN=$((CHECKS_RUN + 1))
	"$@" || rc=$?
	[ "$rc" = 0 ] || check_failed "$name" "'$*' exited $rc"
}

# not CMD...: CMD exits non-zero (for check: check "no file" not grep -q x f)
not() { ! "$@"; }

# check_eq NAME WANT GOT
check_eq() {
	CHECKS_RUN=$((CHECKS_RUN + 1))
	[ "$2" = "$3" ] || check_failed "$1" "got '$3', want '$2'"
}

# check_contains NAME FILE PATTERN: a line of FILE matches PATTERN (grep's basic regex)
check_contains() {
	CHECKS_RUN=$((CHECKS_RUN + 1))
	if ! grep -q -- "$3" "$2"; then
		sed 's/^/    | /' "$2" | tail -n 20 >&2
		check_failed "$1" "$(basename "$2") lacks '$3'"
	fi
}

# has PATTERN: the stderr of the last expect_exit matches PATTERN
has() { check_contains "stderr has '$1'" "$TMP/stderr" "$1"; }

# pgtest COMMAND ARGS...: tests/e2e/pgtest.py (run-file and compare-result readers)
pgtest() { python3 "$PGTEST" "$@"; }

# calls RUN.json: "function calls_per_repetition" lines, sorted (the normalized output).
calls() {
	"$PERFGATE" report "$1" --format json >"$TMP/calls.report.json"
	"$PERFGATE" report "$1" --format csv |
		pgtest calls-per-rep "$(pgtest get "$TMP/calls.report.json" repetitions)"
}

# settle CMD...: CMD's output once it is empty, or after 3 s (polled every 0.1 s): processes
# sent SIGKILL, or objects freed late, may need a moment of a busy machine to be gone
settle() {
	local i out
	for i in $(seq 30); do
		out=$("$@" || true)
		[ -z "$out" ] && break
		sleep 0.1
	done
	printf '%s' "$out"
}

# expect_same EXPECTED-FILE ACTUAL-FILE: a check that the two files are the same (diff shown)
expect_same() {
	CHECKS_RUN=$((CHECKS_RUN + 1))
	diff -u "$1" "$2" >&2 ||
		check_failed "$(basename "$2")" "differs from $(basename "$1") (above)"
}

# expect_exit CODE CMD...: a check that CMD exits CODE; its stdout and stderr are kept in
# $TMP/stdout and $TMP/stderr (shown when the check fails)
expect_exit() {
	local want=$1 got=0
	shift
	CHECKS_RUN=$((CHECKS_RUN + 1))
	"$@" >"$TMP/stdout" 2>"$TMP/stderr" || got=$?
	if [ "$got" != "$want" ]; then
		cat "$TMP/stdout" "$TMP/stderr" >&2
		check_failed "'$*'" "exited $got, expected $want"
	fi
}

# render_svg SVG PNG [WIDTH,HEIGHT]: a screenshot of SVG in headless Chromium (no network;
# default window 1200,800); read it with pgtest.png_read. Stops the test if chromium fails.
render_svg() {
	local profile
	profile=$(mktemp -d "$TMP/chromium.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --screenshot="$2" --window-size="${3:-1200,800}" "$1" \
		>"$TMP/chromium.log" 2>&1 ||
		{ cat "$TMP/chromium.log" >&2; fail "chromium failed"; }
	check "chromium wrote a screenshot of $1" test -s "$2"
}
