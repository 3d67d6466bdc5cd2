# SPDX-License-Identifier: MIT
# Cause before symptom: tests/progs/cause_calls.c built twice, caller() calling the unchanged
# callee() 60 times in cause_calls and 84 times (+40%) in cause_calls_more. perfgate ab flags
# callee, whose machine code is the same in both builds, with a cause line that names caller,
# whose code changed, and says "more often"; the summary line and the order of the verdicts put
# the changed caller first. caller is traced (-f caller) and callee judged from the samples: a
# traced function is judged per call, which more calls do not move.
#
# Margins: callee's time a repetition grows by 40% by construction (the same ~0.6 ms calls, 60
# against 84 of them: ~36 ms against ~50 ms a run, ~70 samples against ~100 at -F 1999); the
# regression needs its interval above the 2% minimum effect, ~35 points below the change, where
# A/A intervals of a sampled function this size are about +-3% (tests/e2e/test_inline.sh). The
# caller line needs callee's move under caller to be at least half its move under all callers
# (PG_CAUSE_CALLER_SHARE): caller is its only caller. Nothing checked depends on the timings
# beyond that.
# cause_chain and cause_chain_more (-DCHAIN) are the same two builds with caller reaching callee
# through mid1 and mid2, both unchanged: callee's line names caller as the changed code that
# reaches it, through mid1 (the same 40% by construction; all of callee's samples are under
# caller, whatever share PG_CAUSE_CALLER_SHARE asks).
source "$(dirname "$0")/lib.sh"
AB=(ab -q -r 10 --max-reps 20 -F 1999 -f caller)

check "the builds differ" not cmp -s ./cause_calls ./cause_calls_more
expect_exit 1 "$PERFGATE" "${AB[@]}" -o "$TMP/ab" ./cause_calls ./cause_calls_more
check "callee regressed through its changed caller" python3 - "$TMP/ab/compare.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
fs = {(f["origin"], f["name"]): f for f in r["functions"]}
callee, caller = fs[("sampled", "callee")], fs[("exact", "caller")]
assert callee["verdict"] == "regression" and callee["code"] == "same", callee
assert caller["verdict"] == "regression" and caller["code"] == "changed", caller
line = callee["cause_line"]
assert line.startswith("called from caller (changed): its time under caller +"), line
assert "more often" in line, line
assert caller["cause_line"] == "", caller		# its own code changed: no cause line
regs = [f["name"] for f in r["functions"]
        if f["verdict"] == "regression" and f["origin"] != "program"]
assert regs.index("caller") < regs.index("callee"), regs
PY
check_contains "the table's cause note" "$TMP/stdout" \
	'^    cause: called from caller (changed): its time under caller +.*more often'
# (other(), unchanged, is not expected to regress; should noise flag it at the test's level,
# it is one more unchanged function, after callee or before it by its change)
check_contains "the summary: changed first" "$TMP/stdout" \
	'REGRESSION.* in 1 changed function; [0-9]* unchanged functions* slower through it'
check_contains "the names: changed first" "$TMP/stdout" '\(^  \|: \)caller, \(other, \)*callee'

check "the chain's builds differ" not cmp -s ./cause_chain ./cause_chain_more
expect_exit 1 "$PERFGATE" "${AB[@]}" -o "$TMP/chain" ./cause_chain ./cause_chain_more
check "callee regressed through changed code two frames above its caller" \
	python3 - "$TMP/chain/compare.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
fs = {(f["origin"], f["name"]): f for f in r["functions"]}
callee = fs[("sampled", "callee")]
assert callee["verdict"] == "regression" and callee["code"] == "same", callee
line = callee["cause_line"]
assert line.startswith("reached from changed code: caller (via mid1) +"), line
assert "candidate for noise" not in line, line
PY
