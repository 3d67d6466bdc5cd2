# SPDX-License-Identifier: MIT
# A short, bounded fuzz run of every libFuzzer target (tests/fuzz, make fuzz-build): the inputs
# that once crashed are replayed first, then each target runs FUZZ_SECONDS (default 10) from
# the seed corpus. docs/fuzzing.md describes the longer campaign.
set -euo pipefail
cd "${PERFGATE_SRCDIR:?run through tests/run.sh}"
for t in runfile compare folded result; do
	[ -x "build-fuzz/fuzz_$t" ] || { echo "build-fuzz/fuzz_$t is missing: make fuzz-build" >&2; exit 1; }
done
FUZZ_SECONDS=${FUZZ_SECONDS:-10} tests/fuzz/run.sh
