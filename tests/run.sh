#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every test: the cmocka unit tests (build/tests/test_*) and the end-to-end tests
# (tests/e2e/test_*.sh, real BPF, need root). Prints one line per test and, last,
# "N passed, N failed". Exit status 0 only when nothing failed.
# Usage: tests/run.sh [PATTERN...]   (only tests whose name contains one of the PATTERNs)
set -u
cd "$(dirname "$0")/.."
export PERFGATE_SRCDIR=$PWD
# `make test SANITIZE=1` tests the sanitized build in build-asan/
build=${PERFGATE_BUILD:-build}
export PERFGATE=${PERFGATE:-$PWD/perfgate}
export PROGS=$PWD/$build/progs
# the CI templates' npm test tools (make ci-tools)
export PERFGATE_NPM=${PERFGATE_NPM:-/opt/perfgate-ci-tools}
patterns=("$@")
pass=0 fail=0 failed=()
logdir=$(mktemp -d /tmp/perfgate-tests.XXXXXX)

wanted() { # name: no pattern, or one it contains
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $1 == *"$p"* ]] && return 0
	done
	return 1
}

run_one() { # name, command...
	local name=$1 log="$logdir/${1//\//_}.log" t0=$SECONDS
	shift
	if "$@" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf 'PASS %-40s %3ds\n' "$name" $((SECONDS - t0))
	else
		fail=$((fail + 1))
		failed+=("$name")
		printf 'FAIL %-40s %3ds\n' "$name" $((SECONDS - t0))
		sed 's/^/    | /' "$log" | tail -n 40
	fi
}

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	wanted "$name" || continue
	run_one "$name" "$t"
done
for t in tests/e2e/test_*.sh; do
	name=e2e/$(basename "$t" .sh)
	wanted "$name" || continue
	run_one "$name" bash "$t"
done
echo
[ $fail -eq 0 ] || echo "failed: ${failed[*]} (logs in $logdir)"
[ $fail -ne 0 ] || rm -rf "$logdir"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
