#!/usr/bin/env bash
# perfgate's demo: record a baseline of a small image filter, build a changed version in which
# two functions are slower (blur_row, traced; tone_px, too hot to trace), record again, and let
# perfgate compare them.
# Run from the repository root as root (make demo). Output lands in examples/demo/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
PG=./perfgate
OUT=examples/demo/out
mkdir -p "$OUT"
# clang's patchable entry gives every function a 5-byte nop: the cheapest probe site
CFLAGS="-O2 -g -fpatchable-function-entry=5"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# Without -f, perfgate traces the functions whose probes fit a budget of the program's time:
# 5% by default. blur_row and sharpen_row (1000 calls of ~6 us a run) cost their probes ~2.5%
# each, so the demo allows 20%; the change traces the baseline's functions (--functions-of).
# What is not traced is judged from the sampled profile: -F 999 takes enough samples of tone_px.
say "1. Build the baseline and record it (20 repetitions of 10 frames, what fits 20% of its time)"
clang $CFLAGS -o "$OUT/imgfilter" examples/demo/imgfilter.c
$PG record -o "$OUT/base.json" -r 20 --budget 20 -F 999 -- "$OUT/imgfilter" 10 >/dev/null
$PG report "$OUT/base.json"

say "2. The change: blur_row gets a wider kernel, tone_px one more round. Rebuild, record again"
clang $CFLAGS -DDEMO_SLOW -o "$OUT/imgfilter" examples/demo/imgfilter.c
$PG record -o "$OUT/new.json" -r 20 --functions-of "$OUT/base.json" -F 999 -- "$OUT/imgfilter" 10 \
	>/dev/null

say "3. Compare: per function, repetition by repetition"
status=0
$PG compare "$OUT/base.json" "$OUT/new.json" --junit "$OUT/junit.xml" \
	--json "$OUT/compare.json" --markdown "$OUT/summary.md" --flamegraph "$OUT/diff.svg" ||
	status=$?

say "What happened"
cat <<TXT
perfgate compare exited with status $status (0 pass, 1 regression, 2 error).
Each repetition is one run of the program; for every function perfgate compared the
per-repetition mean self time of the two builds with a Mann-Whitney test, corrected for
testing every function at once (Benjamini-Hochberg), and estimated the change with a 95%
interval. blur_row is flagged from its exact times; its callers are not, because their own
(self) time did not change. tone_px, called for every pixel (4 million times a run: far too
often to probe), is flagged from the sampled profile: its share of each repetition's samples
times the repetition's CPU time. The whole program's CPU time is judged too, and explained.
Next to it:
  $OUT/junit.xml     the JUnit report for CI       $OUT/compare.json  the full result
  $OUT/summary.md    the pull-request summary      $OUT/diff.svg      a differential flame
                                                   graph (open it in a browser: red grew)
TXT
if command -v xmllint >/dev/null; then
	xmllint --noout --schema tests/data/JUnit.xsd "$OUT/junit.xml" && echo "(junit.xml validates)"
fi
[ "$status" = 1 ] || { echo "demo: expected a regression (status 1), got $status" >&2; exit 1; }
