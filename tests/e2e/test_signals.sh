# SPDX-License-Identifier: MIT
# SIGINT, SIGTERM or SIGHUP during a recording end the benchmark's whole process tree (also
# processes that left its process group, stopped ones and ones that ignore SIGTERM), detach
# every probe and write no run file: exit 2 and one message. --timeout ends a repetition that
# runs too long, the same way.
source "$(dirname "$0")/lib.sh"
mark=pg-signals-$$

left() { # processes of the benchmark still alive
	pgrep -f -- "$mark" || true
}
# the BPF links and programs a running perfgate holds, as "link ID" and "prog ID" lines
held() {
	grep -h -E '^(link_id|prog_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed 's/_id:[[:space:]]*/ /' | sort -u
}
# none of the objects listed in file $1 exists any more (deferred frees get 3 s)
gone() {
	local i kind id
	for i in $(seq 30); do
		bpftool link show >"$TMP/links" 2>/dev/null
		bpftool prog show >"$TMP/progs" 2>/dev/null
		while read -r kind id; do
			grep -q "^$id: " "$TMP/${kind}s" && continue 2
		done <"$1"
		return 0
	done
	return 1
}

# How long a recording takes to start and stop on this machine now (calibrating, attaching,
# detaching), measured on a program that ends at once, 1.6x for the machine's speed moving from
# one moment to the next: the slack of the time windows below, in ms
ms() { date +%s%3N; }
t0=$(ms)
"$PERFGATE" record --all-functions -q -o "$TMP/ref.json" -r 1 -- ./calls
start=$((($(ms) - t0) * 16 / 10))

# stop SIGNAL MODE: start recording ./hang MODE, wait until it runs, send SIGNAL to perfgate
stop() {
	local sig=$1 mode=$2 pid rc=0 i
	rm -f "$TMP/run.json" "$TMP/out"
	"$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 3 -- ./hang "$mode" "$mark" \
		>"$TMP/out" 2>"$TMP/stderr" &
	pid=$!
	# (up to 60 s: a busy machine took ~3 s to calibrate and attach; polled, so no longer)
	for i in $(seq 600); do grep -q ready "$TMP/out" 2>/dev/null && break; sleep 0.1; done
	grep -q ready "$TMP/out" || fail "$mode: the benchmark did not start"
	held "$pid" >"$TMP/held"
	grep -q '^link ' "$TMP/held" || fail "$mode: perfgate holds no BPF link"
	t0=$(ms)
	kill -"$sig" "$pid"
	wait "$pid" || rc=$?
	took=$(($(ms) - t0))
	[ "$rc" = 2 ] || { cat "$TMP/stderr"; fail "$sig/$mode: perfgate exited $rc, not 2"; }
	# the grace, then detaching: 3 s, or the time a recording takes to start if more
	[ $took -le $((PG_GRACE * 1000 + (start > 3000 ? start : 3000))) ] ||
		fail "$sig/$mode: took ${took} ms to stop"
	grep -q "stopped by SIG$sig" "$TMP/stderr" || { cat "$TMP/stderr"; fail "$sig/$mode: no message"; }
	[ "$(grep -c "perfgate: error" "$TMP/stderr")" = 1 ] || { cat "$TMP/stderr"; fail "more than one error"; }
	check "$sig/$mode: no run file" test ! -e "$TMP/run.json"
	! ls -A "$TMP" | grep -q '^\.run\.json' || fail "$sig/$mode: a temporary file was left"
	[ -z "$(settle left)" ] || { ps -f -p "$(left | tr '\n' ',')0"; fail "$sig/$mode: processes left"; }
	gone "$TMP/held" || { cat "$TMP/held"; fail "$sig/$mode: BPF links or programs left"; }
}
PG_GRACE=1
stop INT sleep
stop TERM sleep
stop HUP sleep
stop INT escape		# a child that left the process group with setsid()
stop TERM ignore-term	# SIGTERM ignored: SIGKILL after the grace period
stop INT stop		# stopped with SIGSTOP

# --timeout: exit 2, the repetition named, nothing left, no file; in about the time a
# recording takes to start (measured above), the 0.5 s, the kill's grace of 1 s
# (runner/proctree.h) and 1 s of slack; a timeout that did not stop the repetition would run
# as long as the benchmark, forever
t0=$(ms)
expect_exit 2 "$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 3 --timeout 0.5 -- ./hang escape "$mark"
took=$(($(ms) - t0))
grep -q "repetition 1 ran past --timeout 0.5 s" "$TMP/stderr" || { cat "$TMP/stderr"; fail "timeout message"; }
check "--timeout: stopped in ${took} ms (a recording starts in ${start} ms)" \
	test "$took" -le $((start + 2500))
check "a timed-out recording wrote no run file" test ! -e "$TMP/run.json"
[ -z "$(settle left)" ] || fail "processes left after --timeout"
expect_exit 2 "$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 1 --timeout 0.3 -- ./hang stop "$mark"
check_contains "a stopped benchmark was timed out" "$TMP/stderr" "ran past --timeout"
expect_exit 2 "$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 1 --timeout 0.3 -- ./hang ignore-term "$mark"
check_contains "a benchmark ignoring SIGTERM was timed out" "$TMP/stderr" "ran past --timeout"
[ -z "$(settle left)" ] || fail "processes left after --timeout"
# ...unless failures are allowed: the repetitions are kept, with their signal
expect_exit 0 "$PERFGATE" record --all-functions -q --allow-failure -o "$TMP/run.json" -r 2 --timeout 0.3 \
	-- ./hang sleep "$mark"
check_contains "a warning about the timeout" "$TMP/stderr" "ran past --timeout"
python3 - "$TMP/run.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
assert len(run["repetitions"]) == 2
assert all(r["signal"] == 15 and r["exit_code"] == -1 for r in run["repetitions"]), run["repetitions"]
PY
# a benchmark that finishes in time is not affected
expect_exit 0 "$PERFGATE" record -q -o "$TMP/ok.json" -r 2 --timeout 30 -f count_a -- ./calls
calls "$TMP/ok.json" >"$TMP/actual"
echo "count_a 1000" >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"
expect_exit 2 "$PERFGATE" record -o "$TMP/x.json" --timeout 0 -- ./calls
check_contains "--timeout 0 accepted" "$TMP/stderr" "invalid --timeout"
echo ok
