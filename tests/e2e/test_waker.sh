# SPDX-License-Identifier: MIT
# Who a blocked function waited on (docs/sampling.md, "Off-CPU stacks", Wakers; the off-CPU
# clause of docs/statistics.md, "Cause lines"): tests/progs/waker.c's parent blocks in
# wait_child()'s pipe read until its child process, named pgwake_child, has worked and
# written; waker_slow's child works twice as long (child_work's code changed, wait_child's
# did not). perfgate ab with off-CPU stacks: the run files say pgwake_child, another process,
# woke wait_child's reads in every repetition; wait_child regresses, and its cause line and
# the result's "waker" name pgwake_child.
#
# Margins: the child's work is CPU time (8 ms against 16 ms a round, 5 rounds), so the
# parent's wait grows by ~40 ms a repetition however busy the machine (a busy one stretches
# both sides): +100% by construction, against a 2% minimum effect. The waker clause needs the
# blocked part to be half the change (the wait is all blocked, but for a late wakeup's run
# queue wait) and pgwake_child to hold PG_WAKER_SHARE (half) of the move of the blocked time
# under wait_child: every wakeup of its read is the child's write, in the child's system call;
# a wakeup not seen (decided at the switch-in) has no waker and is rare.
#
# Over loopback TCP (waker tcp) the child's byte is received in a softirq that its own write
# runs (__local_bh_enable_ip): the waker is still pgwake_child, never an interrupt.
source "$(dirname "$0")/lib.sh"

check "the builds differ" not cmp -s ./waker ./waker_slow
expect_exit 1 "$PERFGATE" ab -q -r 10 --max-reps 20 -F 999 --offcpu-stacks -f wait_child \
	-o "$TMP/ab" ./waker ./waker_slow
check "the run files name the child as the waker of wait_child's reads" \
	python3 - "$TMP/ab/base.json" "$TMP/ab/new.json" <<'PY'
import sys, pgtest
for path in sys.argv[1:]:
    for r, rep in enumerate(pgtest.load(path)["repetitions"]):
        stacks = rep.get("offcpu_stacks", [])
        under = [i for i, (s, _) in enumerate(stacks) if ";wait_child;" in s]
        assert under, "%s repetition %d: no off-CPU stack under wait_child" % (path, r + 1)
        woken = [w for w in rep.get("offcpu_wakers", []) if w[0] in under]
        assert woken, "%s repetition %d: no waker of wait_child: %s" % (path, r + 1, rep)
        assert all(w[1:3] == ["other", "pgwake_child"] for w in woken), woken
        # sorted by stack index, each within its stack's time
        ws = rep["offcpu_wakers"]
        assert [w[:3] for w in ws] == sorted(w[:3] for w in ws), ws
        for i, (s, ns) in enumerate(stacks):
            assert sum(w[3] for w in ws if w[0] == i) <= ns, (s, ns, ws)
PY
check "wait_child regressed, its code the same, waiting on pgwake_child" \
	python3 - "$TMP/ab/compare.json" <<'PY'
import sys, pgtest
f = pgtest.func(pgtest.load(sys.argv[1]), "wait_child")
assert f["verdict"] == "regression" and f["code"] == "same", f
line = f["cause_line"]
assert "its extra time is blocked (off-CPU +" in line, line
assert "): waiting on pgwake_child (another process), +" in line, line
w = f["waker"]
assert w["kind"] == "other" and w["comm"] == "pgwake_child", w
# 5 rounds of 8 ms more of the child's CPU time, a floor of the wait: 40 ms more a
# repetition; at least 20 ms, should a wakeup not seen take one round's wait (16 ms of the
# child's CPU time, more on a busy machine that then stretches the other rounds too) from it
assert w["new_ns"] - w["base_ns"] >= 20e6, w
PY
check_contains "the table's cause note" "$TMP/stdout" \
	'^    cause: its extra time is blocked (off-CPU +.*waiting on pgwake_child'

# perfgate merge keeps the wakers
"$PERFGATE" merge "$TMP/ab/base.json" "$TMP/ab/base.json" -o "$TMP/merged.json" 2>/dev/null
check "merge keeps the wakers" python3 - "$TMP/merged.json" "$TMP/ab/base.json" <<'PY'
import sys, pgtest
got = [r.get("offcpu_wakers") for r in pgtest.load(sys.argv[1])["repetitions"]]
want = [r.get("offcpu_wakers") for r in pgtest.load(sys.argv[2])["repetitions"]] * 2
assert got == want and all(got)
PY

# loopback TCP: the softirq of the child's own write is the child's
"$PERFGATE" record -q -r 3 -F 999 --offcpu-stacks -f wait_child -o "$TMP/tcp.json" \
	-- ./waker tcp 2>/dev/null
check "over loopback TCP the child is the waker" python3 - "$TMP/tcp.json" <<'PY'
import sys, pgtest
for r, rep in enumerate(pgtest.load(sys.argv[1])["repetitions"]):
    stacks = rep.get("offcpu_stacks", [])
    under = [i for i, (s, _) in enumerate(stacks) if ";wait_child;" in s]
    woken = [w for w in rep.get("offcpu_wakers", []) if w[0] in under]
    assert woken, "repetition %d: no waker of wait_child: %s" % (r + 1, rep)
    # never an interrupt; a softirq a busy kernel defers to ksoftirqd is the kernel's, so
    # the child need only hold most of the time
    assert all(w[1] in ("other", "kernel") for w in woken), woken
    child = sum(w[3] for w in woken if w[1:3] == ["other", "pgwake_child"])
    assert child > 0.5 * sum(w[3] for w in woken), woken
PY
