#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfgate's demo: build a small image filter twice, once as it is (the baseline) and once with
# two functions made slower (blur_row, traced; tone_px, too hot to trace), record both builds in
# one interleaved session (perfgate ab) and let perfgate compare them pair by pair.
# Run from the repository root as root (make demo). Output lands in examples/demo/out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
PG=./perfgate
OUT=examples/demo/out
mkdir -p "$OUT/base" "$OUT/new"
# clang's patchable entry gives every function a 5-byte nop: the cheapest probe site
CFLAGS="-O2 -g -fpatchable-function-entry=5"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1. Build the baseline, and the change: blur_row gets a wider kernel, tone_px one more round"
clang $CFLAGS -o "$OUT/base/imgfilter" examples/demo/imgfilter.c
clang $CFLAGS -DDEMO_SLOW -o "$OUT/new/imgfilter" examples/demo/imgfilter.c
echo "$OUT/base/imgfilter and $OUT/new/imgfilter"

# Two recordings made one after the other each carry the machine's drift of the moment, which
# on a shared machine flags functions nobody touched; perfgate ab records both builds in one
# session instead: pairs of one repetition each, in a random order, compared pair by pair.
# Without -f, perfgate traces the functions whose probes fit a budget of the program's time:
# 5% by default. blur_row and sharpen_row (1000 calls of ~6 us a run) cost their probes ~2.5%
# each, so the demo allows 20%. What is not traced is judged from the sampled profile: -F 999
# takes enough samples of tone_px.
say "2. Record both in one interleaved session (20 pairs of 10 frames) and compare them"
status=0
$PG ab -o "$OUT" -r 20 -q --budget 20 -F 999 --junit "$OUT/junit.xml" \
	--markdown "$OUT/summary.md" --flamegraph "$OUT/diff.svg" \
	"$OUT/base/imgfilter 10" "$OUT/new/imgfilter 10" || status=$?

say "What happened"
cat <<TXT
perfgate ab exited with status $status (0 pass, 1 regression, 2 error).
Each pair is one run of each build, back to back in a random order. For every function
perfgate compared the two builds' mean self time pair by pair (each pair corrected for the
machine's speed in it, estimated from the functions that did not change), controlled false
discoveries across all functions (Benjamini-Hochberg), and estimated the change with a 95%
interval. blur_row is flagged from its exact times; its callers are not, because their own
(self) time did not change. tone_px, called for every pixel (4 million times a run: far too
often to probe), is flagged from the sampled profile: its share of each repetition's samples
times the repetition's CPU time. The whole program's CPU and wall time are judged too, and
the CPU time's change is split into the functions that explain it. In $OUT/:
  base.json, new.json  the two sides' run files    compare.json  the full result
  junit.xml            the JUnit report for CI     summary.md    the pull-request summary
  diff.svg             a differential flame graph (open it in a browser: red grew)
TXT
if command -v xmllint >/dev/null; then
	xmllint --noout --schema tests/data/JUnit.xsd "$OUT/junit.xml" && echo "(junit.xml validates)"
fi
[ "$status" = 1 ] || { echo "demo: expected a regression (status 1), got $status" >&2; exit 1; }
