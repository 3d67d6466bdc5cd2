#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzz every libFuzzer target in build-fuzz/ (make fuzz-build) for FUZZ_SECONDS each (default
# 20), after replaying the inputs that once crashed (tests/fuzz/regressions/TARGET/). New
# corpus entries and crash artifacts go to FUZZ_OUT (default: a new directory in /tmp, kept
# when something failed). Exit status 0 only when nothing crashed. See docs/fuzzing.md.
# Usage: tests/fuzz/run.sh [TARGET...]   (default all: one per format of formats/, runfile,
# result and folded, and compare, the statistics over two run files)
set -uo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-20}
out=${FUZZ_OUT:-$(mktemp -d /tmp/perfgate-fuzz.XXXXXX)}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(runfile result folded compare)
status=0
for t in "${targets[@]}"; do
	bin=build-fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "$bin is missing: make fuzz-build" >&2; exit 2; }
	regs=(tests/fuzz/regressions/"$t"/*)
	if [ ${#regs[@]} -gt 0 ] && ! "$bin" -close_fd_mask=2 "${regs[@]}" >"$out/$t-regressions.log" 2>&1; then
		echo "FAIL $t: a regression input crashes again (log: $out/$t-regressions.log)"
		status=1
		continue
	fi
	mkdir -p "$out/$t"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
		-dict=tests/fuzz/"$t".dict -artifact_prefix="$out/$t-" \
		"$out/$t" tests/fuzz/corpus/"$t" >"$out/$t.log" 2>&1; then
		echo "ok   $t: $(grep -o 'Done [0-9]* runs' "$out/$t.log" || echo '? runs') in ${secs}s, ${#regs[@]} regression inputs replayed"
	else
		echo "FAIL $t: see $out/$t.log; the input is $(ls "$out/$t"-crash-* "$out/$t"-leak-* "$out/$t"-timeout-* "$out/$t"-oom-* 2>/dev/null | head -n 1)"
		tail -n 30 "$out/$t.log"
		status=1
	fi
done
[ $status -ne 0 ] || [ -n "${FUZZ_OUT:-}" ] || rm -rf "$out"
exit $status
