# SPDX-License-Identifier: MIT
# Probe calibration and overhead compensation: the run file carries the calibrated cost of
# each kind of probe site and, per function, the traced calls made inside its calls (exact
# counts) and the run time of their BPF programs (measured at every call), and the calibration's
# spread; report and compare subtract the probe costs, and keep the raw values too.
# The same checks on nested (frame pointers: emulated sites, spin single-stepped) and on
# nested_nop5 (every site a 5-byte nop, where the calibrated costs are scaled).
source "$(dirname "$0")/lib.sh"
cat >"$TMP/check.py" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
rep = pgtest.load(sys.argv[2])
scaled_build = sys.argv[3] == "nop5"
disturbed = sys.argv[4] == "disturbed"
cal = run["calibration"]
cost = {k: v["in_ns"] + v["out_ns"] for k, v in cal.items()}
# every kind of site was measured (how much dearer single-stepping is: below, across both
# runs); a busy machine can disturb every try of a kind, which perfgate then says, and a
# probe may come out as costing nothing
lo = 0 if disturbed else 1e-9
assert lo <= cost["nop5"] < 100000 and lo <= cost["emulated"] < 100000, (cost, disturbed)
funcs = {f["id"]: f for f in run["functions"]}
site = {f["name"]: f["site"] for f in run["functions"]}
# the calibration's spread over its rounds, on every kind of site (unknown sites take
# single-stepping's): present and in range whatever the machine
assert all(0 <= v["spread_ns"] < 1e7 for v in cal.values()), cal
assert cal["unknown"]["spread_ns"] == cal["sstep"]["spread_ns"], cal
for s in pgtest.reps(run):
    def n(x, key):
        return sum(x.get(key, {}).values())
    # exact counts of traced calls inside: outer calls spin and inner once each, 50 times
    assert n(s["outer"], "kids") == 100 and n(s["outer"], "desc") == 150, s["outer"]
    assert n(s["inner"], "kids") == 50 and n(s["inner"], "desc") == 50
    assert n(s["spin"], "desc") == 0
    # main calls outer 50 times and fib once; below it is every other traced call
    others = sum(x["calls"] for k, x in s.items() if k != "main")
    assert n(s["main"], "kids") == 51 and n(s["main"], "desc") == others, s["main"]
    # fib(15): each of the 1972 inner calls is a child of one call; desc sums every subtree
    def size(k):
        return 1 if k < 2 else 1 + size(k - 1) + size(k - 2)
    def desc(k):
        return 0 if k < 2 else size(k) - 1 + desc(k - 1) + desc(k - 2)
    assert n(s["fib"], "kids") == 1972 and n(s["fib"], "desc") == desc(15), s["fib"]
    assert s["outer"]["kids"][site["spin"]] == (100 if scaled_build else 50)  # nop5: all
    # probe run times: every call's own, added to its caller's kids and all its ancestors' desc
    pr = {k: x.get("probe_ns", 0) for k, x in s.items()}
    kp = {k: x.get("kids_probe_ns", 0) for k, x in s.items()}
    dp = {k: x.get("desc_probe_ns", 0) for k, x in s.items()}
    assert all(v > 0 for v in pr.values()), pr
    assert sum(kp.values()) == sum(pr.values()) - pr["main"], (kp, pr)
    assert dp["main"] == sum(pr.values()) - pr["main"], (dp, pr)
    assert dp["outer"] == kp["outer"] + kp["inner"] and dp["inner"] == kp["inner"], (dp, kp)
    assert dp["spin"] == 0 and kp["spin"] == 0
# the report subtracts exactly what the calibration says (a leaf on a trap site: calls x
# in_ns of its site; on a nop5 site that is scaled, below)
row = {f["function"]: f for f in rep["functions"]}
spin = row["spin"]
expect = spin["raw_total_ns"] - spin["calls"] * cal[site["spin"]]["in_ns"]
assert scaled_build or abs(spin["total_ns"] - expect) <= 1, (spin, expect)
# a caller, per repetition: its own in_ns per call, then per descendant its in_ns and the part
# of out_ns that is not measured, scaled by how long the descendants' probes ran in BPF against
# the calibration's measured_ns (within [1/4, 4]; not for single-stepped descendants), then
# that measured run time. Self time: the same with direct children, less their in_ns.
assert all(0 < v["measured_ns"] < 100000 for v in cal.values()), cal
unmeasured = {k: max(0, v["out_ns"] - v["measured_ns"]) for k, v in cal.items()}
rest = {k: v["in_ns"] + unmeasured[k] for k, v in cal.items()}
tot = lambda f, key: sum(x.get(key, 0) for r in run["repetitions"] for x in r["functions"]
                         if funcs[x["id"]]["name"] == f)
def scale(n, probe_ns):
    want = sum(v * cal[k]["measured_ns"] for k, v in n.items())
    return min(4, max(0.25, probe_ns / want)) if want else 1
def comp(x, t, counts, probe, part):
    n = x.get(counts, {})
    s = scale(n, x.get(probe, 0))
    k = site[funcs[x["id"]]["name"]]
    own = x["calls"] * cal[k]["in_ns"]
    if k == "nop5":  # a call's own in, scaled by its own probes' BPF run time
        own *= scale({k: x["calls"]}, x["probe_ns"])
    return max(0, x[t] - own -
               sum(v * part[k] * (s if k == "nop5" else 1) for k, v in n.items()) -
               x.get(probe, 0))
for f in row.values():
    xs = [x for r in run["repetitions"] for x in r["functions"]
          if funcs[x["id"]]["name"] == f["function"]]
    total = sum(comp(x, "total_ns", "desc", "desc_probe_ns", rest) for x in xs)
    self = sum(comp(x, "self_ns", "kids", "kids_probe_ns", unmeasured) for x in xs)
    # null: compensation left nothing (report's n/a*), which only a value of 0 may be
    assert f["total_ns"] is not None or total < 0.5, (f, total)
    assert f["self_ns"] is not None or min(self, total) < 0.5, (f, self)
    f = dict(f, total_ns=f["total_ns"] or 0, self_ns=f["self_ns"] or 0)
    assert abs(f["total_ns"] - total) <= 1 + f["calls"], (f, total)
    assert abs(f["self_ns"] - min(self, total)) <= 1 + f["calls"], (f, self)
# on nop5 sites, the checks above cover the scale: main has nop5 descendants, and each
# function's own probes ran in BPF some way from calibration's time
if scaled_build:
    assert "nop5" in s["main"]["desc"], s["main"]
    assert all(site[f] == "nop5" for f in s), site
    assert all(scale({"nop5": x["calls"]}, x["probe_ns"]) != 1 for x in s.values()), s
for f in rep["functions"]:
    f = dict(f, total_ns=f["total_ns"] or 0, self_ns=f["self_ns"] or 0)  # null: 0, above
    assert f["total_ns"] <= f["raw_total_ns"] and f["self_ns"] <= f["raw_self_ns"], f
    k = site[f["function"]]
    own = f["calls"] * (cal[k]["in_ns"] + max(0, cal[k]["out_ns"] - cal[k]["measured_ns"]))
    assert abs(f["overhead_ns"] - own - tot(f["function"], "probe_ns")) < 1 + f["calls"], f
print("ok")
PY
for prog in nested nested_nop5; do
	"$PERFGATE" record --all-functions -o "$TMP/run_$prog.json" -r 2 -- ./$prog \
		2>"$TMP/err_$prog"
	disturbed=calm
	! grep -q "probe calibration: the machine disturbed" "$TMP/err_$prog" || disturbed=disturbed
	"$PERFGATE" report "$TMP/run_$prog.json" --format json >"$TMP/report.json"
	"$PERFGATE" report "$TMP/run_$prog.json" >"$TMP/report.txt"
	check_contains "report says compensated" "$TMP/report.txt" "compensated for probe overhead"
	check_contains "report shows the calibration's spread" "$TMP/report.txt" \
		"The calibration is known to +-"
	python3 "$TMP/check.py" "$TMP/run_$prog.json" "$TMP/report.json" "${prog#nested_}" \
		"$disturbed" || fail "$prog: compensation"
done
# Single-stepping is the dearest kind of site: on top of the breakpoint's trap it takes a
# second one, the step. By how much depends on the machine: 2.7x the emulated site per traced
# call on one machine of CI's kind, 40x entry-only on another (docs/measurement.md), and one
# machine's calibrations moved by up to 46% from one recording to the next, more when busy. So
# the factor asked of each run is 2 shrunk by the spread this test measured between the two
# recordings' calibrations of the same kind of site (the larger over the smaller; never below
# 1: dearest in any case). A calibration perfgate said the machine disturbed (every try; a
# busy runner's other CPU can do that) orders nothing: then emulated sites came out at 0 or at
# twice single-stepped ones. It is left out, and said.
check "single-stepping dearest in the calm calibrations" python3 - "$TMP/run_nested.json" \
	"$TMP/err_nested" "$TMP/run_nested_nop5.json" "$TMP/err_nested_nop5" <<'PY'
import sys, pgtest
runs = [(pgtest.load(r), "the machine disturbed" in open(e).read())
        for r, e in zip(sys.argv[1::2], sys.argv[2::2])]
costs = [{k: v["in_ns"] + v["out_ns"] for k, v in run["calibration"].items()} for run, _ in runs]
a, b = costs
spread = max((max(a[k], b[k]) / min(a[k], b[k]) for k in ("nop5", "emulated", "sstep")
              if min(a[k], b[k]) > 0), default=float("inf"))
factor = max(1.0, 2 / spread)
print("calibrations %s; spread %.2fx: single-stepping must cost %.2fx the others" %
      (costs, spread, factor))
for c, (_, disturbed) in zip(costs, runs):
    if disturbed:
        print("disturbed, not ordered: %s" % c)
        continue
    assert c["sstep"] > factor * max(c["nop5"], c["emulated"]), (c, factor)
PY
cp "$TMP/run_nested.json" "$TMP/run.json"  # emulated and single-stepped sites, below
# The histograms hold each call's compensated duration: the formula above, call by call,
# without the scale, with the calibration rounded to whole ns (so version 2 of the format,
# which says so). Also after --budget's pilot, which loads the BPF programs again.
cat >"$TMP/hist_check.py" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
cal = run["calibration"]
rest = {k: v["in_ns"] + max(0, v["out_ns"] - v["measured_ns"]) for k, v in cal.items()}
site = {f["name"]: f["site"] for f in run["functions"]}
assert run["version"] == 3 and run["histogram"]["durations"] == "compensated", run["histogram"]
def bucket(v):
    if v < 64:
        return v
    e = v.bit_length() - 1
    return min(2367, 64 + (e - 6) * 64 + (v >> (e - 6)) - 64)
def mid(b):
    if b < 64:
        return b
    e, s = (b - 64) // 64 + 6, (b - 64) % 64
    return (64 + s + 0.5) * 2 ** (e - 6)
rnd = lambda x: int(x + 0.5)
for r in pgtest.reps(run):
    for name, x in r.items():
        per_call = (x["calls"] * rnd(cal[site[name]]["in_ns"]) + x.get("desc_probe_ns", 0) +
                    sum(v * rnd(rest[k]) for k, v in x.get("desc", {}).items()))
        c = x["total_ns"] - per_call
        assert sum(n for _, n in x["hist"]) == x["calls"]
        if name == "main":	# one call: exactly its bucket
            assert x["hist"] == [[bucket(max(0, c)), 1]], (x["hist"], c, bucket(c))
        elif name != "fib":	# fib(0) and fib(1) may be shorter than their probes: clamped
            # each call's value is floored at 0: a calibration a busy machine put above what
            # a call took clamps it (bucket 0), which adds to the sum at most what was
            # compensated of those calls, per_call / calls each (the same in every call here)
            est = sum(mid(b) * n for b, n in x["hist"])
            clamped = sum(n for b, n in x["hist"] if b == 0) * per_call / x["calls"]
            tol = 0.02 * abs(c) + x["calls"]
            assert -tol <= est - c <= tol + clamped, (name, est, c, clamped)
PY
python3 "$TMP/hist_check.py" "$TMP/run.json"
python3 "$TMP/hist_check.py" "$TMP/run_nested_nop5.json"
# compare says which times it compares, and --raw switches compensation off
"$PERFGATE" compare "$TMP/run.json" "$TMP/run.json" --min-reps 2 >"$TMP/cmp.txt" || true
check_contains "compare says compensated" "$TMP/cmp.txt" "compensated for probe overhead"
"$PERFGATE" compare --raw "$TMP/run.json" "$TMP/run.json" --min-reps 2 >"$TMP/cmp.txt" || true
check_contains "compare --raw says raw" "$TMP/cmp.txt" "(raw)"
# a benchmark whose probes cost more than its own work gets a warning naming the function
# (when they cost over half the first repetition's wall time). count_a is called 100,000 times
# and does nothing else, on a 5-byte nop site: its probes cost at least 70 ms on the cheapest
# machine measured (0.7 us a traced call, docs/measurement.md; 2.4 us on a slow one) against
# ~1-20 ms of the program's own (exec, the loop's 100,000 x ~3 ns): 3.5x the rest of the run
# or more, where the warning starts at 1x. The warning follows the price the calibration put
# on the calls, and a busy machine's can be far off what they cost (0 in a disturbed one, a
# third of it in a calm one: 138 ms priced of a 408 ms run): so the check is that it is given
# exactly when the run's own calibration puts the probes over half the run (but within 5% of
# that edge, where this test's sum and perfgate's may round apart).
cat >"$TMP/hot.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void count_a(unsigned long i) { sink += i; }
int main(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		count_a(i);
	return 0;
}
C
clang -O1 -g -fpatchable-function-entry=5 -o "$TMP/hot" "$TMP/hot.c"
"$PERFGATE" record -o "$TMP/hot.json" -r 1 -f count_a -- "$TMP/hot" 2>"$TMP/err"
check "the overhead warning names count_a when the run's calibration says so" python3 - \
	"$TMP/hot.json" "$TMP/err" <<'PY'
import re, sys, pgtest
run, err = pgtest.load(sys.argv[1]), open(sys.argv[2]).read()
cost, wall = pgtest.reps_probe_cost(run)[0], run["repetitions"][0]["wall_ns"]
warned = bool(re.search("tracing more than doubles the run time.*count_a", err))
print("count_a's probes: %.1f ms priced of a %.1f ms run; warned %s" %
      (cost / 1e6, wall / 1e6, warned))
if abs(cost / wall - 0.5) > 0.025:
    assert warned == (cost > 0.5 * wall), (warned, cost, wall)
PY
# --budget: a pilot run finds the functions whose probes cost most and leaves them out.
# nested runs ~4 ms: the sampled first pass runs it again and again for enough samples (and
# trusts them, or says that too many had unknown frames: its stacks are partly frame-less)
"$PERFGATE" record -o "$TMP/budget.json" -r 2 --budget 5 -- ./nested 2>"$TMP/err"
check_contains "the budget line" "$TMP/err" "--budget 5%: in the pilot run the probes cost"
grep -q -- "--budget: \(a sampled first pass ([0-9]* samples in [0-9]* runs) saw\|the sampled first pass took [0-9]\{3,\} samples\)" \
	"$TMP/err" || fail "a 4 ms run was sampled once: $(cat "$TMP/err")"
# (fib's 1973 calls cost their probes 1.4 ms or more, at 0.7 us a traced call, the cheapest
# measured, against 5% of nested's ~4 ms, 0.2 ms: 7x over the budget or more; main's one call,
# 45 us at the dearest, is 4x under it)
pgtest names "$TMP/budget.json" >"$TMP/names"
check "--budget 5: not fib (1973 calls, the dearest by far)" not grep -qx fib "$TMP/names"
check "--budget 5: main" grep -qx main "$TMP/names"
python3 "$TMP/hist_check.py" "$TMP/budget.json"
# No sampled first pass: every selected function goes to the pilot, and all fit 1000% of
# nested's own time where a traced call costs what it should (~160% at 2.4-7.7 us, 6x under).
# A calibration a busy machine disturbed can price the calls 10-20x that, over the budget. So
# the decision is checked against the run's own calibration: the pilot's cost is nested's
# calls (the --all-functions run above) at that price, over the run's own time; all five stay
# when that is 1.5x under 1000% or more, not all when 1.5x over or more; in between the price
# moved too near the edge for either (said).
"$PERFGATE" record -q -o "$TMP/all.json" -r 1 --budget 1000 --no-sample -- ./nested
check "--budget 1000: every function, if they fit by the run's own calibration" python3 - \
	"$TMP/all.json" "$TMP/run_nested.json" <<'PY'
import sys, pgtest
run, full = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
kept = pgtest.names(run)
own = run["repetitions"][0]["wall_ns"] - pgtest.reps_probe_cost(run)[0]
cal = run["calibration"]
per_call = {f["name"]: cal[f["site"]]["in_ns"] +
            max(0, cal[f["site"]]["out_ns"] - cal[f["site"]]["measured_ns"]) for f in full["functions"]}
pilot = sum(s["calls"] * per_call[n] + s.get("probe_ns", 0) for n, s in pgtest.reps(full)[0].items())
share = pilot / own
print("the pilot's probes: %.0f%% of nested's own time; kept %s" % (100 * share, kept))
if share <= 10 / 1.5:
    assert len(kept) == 5, kept
elif share >= 10 * 1.5:
    assert len(kept) < 5, kept
PY
# a longer run: the sampled first pass (~150 ms, no probes) keeps only the functions seen on
# its stacks for the pilot. never_called cannot be on one; hot holds nearly all the time
"$PERFGATE" record -o "$TMP/sampled.json" -r 1 --budget 5 -- ./budget 2>"$TMP/err"
grep -q -- "--budget: a sampled first pass ([0-9]* samples[^)]*) saw [2-4] of the [2-5] selected" \
	"$TMP/err" || fail "no sampled first pass: $(cat "$TMP/err")"
pgtest names "$TMP/sampled.json" >"$TMP/names"
check "sampled first pass: not never_called" not grep -qx never_called "$TMP/names"
for f in hot main late; do
	check "sampled first pass: $f" grep -qx $f "$TMP/names"
done
python3 "$TMP/hist_check.py" "$TMP/sampled.json"
# tiny's probes would cost ~100x the run's own time: the pilot detaches it as soon as its
# probes cost more than the budget of the whole run, starts again, and runs to its end: late,
# which a pilot stopped at 10x the sampled run never reached, is reached, costed and stays
"$PERFGATE" record -o "$TMP/cut.json" -r 1 --budget 5 -- ./budget 2000000 2>"$TMP/err"
grep -q -- "--budget: the pilot detached [0-9]* functions\? .*(.*tiny" "$TMP/err" ||
	fail "the pilot did not detach tiny as it ran: $(cat "$TMP/err")"
check "the pilot ran to its end" not grep -q -- "--budget: the pilot ran past" "$TMP/err"
grep -q -- "--budget 5%: .* without the [0-9]* functions\? left out" "$TMP/err" &&
	grep -q -- "^perfgate: .*%  tiny$" "$TMP/err" || fail "tiny not dropped: $(cat "$TMP/err")"
check "late reached by the pilot" not grep -q -- "before a call of .*late" "$TMP/err"
pgtest names "$TMP/cut.json" >"$TMP/names"
check "live pilot: tiny dropped" not grep -qx tiny "$TMP/names"
check "live pilot: late stays" grep -qx late "$TMP/names"
check_eq "live pilot: budget_pct" 5 "$(pgtest get "$TMP/cut.json" meta.options.budget_pct)"
# two runs whose functions --budget chose differently: compare says so
"$PERFGATE" compare "$TMP/budget.json" "$TMP/all.json" --min-reps 2 >"$TMP/cmp.txt" \
	2>"$TMP/err" || true
grep -q "sets of functions (0 called only in the base run, [1-9] only in the new one: --budget" \
	"$TMP/err" || fail "compare does not warn of budget-chosen sets: $(cat "$TMP/err")"
# --functions-of: later runs trace the functions the --budget baseline chose; compare and merge
# then see one set
"$PERFGATE" record -o "$TMP/of.json" -r 2 --functions-of "$TMP/budget.json" -- ./nested \
	2>"$TMP/err" || fail "record --functions-of: $(cat "$TMP/err")"
grep -qE -- "--functions-of $TMP/budget.json: tracing ([0-9]) functions? \(0 of its \1 not found" \
	"$TMP/err" ||
	fail "no --functions-of line: $(cat "$TMP/err")"
check_eq "--functions-of: the baseline's functions" "$(pgtest names "$TMP/budget.json")" \
	"$(pgtest names "$TMP/of.json")"
check_eq "--functions-of: functions_of" "$TMP/budget.json" \
	"$(pgtest get "$TMP/of.json" meta.options.functions_of)"
check_eq "--functions-of: budget_pct" 5 "$(pgtest get "$TMP/of.json" meta.options.budget_pct)"
rc=0
"$PERFGATE" compare "$TMP/budget.json" "$TMP/of.json" --min-reps 2 >"$TMP/cmp.txt" \
	2>"$TMP/err" || rc=$?
[ "$rc" -le 1 ] || fail "compare of a --budget run and its --functions-of run: exit $rc"
! grep -q "sets of functions" "$TMP/err" || fail "same sets, still warned: $(cat "$TMP/err")"
# a function the code has since removed: named in a warning, the rest traced
python3 - "$TMP/budget.json" "$TMP/gone.json" <<'PY'
import json, sys, pgtest
run = pgtest.load(sys.argv[1])
# one more function, never called: the budget may have kept a single one, which must stay
gone = dict(run["functions"][0], id=len(run["functions"]), name="removed_since",
            display="removed_since")
gone.pop("scope", None)
run["functions"].append(gone)
json.dump(run, open(sys.argv[2], "w"))
PY
"$PERFGATE" record -o "$TMP/of_gone.json" -r 1 --functions-of "$TMP/gone.json" -- ./nested \
	2>"$TMP/err" || fail "--functions-of with a removed function: $(cat "$TMP/err")"
grep -q -- "some of its functions are not in .*binaries (removed_since)" "$TMP/err" &&
	grep -q "tracing [0-9] functions\? (1 of its [0-9] not found)" "$TMP/err" ||
	fail "no warning of the removed function: $(cat "$TMP/err")"
"$PERFGATE" merge -o "$TMP/merged.json" "$TMP/budget.json" "$TMP/of.json" 2>"$TMP/err" ||
	fail "merging a --budget run and its --functions-of run: $(cat "$TMP/err")"
rc=0
"$PERFGATE" merge -o "$TMP/merged2.json" "$TMP/budget.json" "$TMP/all.json" 2>"$TMP/err" || rc=$?
check_eq "merging --budget runs of different sets: exit $rc" 2 "$rc"
grep -q "traced different functions (0 only in .*budget.json, [1-9] only in .*all.json; --budget" \
	"$TMP/err" || fail "no merge refusal: $(cat "$TMP/err")"
check "no merged file after the refusal" test ! -e "$TMP/merged2.json"
rc=0
"$PERFGATE" record -o "$TMP/of2.json" -f main --functions-of "$TMP/budget.json" -- ./nested \
	2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "does not combine with -f" "$TMP/err" ||
	fail "--functions-of with -f: exit $rc, $(cat "$TMP/err")"
# --no-sample: no sampled first pass, the pilot traces every function
"$PERFGATE" record -o "$TMP/ns.json" -r 1 --no-sample --budget 5 -- ./nested 2>"$TMP/err"
grep -q -- "--budget: no sampled first pass (--no-sample): the pilot traces all 5" "$TMP/err" ||
	fail "--no-sample still sampled: $(cat "$TMP/err")"
# --timeout ends the sampled first pass too: one message, exit 2, no run file
rc=0
"$PERFGATE" record -o "$TMP/to.json" -r 1 --timeout 0.05 --budget 5 -- ./budget 2>"$TMP/err" ||
	rc=$?
check_eq "--timeout in the sampled first pass: exit $rc" 2 "$rc"
grep -q -- "the sampled first pass ran past --timeout 0.05 s" "$TMP/err" ||
	fail "no timeout message: $(cat "$TMP/err")"
check "no run file after the timeout" test ! -e "$TMP/to.json"
