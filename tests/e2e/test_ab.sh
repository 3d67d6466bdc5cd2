# SPDX-License-Identifier: MIT
# perfgate ab: two commands recorded interleaved in pairs in one session and compared. An A/A
# session passes (exit 0); one leaf made 20% slower (knob's first argument) fails (exit 1)
# naming that leaf only (and its Code Quality finding at its source line, relative to the git
# work tree); the two files carry the session, their sides, every pair index on
# both sides and seq a permutation of the running order; two copies of the binary in two
# build directories pair up, and so do two executables of different names; a side that fails stops the session (exit 2, the side named, no
# files); SIGINT leaves no run file; bad arguments are refused before anything runs.
source "$(dirname "$0")/lib.sh"
F=(-f leaf_hash -f leaf_mix -f checksum -f main)

# the pairing both files of DIR carry, checked (prints the number of pairs)
pairing() {
	python3 - "$1/base.json" "$1/new.json" <<'PY'
import sys, pgtest
base, new = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
ab_b, ab_n = base["meta"]["ab"], new["meta"]["ab"]
assert ab_b["session"] == ab_n["session"] and ab_b["session"], (ab_b, ab_n)
assert (ab_b["side"], ab_n["side"]) == ("base", "new"), (ab_b, ab_n)
n = len(base["repetitions"])
assert len(new["repetitions"]) == n, (n, len(new["repetitions"]))
for run in (base, new):
    assert sorted(r["pair"] for r in run["repetitions"]) == list(range(n))
    assert run["meta"]["options"]["repetitions"] == n
seq = [r["seq"] for r in base["repetitions"] + new["repetitions"]]
assert sorted(seq) == list(range(2 * n)), seq
# each pair's two repetitions ran one after the other
by_pair = {}
for r in base["repetitions"] + new["repetitions"]:
    by_pair.setdefault(r["pair"], []).append(r["seq"])
assert all(abs(a - b) == 1 for a, b in by_pair.values()), by_pair
# the same functions on both sides
assert pgtest.names(base) == pgtest.names(new), (pgtest.names(base), pgtest.names(new))
print(n)
PY
}

# A/A with the default selection (the budget on the base command): a pass, pairs recorded
expect_exit 0 "$PERFGATE" ab -o "$TMP/aa" -r 10 --max-reps 10 ./knob ./knob
check_contains "A/A: progress shows both sides" "$TMP/stderr" 'pair 10/10: base .* s, new .* s'
check_contains "A/A: a PASS or INCONCLUSIVE line" "$TMP/stdout" '^perfgate: \(PASS\|INCONCLUSIVE\)'
check "A/A: compare.json" test -s "$TMP/aa/compare.json"
check_eq "A/A: pairs in the files" 10 "$(pairing "$TMP/aa")"
python3 - "$TMP/aa/compare.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["overall"] != "regression", r["overall"]
assert not pgtest.with_verdict(r, "regression")
# compared pair by pair: the result says so and how many pairs
assert r["paired"] is True, r.get("paired")
assert r["npairs"] == 10, r.get("npairs")
PY
# the files are ordinary run files to report and compare
check "A/A: report reads base.json" "$PERFGATE" report "$TMP/aa/base.json" --format csv
expect_exit 0 "$PERFGATE" compare "$TMP/aa/base.json" "$TMP/aa/new.json"
check_contains "compare of the two sides: paired" "$TMP/stdout" 'paired'
# merge keeps the repetitions but not the pairing
expect_exit 0 "$PERFGATE" merge "$TMP/aa/base.json" -o "$TMP/merged.json"
has "ordinary run"
check_eq "merge drops the session" "None" \
	"$(python3 -c 'import sys, pgtest; print(pgtest.load(sys.argv[1])["meta"].get("ab"))' "$TMP/merged.json")"

# a 20% slower leaf on the new side: exit 1, that leaf named, only it
expect_exit 1 "$PERFGATE" ab -o "$TMP/slow" -r 10 "${F[@]}" --junit "$TMP/slow.xml" \
	--markdown "$TMP/slow.md" --codequality "$TMP/slow-cq.json" ./knob './knob 20'
cat "$TMP/stdout"
check_contains "slow: REGRESSION line" "$TMP/stdout" 'REGRESSION'
check_contains "slow: leaf_hash in the JUnit report" "$TMP/slow.xml" 'leaf_hash'
check "slow: Markdown summary" test -s "$TMP/slow.md"
check_contains "slow: how many pairs" "$TMP/stderr" '[0-9]* pairs (at most 20)'
check "slow: no warning that the commands differ" not grep -q 'different commands' "$TMP/stderr"
n=$(pairing "$TMP/slow")
check "slow: 10 to 20 pairs ($n)" test "$n" -ge 10 -a "$n" -le 20
python3 - "$TMP/slow/compare.json" "$TMP/slow/new.json" "$n" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["overall"] == "regression", r["overall"]
assert pgtest.with_verdict(r, "regression") == ["leaf_hash"], pgtest.verdicts(r)
# 20% more iterations: +20% of its time, within 10 points under and 15 over (compensation,
# the pairs' noise), or within the width of the result's own interval when the session was
# noisier than that
f = pgtest.func(r, "leaf_hash")
w = f["ci_hi"] - f["ci_lo"]
assert 0.20 - max(0.10, w) < f["change"] < 0.20 + max(0.15, w), f
new = pgtest.load(sys.argv[2])
assert new["meta"]["command"] == ["./knob", "20"], new["meta"]["command"]
assert pgtest.calls(new, "leaf_hash") == 300 * int(sys.argv[3])
PY
if git -C "$PERFGATE_SRCDIR" rev-parse --show-toplevel >/dev/null 2>&1; then
	python3 - "$TMP/slow-cq.json" <<'PY'
import json, sys
cq = json.load(open(sys.argv[1]))
regs = [f for f in cq if f["severity"] == "major"]
assert [f["location"]["path"] for f in regs] == ["tests/progs/knob.c"], cq
assert "leaf_hash" in regs[0]["description"], regs
PY
fi

# two builds in two directories (copies of one binary): each side's own binary is traced
mkdir -p "$TMP/build-a" "$TMP/build-b"
cp knob "$TMP/build-a/knob"
cp knob "$TMP/build-b/knob"
expect_exit 1 "$PERFGATE" ab -o "$TMP/dirs" -r 10 --max-reps 10 "${F[@]}" \
	"$TMP/build-a/knob" "$TMP/build-b/knob 20"
check_contains "two dirs: leaf_hash regressed" "$TMP/stdout" 'leaf_hash.*REGRESSION'
check_eq "two dirs: pairs" 10 "$(pairing "$TMP/dirs")"
python3 - "$TMP/dirs/base.json" "$TMP/dirs/new.json" "$TMP" <<'PY'
import sys, pgtest
base, new = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
assert {f["binary"] for f in base["functions"]} == {sys.argv[3] + "/build-a/knob"}
assert {f["binary"] for f in new["functions"]} == {sys.argv[3] + "/build-b/knob"}
for run in (base, new):
    assert pgtest.calls(run, "leaf_hash") == 3000, pgtest.calls(run, "leaf_hash")
    assert pgtest.calls(run, "main") == 10
PY

# two executables of different names (knob-old, knob-new) are each side's program: their
# functions pair up, in ab and in a compare of two recordings
cp knob "$TMP/build-a/knob-old"
cp knob "$TMP/build-b/knob-new"
expect_exit 1 "$PERFGATE" ab -o "$TMP/names" -r 10 --max-reps 10 "${F[@]}" \
	"$TMP/build-a/knob-old" "$TMP/build-b/knob-new 20"
cat "$TMP/stdout"
check_contains "two names: leaf_hash regressed" "$TMP/stdout" 'leaf_hash.*REGRESSION'
python3 - "$TMP/names/compare.json" "$TMP/names/new.json" "$TMP" <<'PY'
import sys, pgtest
r, new = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
assert new["meta"]["program"] == sys.argv[3] + "/build-b/knob-new", new["meta"].get("program")
assert {f["binary"] for f in new["functions"]} == {sys.argv[3] + "/build-b/knob-new"}
v = {f["name"]: f["verdict"] for f in r["functions"] if f.get("origin") == "exact"}
assert not [n for n, x in v.items() if x in ("added", "removed")], v
assert v["leaf_hash"] == "regression" and "main" in v, v
PY
"$PERFGATE" record -q -r 5 "${F[@]}" -o "$TMP/old.json" -- "$TMP/build-a/knob-old"
"$PERFGATE" record -q -r 5 "${F[@]}" -o "$TMP/new.json" -- "$TMP/build-b/knob-new"
"$PERFGATE" compare "$TMP/old.json" "$TMP/new.json" --json "$TMP/names.json" >/dev/null || true
python3 - "$TMP/names.json" <<'PY'
import sys, pgtest
v = {f["name"]: f["verdict"] for f in pgtest.load(sys.argv[1])["functions"]
     if f.get("origin") == "exact"}
assert "main" in v and not [n for n, x in v.items() if x in ("added", "removed")], v
PY

# ...but two unrelated programs that share only main are not one renamed: nothing to compare
"$PERFGATE" record -q -r 2 -f main -f fib -o "$TMP/nested.json" -- ./nested
expect_exit 2 "$PERFGATE" compare "$TMP/old.json" "$TMP/nested.json"

# a failing side stops the session: exit 2, one message naming it, no files
mkdir -p "$TMP/fail"
echo stale >"$TMP/fail/base.json"
expect_exit 2 "$PERFGATE" ab -o "$TMP/fail" -r 4 "${F[@]}" ./knob './knob 0 3'
has 'new side: ./knob exited with status 3'
check_eq "fail: one error line" 1 "$(grep -c 'perfgate: error' "$TMP/stderr")"
check "fail: no base.json (the stale one removed)" test ! -e "$TMP/fail/base.json"
check "fail: no new.json" test ! -e "$TMP/fail/new.json"
check "fail: no compare.json" test ! -e "$TMP/fail/compare.json"
expect_exit 2 "$PERFGATE" ab -o "$TMP/crash" -r 4 "${F[@]}" './knob 0 abort' ./knob
has 'base side: ./knob was killed by signal 6'
check "crash: no base.json" test ! -e "$TMP/crash/base.json"
# ...unless failures are allowed
expect_exit 0 "$PERFGATE" ab -o "$TMP/allowed" -r 4 --max-reps 4 --allow-failure "${F[@]}" \
	./knob './knob 0 3'
check_eq "allowed: pairs" 4 "$(pairing "$TMP/allowed")"

# a side that runs past --timeout: exit 2, the side named, nothing left running
mark=pg-ab-$$
expect_exit 2 "$PERFGATE" ab -o "$TMP/slowside" -r 2 --all-functions --timeout 0.3 \
	"./hang sleep $mark" "./hang sleep $mark"
has '\(base\|new\) side: ./hang ran past --timeout 0.3 s (pair 1)'
check "timeout: no base.json" test ! -e "$TMP/slowside/base.json"
check_eq "timeout: no processes left" "" "$(settle pgrep -f -- "$mark")"

# SIGINT during the session: exit 2, no run file, nothing left running
"$PERFGATE" ab -q -o "$TMP/int" -r 3 --all-functions "./hang sleep $mark" "./hang sleep $mark" \
	>"$TMP/out" 2>"$TMP/stderr" &
pid=$!
# (up to 60 s: a busy machine took ~3 s to calibrate and attach; polled, so no longer)
for i in $(seq 600); do grep -q ready "$TMP/out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$TMP/out" || fail "SIGINT: the benchmark did not start"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
check_eq "SIGINT: exit 2" 2 "$rc"
check_contains "SIGINT: said so" "$TMP/stderr" 'stopped by SIGINT'
check "SIGINT: no base.json" test ! -e "$TMP/int/base.json"
check "SIGINT: no new.json" test ! -e "$TMP/int/new.json"
check "SIGINT: no temporary file" test -z "$(ls -A "$TMP/int")"
check_eq "SIGINT: no processes left" "" "$(settle pgrep -f -- "$mark")"

# bad arguments, refused before anything runs
expect_exit 2 "$PERFGATE" ab -o "$TMP/bad" ./knob
has 'expected two commands'
expect_exit 2 "$PERFGATE" ab -o "$TMP/bad" ./knob ./no-such-program
has "the new command's program './no-such-program' was not found"
expect_exit 2 "$PERFGATE" ab -o "$TMP/bad" './knob | cat' ./knob
has 'base command'
expect_exit 2 "$PERFGATE" ab -o "$TMP/bad" './knob $(id)' ./knob
has 'command substitution'
expect_exit 2 "$PERFGATE" ab -o /proc/no/such/dir ./knob ./knob
has 'cannot create'
expect_exit 2 "$PERFGATE" ab -o "$TMP/bad" -r 10 --max-reps 5 ./knob ./knob
has 'max-reps'
expect_exit 2 "$PERFGATE" ab ./knob ./knob
has '\-o DIR is required'
check "bad arguments: nothing written" test ! -e "$TMP/bad/base.json"
