# SPDX-License-Identifier: MIT
# The differential flame graph agrees with compare: the demo's change (blur_row slower, built
# like `make demo` does) is a REGRESSION, and in the SVG rendered by headless Chromium the
# pixels of the blur_row frame are red, not only its fill attribute. Every frame of a traced
# function takes the colour of its verdict, its tooltip gives the verdict, change, interval and
# the function's file:line, and the header gives both sides' samples. A function judged from
# the samples (the per-pixel tone_px) keeps its paths' colours; its tooltip gives its sampled
# verdict.
source "$(dirname "$0")/lib.sh"
if ! command -v chromium >/dev/null; then
	echo "SKIP: chromium is not installed (make deps installs it): cannot render the SVG" >&2
	exit 0
fi
SRC=$(cd "${PGTEST%/*}/../.." && pwd)
CFLAGS=(-O2 -g -fpatchable-function-entry=5)	# examples/demo/run.sh
mkdir -p "$TMP/a" "$TMP/b"
clang "${CFLAGS[@]}" -o "$TMP/a/imgfilter" "$SRC/examples/demo/imgfilter.c"
clang "${CFLAGS[@]}" -DDEMO_SLOW -o "$TMP/b/imgfilter" "$SRC/examples/demo/imgfilter.c"
# the demo's *_row functions traced (named: what a budget keeps depends on the probes' price,
# which a busy machine's disturbed calibration put at 10x and more), both
# builds in one interleaved session: two sequential recordings drifted apart on a noisy
# machine and left blur_row's interval too wide to decide (+32% [-2%, +70%])
"$PERFGATE" ab -q -r 12 --max-reps 12 -f '*_row' -o "$TMP/ab" "$TMP/a/imgfilter 10" \
	"$TMP/b/imgfilter 10" >/dev/null || true
cp "$TMP/ab/base.json" "$TMP/base.json"
cp "$TMP/ab/new.json" "$TMP/new.json"

expect_exit 1 "$PERFGATE" compare "$TMP/base.json" "$TMP/new.json" --json "$TMP/cmp.json" \
	--flamegraph "$TMP/diff.svg"
# (only blur_row changed, but a loaded machine may flag another: its frames then are red too)
pgtest verdicts "$TMP/cmp.json" regression >"$TMP/regressions"
check "compare flags blur_row" grep -qx blur_row "$TMP/regressions"
xmllint --noout "$TMP/diff.svg"
check_contains "the header gives both sides' samples" "$TMP/diff.svg" \
	'Samples: BASE [0-9]* in 12 repetitions ([0-9]* a repetition), NEW [0-9]* in 12'
check_contains "the legend names the verdicts" "$TMP/diff.svg" "by perfgate compare's verdict"

size=$(python3 - "$TMP/diff.svg" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print("%s,%s" % (root.get("width"), root.get("height")))
PY
)
render_svg "$TMP/diff.svg" "$TMP/diff.png" "$size"

python3 - "$TMP/diff.svg" "$TMP/diff.png" "$TMP/cmp.json" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
import pgtest
NS = "{http://www.w3.org/2000/svg}"

# the traced functions' verdicts colour their frames; a sampled function's verdict is only in
# its frames' tooltips (it is the function's over all its frames, not one path's)
funcs = pgtest.load(sys.argv[3])["functions"]
verdict = {f["name"]: f["verdict"] for f in funcs if f.get("origin", "exact") == "exact"}
sampled = {f["name"]: f["verdict"] for f in funcs if f.get("origin") == "sampled"}
where = {f["name"]: "%s:%d" % (f["file"], f["line"]) for f in funcs if f.get("line")}
w, h, px = pgtest.png_read(sys.argv[2])

def kind(fill):
    r, g, b = map(int, re.match(r"rgb\((\d+),(\d+),(\d+)\)", fill).groups())
    return "red" if r == 255 and g == b < 221 else "blue" if b == 255 and r == g < 221 else \
        "grey" if r == g == b else fill

want = {"regression": "red", "improvement": "blue"}
blur = 0
for g in ET.parse(sys.argv[1]).getroot().iter(NS + "g"):
    if "f" not in (g.get("class") or "").split():
        continue
    tip = g.find(NS + "title").text
    name, rect = tip.split("\n")[0], g.find(NS + "rect")
    if name not in verdict:
        assert "traced (exact" not in tip, tip
        if name in sampled:
            assert re.search(r"sampled verdict of the function in [^ ,]+, all its frames \(self "
                             r"time a repetition, from ", tip) and sampled[name].upper() in tip, tip
        continue
    # a frame of a traced function: the colour and the words of its verdict
    assert kind(rect.get("fill")) == want.get(verdict[name], "grey"), (name, rect.get("fill"))
    assert "traced (exact self time per call): " + verdict[name].upper() in tip, tip
    assert "NEW: " in tip and "BASE: " in tip and " share: " in tip, tip
    # the declaration's file:line, as compare has it (a traced function's frame is named by
    # its display name, whatever the sampler's own DWARF lookup found)
    assert tip.endswith("\n" + where[name]), (tip, where.get(name))
    if name != "blur_row":
        continue
    assert re.search(r"REGRESSION, \+[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\], q = ", tip), tip
    x, y = float(rect.get("x")), float(rect.get("y"))
    rw, rh = float(rect.get("width")), float(rect.get("height"))
    if rw < 8:
        continue	# a sliver (a stray stack): its fill is checked above, too few pixels here
    # the pixels inside the frame, away from its border and above its label's letters
    inside = [px[yy * w + xx]
              for yy in (int(y) + 2, int(y) + 3) for xx in range(int(x) + 3, int(x + rw) - 2)]
    red = sum(1 for r, gg, b in inside if r > 200 and gg < 90 and b < 90)
    assert inside and red >= 0.9 * len(inside), ("blur_row is not red", red, len(inside))
    blur += 1
assert blur >= 1, "no blur_row frame drawn"
print("blur_row frames drawn red: %d" % blur)
PY
