#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a chosen set of tests N times and prints each test's failure count: the check that the
# suite holds on this machine, quiet and busy (DEVELOPERS.md, "Tests").
#
# Usage: tests/flaky.sh [-n N] [--hog none|all|alternate] [--fresh] [PATTERN...]
#   -n N       rounds (default 5)
#   --hog M    a CPU-heavy process beside the tests, as on a busy CI runner: one busy loop per
#              CPU but one, in every round (all), in every second round (alternate: rounds 2,
#              4, ...), or never (none, the default)
#   --fresh    each round in a fresh clone of HEAD, built from scratch (as CI runs it); without
#              it the rounds run this tree's build (run `make test` first)
#   PATTERN    as tests/run.sh: the tests whose name contains one (default: all)
# Prints each round's "N passed, N failed" and the time it took, then one line per test that
# ran: "FAILS/ROUNDS name (busy: F/R, quiet: F/R)". Exit status 0 only when nothing failed.
# The logs of each round stay in the directory named at the start.
set -u
cd "$(dirname "$0")/.."
top=$PWD
rounds=5 hog=none fresh=0 patterns=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=${2:?-n needs a number}; shift 2 ;;
	--hog) hog=${2:?--hog needs none, all or alternate}; shift 2 ;;
	--fresh) fresh=1; shift ;;
	-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "flaky.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	*) patterns+=("$1"); shift ;;
	esac
done
case $rounds in ''|*[!0-9]*|0) echo "flaky.sh: -n takes a whole number > 0" >&2; exit 2 ;; esac
case $hog in none|all|alternate) ;; *) echo "flaky.sh: --hog none|all|alternate" >&2; exit 2 ;; esac

logdir=$(mktemp -d /tmp/perfgate-flaky.XXXXXX)
# a fresh clone lives in it: tests that run the benchmark as nobody need to reach its files, as
# they do in a CI runner's checkout (mktemp -d makes the directory 0700)
chmod 755 "$logdir"
hogs=()
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	hogs=()
}
cleanup() {
	stop_hogs
	[ $fresh -eq 0 ] || rm -rf "$logdir"/clone
}
trap cleanup EXIT
trap 'exit 2' INT TERM

start_hogs() {
	local n=$(($(nproc) - 1)) i
	[ $n -ge 1 ] || n=1
	for ((i = 0; i < n; i++)); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
}

busy_round() { # round number: is it busy?
	case $hog in
	all) return 0 ;;
	alternate) [ $(($1 % 2)) -eq 0 ] ;;
	*) return 1 ;;
	esac
}

# the tree a round runs in: this one, or a fresh clone of HEAD built from scratch
prepare_tree() {
	if [ $fresh -eq 0 ]; then
		echo "$top"
		return 0
	fi
	rm -rf "$logdir/clone"
	git clone -q "$top" "$logdir/clone" >&2 &&
		make -C "$logdir/clone" -s -j"$(nproc)" all unit e2e-progs fuzz-build >&2 &&
		echo "$logdir/clone"
}

echo "flaky.sh: $rounds round(s), hog: $hog, fresh clones: $([ $fresh -eq 1 ] && echo yes ||
	echo no), logs in $logdir"
for ((r = 1; r <= rounds; r++)); do
	tree=$(prepare_tree) || { echo "flaky.sh: round $r: the fresh clone did not build" >&2; exit 2; }
	mode=quiet
	if busy_round "$r"; then
		mode=busy
		start_hogs
	fi
	t0=$SECONDS
	(cd "$tree" && PERFGATE_BUILD=build PERFGATE="$tree/perfgate" tests/run.sh \
		${patterns[@]+"${patterns[@]}"}) >"$logdir/round$r.log" 2>&1
	stop_hogs
	printf 'round %d (%s): %s, %d s\n' "$r" "$mode" "$(tail -n 1 "$logdir/round$r.log")" \
		$((SECONDS - t0))
	sed -n "s/^\(PASS\|FAIL\) \([^ ]*\) .*/\1 \2 $mode/p" "$logdir/round$r.log" \
		>>"$logdir/results"
done

echo
awk '{ n[$2]++; r[$2 " " $3]++; if ($1 == "FAIL") { f[$2]++; fm[$2 " " $3]++; bad++ } }
END {
	for (t in n)
		printf "%d/%d %s (busy: %d/%d, quiet: %d/%d)\n", f[t], n[t], t,
			fm[t " busy"], r[t " busy"], fm[t " quiet"], r[t " quiet"]
	exit bad > 0
}' "$logdir/results" >"$logdir/summary"
status=$?
sort -k2,2 "$logdir/summary"
exit $status
