# SPDX-License-Identifier: MIT
# perfgate's own cost in the sampled stacks: the kernel frames of its uprobes, uretprobes and
# BPF programs are folded into one "[perfgate probes]" frame under the traced function (or the
# function returned into; or the kernel's frame for uprobes' bookkeeping in an exec) in
# perfgate folded, flamegraph and compare --flamegraph; with
# --keep-probe-frames they are back. Every function of the demo is traced but its per-pixel
# leaf tone_px (4 million calls a run), with probes cheap enough (nop5) and calls many enough
# that a recording at 999 Hz has probe samples.
source "$(dirname "$0")/lib.sh"
SRC=$(cd "${PGTEST%/*}/../.." && pwd)
clang -O2 -g -fpatchable-function-entry=5 -o "$TMP/imgfilter" "$SRC/examples/demo/imgfilter.c"
REC=("$PERFGATE" record -q -r 5 -F 999 -f '*' -x tone_px)
"${REC[@]}" -o "$TMP/a.json" -- "$TMP/imgfilter" 10 >/dev/null
"${REC[@]}" -o "$TMP/b.json" -- "$TMP/imgfilter" 10 >/dev/null

"$PERFGATE" folded "$TMP/a.json" -o "$TMP/folded"
"$PERFGATE" folded "$TMP/a.json" --keep-probe-frames -o "$TMP/kept"
pgtest names "$TMP/a.json" >"$TMP/traced"
nm --defined-only "$TMP/imgfilter" | awk '$2 ~ /^[tT]$/ { print $3 }' >"$TMP/own"
python3 - "$TMP/folded" "$TMP/kept" "$TMP/traced" "$TMP/own" <<'PY'
import re, sys
PROBE = "[perfgate probes]"
# the kernel frames of probes; a sample taken on the way back from a uprobe's breakpoint trap
# shows only the trap's entry, asm_exc_int3 (diff/probeframes.c)
OURS = re.compile(r"uprobe|uretprobe|handle_swbp|exc_debug_user|asm_exc_int3|bpf_prog_\w+_pg_\w+ \[k\]")

def read(path):
    out = []
    for line in open(path):
        stack, count = line.rstrip("\n").rsplit(" ", 1)
        out.append((stack.split(";"), int(count)))
    return out

folded, kept = read(sys.argv[1]), read(sys.argv[2])
traced = set(open(sys.argv[3]).read().split())
own = set(open(sys.argv[4]).read().split())
assert sum(c for _, c in folded) == sum(c for _, c in kept), "samples lost in folding"
under, alone, kernel = 0, 0, 0
for frames, count in folded:
    assert not any(OURS.search(f) for f in frames), frames
    if PROBE not in frames:
        continue
    # the last frame, under a traced function; or under the system's function a traced one
    # returns into (main into libc, a constructor into the loader's call_init); or under a
    # kernel frame (uprobes' bookkeeping in an exec or fork); or alone (the trampoline or
    # single-step slot named no function). Never under the program's untraced tone_px.
    assert frames.index(PROBE) == len(frames) - 1, frames
    if len(frames) == 1:
        alone += count
    elif frames[-2].endswith(" [k]"):
        kernel += count
    else:
        assert frames[-2] in traced or frames[-2] not in own, ("under an untraced frame", frames)
        under += count
assert under > 0, "no probe samples under a traced function"
assert not any(PROBE in frames for frames, _ in kept)
ours = sum(c for frames, c in kept if any(OURS.search(f) for f in frames))
assert ours >= under, (ours, under)
print("probe samples: %d under traced functions, %d under the kernel's work, %d "
      "unattributed; %d kept" % (under, kernel, alone, ours))
PY

# the flame graphs: one frame, or the kernel's frames with --keep-probe-frames
"$PERFGATE" flamegraph "$TMP/a.json" -o "$TMP/a.svg"
"$PERFGATE" flamegraph "$TMP/a.json" -o "$TMP/a-kept.svg" --keep-probe-frames
check_contains "flamegraph folds the probe frames" "$TMP/a.svg" '<title>\[perfgate probes\]'
check_contains "the probe frame says what it is" "$TMP/a.svg" "perfgate's own cost"
check "flamegraph shows no uprobe frame" not grep -q '<title>[a-z_]*uprobe' "$TMP/a.svg"
check_contains "flamegraph --keep-probe-frames keeps them" "$TMP/a-kept.svg" \
	'<title>\([a-z_]*uprobe[a-z_]*\|asm_exc_int3\) \[k\]'
check "flamegraph --keep-probe-frames has no folded frame" \
	not grep -q '<title>\[perfgate probes\]' "$TMP/a-kept.svg"
st=0
"$PERFGATE" compare "$TMP/b.json" "$TMP/a.json" --flamegraph "$TMP/d.svg" >/dev/null || st=$?
check "compare exits 0 or 1" test "$st" -le 1
check_contains "compare --flamegraph folds the probe frames" "$TMP/d.svg" \
	'<title>\[perfgate probes\]'
st=0
"$PERFGATE" compare "$TMP/b.json" "$TMP/a.json" --flamegraph "$TMP/d-kept.svg" \
	--keep-probe-frames >/dev/null || st=$?
check "compare --keep-probe-frames exits 0 or 1" test "$st" -le 1
check_contains "compare --keep-probe-frames keeps them" "$TMP/d-kept.svg" \
	'<title>\([a-z_]*uprobe[a-z_]*\|asm_exc_int3\) \[k\]'
