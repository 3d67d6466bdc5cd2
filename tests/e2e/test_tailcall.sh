# SPDX-License-Identifier: MIT
# Tail calls between traced functions (tests/progs/tailcall.c, gcc -O2): the caller's window
# holds one return trip less per tail-called traced call, so the run file counts them per
# function (tails: direct children entered by `jmp`, desc_tails: at any depth) for
# compensation (core/calib.h).
source "$(dirname "$0")/lib.sh"
# the build must still make the tail calls this test is about
objdump -d --no-show-raw-insn tailcall >"$TMP/dis"
python3 - "$TMP/dis" <<'PY'
import re, sys
body, fn = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
    if m:
        fn = m.group(1)
        body[fn] = []
    elif fn and line.strip():
        body[fn].append(line.split("\t")[-1].strip())
for caller, callee in (("top", "middle"), ("middle", "leaf")):
    jmps = [i for i in body[caller] if re.match(r"jmp\s+[0-9a-f]+ <%s>" % callee, i)]
    assert jmps, "%s does not tail-call %s: %s" % (caller, callee, body[caller])
print("ok")
PY
"$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 2 -- ./tailcall 2>"$TMP/err"
! grep -q "tail calls" "$TMP/err" || { cat "$TMP/err"; fail "tail calls are compensated now: no warning"; }
python3 - "$TMP/run.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
def n(s, group):
    return sum(s.get(group, {}).values())
for s in pgtest.reps(run):
    assert s["top"]["calls"] == 20 and s["middle"]["calls"] == 20 and s["leaf"]["calls"] == 40
    # top: middle by jmp; middle: the second leaf by jmp; main calls top
    assert (n(s["top"], "tails"), n(s["top"], "desc_tails")) == (20, 40), s["top"]
    assert (n(s["middle"], "tails"), n(s["middle"], "desc_tails")) == (20, 20), s["middle"]
    assert (n(s["main"], "tails"), n(s["main"], "desc_tails")) == (0, 40), s["main"]
    assert n(s["leaf"], "tails") == 0 and n(s["leaf"], "desc_tails") == 0
    # the site kinds follow the callee
    assert s["top"]["tails"] == {k: 20 for k in s["top"]["kids"]}, s["top"]
print("ok")
PY
