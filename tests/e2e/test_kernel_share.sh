# SPDX-License-Identifier: MIT
# Two recordings, the kernel's class of the null (diff/kshare.h, diff/rnull.h):
# tests/progs/kernel_read's read_zero() spends its time in the kernel clearing what it reads
# from /dev/zero; work0..work9 spin in their own code. Sampled at 999 Hz so that read_zero
# has its samples on any machine: ~6 ms of a repetition, ~60 samples a recording here.
#
# Margins: read_zero's kernel share read 1.00 here (a few user instructions a 64 KiB read),
# the spins' 0.00-0.04; the class starts at 0.5. Reading three times as much read +150.1% to
# +194.5% here, its low end at +112% to +118% once widened 2.2x, 20x the 5% minimum effect;
# twice as much read +72% to +147%, low ends +43% to +80% in six pairs, and once (a fresh
# clone's CI run) not decided at all: a recording's file reads move more than their
# repetitions show, which is why the class exists.
source "$(dirname "$0")/lib.sh"
REC=("$PERFGATE" record -q -r 10 -F 999 -f read_zero -f 'work*')
"${REC[@]}" -o "$TMP/a.json" -- ./kernel_read
"${REC[@]}" -o "$TMP/b.json" -- ./kernel_read
"${REC[@]}" -o "$TMP/c.json" -- ./kernel_read 200

# A/A: read_zero in the kernel's class, said, widened; the spins not in it
expect_exit 0 "$PERFGATE" compare "$TMP/a.json" "$TMP/b.json" --all --json "$TMP/aa.json"
python3 - "$TMP/aa.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
f = {e["name"]: e for e in r["functions"]}
assert f["read_zero"].get("kernel_share", 0) > 0.8, (f["read_zero"], r["speed"])
for n in ("work%d" % i for i in range(10)):
    assert f[n].get("kernel_share", 0) < 0.3, f[n]
assert r["speed"]["kernel_n"] == 1 and r["speed"]["kernel_inflation"] >= 2.2, r["speed"]
assert not pgtest.with_verdict(r, "regression"), pgtest.verdicts(r)
PY
# widened by the larger of the comparison's own factor and the class's 2.2
check_contains "the kernel's class is said" "$TMP/stdout" \
	"and 1 function whose time is mostly the kernel's widened [0-9.]*x"

# reading three times as much: still found, the kernel's class or not
expect_exit 1 "$PERFGATE" compare "$TMP/a.json" "$TMP/c.json" --json "$TMP/c2.json"
python3 - "$TMP/c2.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
got = set(pgtest.with_verdict(r, "regression"))
# read_zero, and the sampled libc read(2) that it calls and whose time tripled too
assert "read_zero" in got and got <= {"read_zero", "read", "__libc_read", "__GI___libc_read"}, got
PY

# ab pairs its repetitions: no class of the kernel, which a recording's state moves
expect_exit 0 "$PERFGATE" ab -q -r 6 -F 999 -f read_zero -f 'work*' -o "$TMP/ab" \
	./kernel_read ./kernel_read
check "ab has no kernel's class" not grep -q "whose time is mostly the kernel's" "$TMP/stdout"
