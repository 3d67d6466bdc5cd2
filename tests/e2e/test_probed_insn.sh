# SPDX-License-Identifier: MIT
# Samples inside probed instructions: xol_leaf is built with gcc -O2 without
# frame pointers, and leaf() starts with an instruction the kernel single-steps out of line in
# the [uprobes] page. A sample taken during that step, or in the uretprobe trampoline, must
# join its real stack (main;caller;leaf, or main;caller after leaf returned) instead of a root
# named after ld.so; the kernel's frames of that work fold into [perfgate probes] under leaf.
source "$(dirname "$0")/lib.sh"

"$PERFGATE" record -r 3 -F 997 -f leaf -o "$TMP/a.json" -- ./xol_leaf 10000 40000 \
	>/dev/null 2>"$TMP/err"
check_contains "leaf's probe is single-stepped" "$TMP/err" "single-step"
"$PERFGATE" folded "$TMP/a.json" -o "$TMP/folded"
"$PERFGATE" folded "$TMP/a.json" --keep-probe-frames -o "$TMP/kept"

check "samples in the single step have their stack" python3 - "$TMP/kept" <<'PY'
import re, sys
SO = re.compile(r"\.so[^;]*\+0x|^\[unknown\]$|^\[uprobes\]$")
steps = 0
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    if not any(f in ("asm_exc_debug [k]", "exc_debug_user [k]") for f in frames):
        continue
    steps += int(count)
    user = [f for f in frames if not f.endswith(" [k]")]
    assert not any(SO.search(f) for f in user), ("a pseudo-frame over the step", stack)
    assert "main;caller;leaf" in ";".join(user), ("not under leaf", stack)
assert steps > 0, "no sample in a single step: the test proves nothing"
print("%d samples in single steps, all under main;caller;leaf" % steps)
PY

check "over 90% of leaf's samples land under main;caller;leaf" python3 - "$TMP/folded" <<'PY'
import re, sys
PSEUDO = re.compile(r"\.so[^;]*\+0x|^\[unknown\]$|^\[uprobes\]$")
under = mine = 0
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames, count = stack.split(";"), int(count)
    user = [f for f in frames if not f.endswith(" [k]")]
    # leaf's samples, and probe cost that could not be told from it (a root of its own)
    if "leaf" in frames or (user and (PSEUDO.search(user[0]) or user[0] == "[perfgate probes]")):
        mine += count
        if "main;caller;leaf" in stack:
            under += count
assert mine > 0
print("%d of %d samples under main;caller;leaf" % (under, mine))
assert under > 0.9 * mine, (under, mine)
PY
