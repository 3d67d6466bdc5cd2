# SPDX-License-Identifier: MIT
# Flame graphs: `perfgate flamegraph` and `perfgate compare --flamegraph` write well-formed SVG
# (xmllint) that headless Chromium renders to a picture that is not blank; the differential
# one colours a known change: NEW spends 3x longer in d() (PG_D_FACTOR=3), so c() under d
# grew (red) and c() under a;b shrank (blue) in self colouring; d grew and a shrank in
# inclusive colouring.
source "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"

# only libc's getenv is traced, called once and never sampled: every frame is untraced and
# coloured by its samples (test_flame_verdicts.sh covers the frames of traced functions)
REC=("$PERFGATE" record -q -r 6 -F 999 -f 'libc.so.6:getenv')
"${REC[@]}" -o "$TMP/base.json" -- ./sample_chain mix 40000000 40000000
PG_D_FACTOR=3 "${REC[@]}" -o "$TMP/new.json" -- ./sample_chain mix 40000000 40000000

"$PERFGATE" flamegraph "$TMP/new.json" -o "$TMP/new.svg"
xmllint --noout "$TMP/new.svg"
"$PERFGATE" flamegraph "$TMP/new.json" -o "$TMP/rep1.svg" --rep 1 --title 'one repetition'
xmllint --noout "$TMP/rep1.svg"
check_contains "--title is used" "$TMP/rep1.svg" 'one repetition'

for mode in self inclusive; do
	st=0
	"$PERFGATE" compare "$TMP/base.json" "$TMP/new.json" --flamegraph "$TMP/diff-$mode.svg" \
		--flame-color $mode >"$TMP/stdout" 2>"$TMP/stderr" || st=$?
	[ $st -le 1 ] || { cat "$TMP/stderr" >&2; fail "compare --flamegraph exited $st"; }
	xmllint --noout "$TMP/diff-$mode.svg"
done

# frame colours: fill of each frame by its path from the root
python3 - "$TMP/diff-self.svg" "$TMP/diff-inclusive.svg" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"

def frames(path):
    out = {}
    stack = []
    for g in ET.parse(path).getroot().iter(NS + "g"):
        if "f" not in (g.get("class") or "").split():
            continue
        depth = int(g.get("data-d"))
        name = g.find(NS + "title").text.split("\n")[0]
        stack[depth:] = [name]
        out[";".join(stack[1:])] = (g.find(NS + "rect").get("fill"), g.find(NS + "title").text)
    return out

def kind(fill):
    r, g, b = map(int, re.match(r"rgb\((\d+),(\d+),(\d+)\)", fill).groups())
    if r == 255 and g == b and g < 221:
        return "red"
    if b == 255 and r == g and r < 221:
        return "blue"
    if r == g == b:
        return "grey"
    return "other " + fill

def find(fr, suffix):
    hits = [k for k in fr if k == suffix or k.endswith(";" + suffix)]
    assert len(hits) == 1, (suffix, hits)
    return fr[hits[0]]

self_ = frames(sys.argv[1])
assert kind(find(self_, "main;d;c")[0]) == "red", find(self_, "main;d;c")
assert kind(find(self_, "main;a;b;c")[0]) == "blue", find(self_, "main;a;b;c")
assert kind(find(self_, "main;a")[0]) == "grey"          # no self time: not tested
assert kind(find(self_, "__libc_start_call_main;main")[0]) == "grey"
tip = find(self_, "main;d;c")[1]
assert "NEW: " in tip and "BASE: " in tip and "GREW" in tip, tip
incl = frames(sys.argv[2])
assert kind(find(incl, "main;d")[0]) == "red"
assert kind(find(incl, "main;a")[0]) == "blue"
assert kind(find(incl, "main;a;b")[0]) == "blue"
PY
check_contains "a legend" "$TMP/diff-self.svg" 'RED: grew in NEW'

# a run without samples cannot make a differential flame graph
"$PERFGATE" record -q -r 2 --no-sample -f main -o "$TMP/none.json" -- \
	./sample_chain mix 40000000 40000000
expect_exit 2 "$PERFGATE" compare "$TMP/none.json" "$TMP/new.json" --flamegraph "$TMP/x.svg"
check_contains "the reason given" "$TMP/stderr" 'base run has no sampled stacks'
check "no flame graph written" test ! -e "$TMP/x.svg"
expect_exit 2 "$PERFGATE" flamegraph "$TMP/none.json" -o "$TMP/x.svg"
expect_exit 2 "$PERFGATE" compare "$TMP/base.json" "$TMP/new.json" --flame-color both

# render in headless Chromium (no network) and check the screenshots are not blank
render_svg "$TMP/new.svg" "$TMP/new.png"
render_svg "$TMP/diff-self.svg" "$TMP/diff.png"
python3 - "$TMP/new.png" "$TMP/diff.png" <<'PY'
import sys
from pgtest import png_pixels as pixels

plain = pixels(sys.argv[1])
colours = set(plain)
assert len(colours) > 20, "blank? only %d colours" % len(colours)
warm = sum(1 for r, g, b in plain if r > 200 and b < 80)
assert warm > 20000, "too few flame-coloured pixels: %d" % warm
diff = pixels(sys.argv[2])
red = sum(1 for r, g, b in diff if r == 255 and g < 120 and b < 120)
blue = sum(1 for r, g, b in diff if b == 255 and r < 120 and g < 120)
assert red > 2000 and blue > 2000, (red, blue)
print("colours %d, flame pixels %d, red %d, blue %d" % (len(colours), warm, red, blue))
PY
