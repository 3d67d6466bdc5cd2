# SPDX-License-Identifier: MIT
# What the process really runs is what gets measured: the program behind a wrapper script or
# env, a build tree's library that shadows another of the same name, and a default selection
# that takes the functions holding the time (docs/recording.md, "Which code is measured").
source "$(dirname "$0")/lib.sh"

# two copies of libpgtest.so: uses_lib loads whichever LD_LIBRARY_PATH points at first
mkdir -p "$TMP/a" "$TMP/b"
cp libpgtest.so "$TMP/a/" && cp libpgtest.so "$TMP/b/"
A=$(realpath "$TMP/a/libpgtest.so") B=$(realpath "$TMP/b/libpgtest.so")
# binary_of RUN.json FUNCTION: the file the function was traced in
binary_of() { python3 -c 'import sys, pgtest; print(pgtest.func(pgtest.load(sys.argv[1]), sys.argv[2])["binary"])' "$@"; }

# a wrapper script in front of the program, as libtool writes them: the program behind it
printf '#!/bin/sh\n# a wrapper\nexec %s/uses_lib_spin 20000000 "$@"\n' "$PROGS" >"$TMP/wrap"
chmod +x "$TMP/wrap"
expect_exit 0 "$PERFGATE" record -o "$TMP/wrap.json" -r 2 -- "$TMP/wrap"
has "is a script .*; the program it ran is .*uses_lib_spin"
check_eq "the wrapper: the library's hot function is traced" \
	"$(realpath libpgtest.so)" "$(pgtest get "$TMP/wrap.json" functions.0.binary)"
check "the wrapper: pgtest_lib_spin traced" grep -qx pgtest_lib_spin \
	<(pgtest names "$TMP/wrap.json")

# -f LIB: names the file the processes load, whatever the loader would pick for perfgate
for cmd in "env LD_LIBRARY_PATH=$TMP/b ./uses_lib" "LD_LIBRARY_PATH=$TMP/b ./uses_lib"; do
	# shellcheck disable=SC2086
	expect_exit 0 "$PERFGATE" record -q -o "$TMP/lib.json" -r 2 \
		-f 'libpgtest.so:pgtest_lib_func' -- $cmd
	check_eq "$cmd: the loaded copy is traced" "$B" "$(binary_of "$TMP/lib.json" pgtest_lib_func)"
	check_eq "$cmd: its calls" 100 "$(pgtest calls "$TMP/lib.json" pgtest_lib_func)"
	check_eq "$cmd: the command recorded as given" "${cmd%% *}" \
		"$(pgtest get "$TMP/lib.json" meta.command.0)"
done

# a copy the processes do not load: refused at the first repetition, naming both files (the
# program runs long enough, sampled often enough, for the sampler to see what it maps)
expect_exit 2 "$PERFGATE" record -q -o "$TMP/other.json" -r 2 -F 999 -f "$A:pgtest_*" \
	-- env LD_LIBRARY_PATH="$TMP/b" ./uses_lib_spin 50000000
# (a path names its file: the first repetition finds the processes loaded the other copy when
# the sampler saw the process's maps in time; else that nothing traced was called)
has "\(the first repetition never loaded $A, which is traced: its processes loaded $B\|no traced function was called in the first repetition\)"
check "no run file for a copy never loaded" test ! -e "$TMP/other.json"

# a recording in which no traced function is ever called measures nothing: exit 2
expect_exit 2 "$PERFGATE" record -q -o "$TMP/none.json" -r 3 -f 'libpgtest.so:pgtest_lib_spin' \
	-- ./uses_lib
has "no traced function was called in the first repetition"
check "no run file when nothing was called" test ! -e "$TMP/none.json"

# ab: each side its own environment and its own copy, paired by name
expect_exit 0 "$PERFGATE" ab -q -o "$TMP/ab" -r 5 --max-reps 5 -f 'libpgtest.so:pgtest_lib_func' \
	-f main --min-effect 1000 "LD_LIBRARY_PATH=$TMP/a ./uses_lib" \
	"env LD_LIBRARY_PATH=$TMP/b ./uses_lib"
check_eq "ab: the base side's copy" "$A" "$(binary_of "$TMP/ab/base.json" pgtest_lib_func)"
check_eq "ab: the new side's copy" "$B" "$(binary_of "$TMP/ab/new.json" pgtest_lib_func)"
check_eq "ab: nothing removed or added" "" \
	"$(pgtest verdicts "$TMP/ab/compare.json" | grep -E ' (removed|added)$' || true)"
check "ab: no --functions-of the user did not give" not grep -q -- "--functions-of" \
	"$TMP/stderr"

# the default selection: the kernel that holds the time, not the constructor called 40,000
# times whose probes would cost as much as its work. The program sits far from the budget's
# edge (tests/progs/kernel_ctor.c); the margin is checked on this machine's own calibration,
# so that a failure says whether the machine moved the edge or the selection is wrong.
# (-F 4999: enough samples for the constructor's sampled verdict in so short a run)
expect_exit 0 "$PERFGATE" record -o "$TMP/kc.json" -r 5 -F 4999 -- ./kernel_ctor
pgtest names "$TMP/kc.json" >"$TMP/kc.names"
check "the kernel is traced" grep -qx kernel "$TMP/kc.names"
check "the constructor is not" not grep -qx obj_init "$TMP/kc.names"
has "what the exact probes cover"
has "obj_init"
# the budget says why it left out a function with a large share, with this machine's cost
# and the reference's, in record and in report, and its samples judge it
has "--budget left out obj_init ([0-9.]*% of the CPU time): its ~[0-9]* calls a run would cost"
has "us a traced call (nop5 site, calibrated); ~[0-9.]*% at the reference 1.40 us"
has "Its samples judge it"
check "the run file keeps why obj_init was left out" python3 - "$TMP/kc.json" <<'PY'
import sys, pgtest
lo = pgtest.load(sys.argv[1])["meta"]["budget_left_out"]
assert [o["name"] for o in lo] == ["obj_init"], lo
o = lo[0]
# its cost here over the budget, as the decision was; the reference cost quoted beside it
assert o["cost_pct"] > 5 and o["share"] >= 0.05 and o["judged"], o
assert o["ref_call_ns"] == 1400 and o["site"] == "nop5", o
assert abs(o["ref_cost_pct"] / o["cost_pct"] - 1400 / o["call_ns"]) < 1e-6, o
PY
"$PERFGATE" report "$TMP/kc.json" >"$TMP/kc.report"
check_contains "report says why obj_init was left out" "$TMP/kc.report" \
	"^--budget left out obj_init (.*calibrated); .*Its samples judge it"
expect_exit_any() { "$@" >"$TMP/stdout" 2>"$TMP/stderr" || true; }
expect_exit_any "$PERFGATE" compare "$TMP/kc.json" "$TMP/kc.json" --all --json "$TMP/kc.cmp"
check_eq "obj_init is judged from its samples" sampled \
	"$(python3 -c 'import sys, pgtest; print(pgtest.func(pgtest.load(sys.argv[1]), "obj_init")["origin"])' "$TMP/kc.cmp")"
# Margin: the kernel's calls at the calibrated cost of its site kind (in + out, the whole cost
# of a traced call), or at 10 us if the calibration reads less (a disturbed one can read 0),
# against the repetitions' CPU time: at most a quarter of the 5% budget.
check "the kernel's probes cost under a quarter of the budget here" python3 - "$TMP/kc.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
f = pgtest.func(run, "kernel")
c = run["calibration"][f["site"]]
cost = max(c["in_ns"] + c["out_ns"], 10000.0)
reps = pgtest.reps(run)
share = min(rep["kernel"]["calls"] * cost / rep_cpu
	    for rep, rep_cpu in zip(reps, (r["cpu_ns"] for r in run["repetitions"])))
print("kernel: %.0f ns a call (%s), %.2f%% of the CPU time" % (cost, f["site"], 100 * share))
assert share < 0.05 / 4, share
PY

# --functions-of records as the baseline was recorded: its sampling rate, unless given
expect_exit 0 "$PERFGATE" record -q -o "$TMP/f1.json" -r 2 -F 321 -- ./nested
expect_exit 0 "$PERFGATE" record -o "$TMP/f2.json" -r 2 --functions-of "$TMP/f1.json" -- ./nested
has "--functions-of .*f1.json: sampling at 321 Hz as it was recorded"
check_eq "--functions-of keeps the sampling rate" 321 \
	"$(pgtest get "$TMP/f2.json" meta.options.sample_hz)"
expect_exit 0 "$PERFGATE" record -q -o "$TMP/f3.json" -r 2 -F 199 --functions-of "$TMP/f1.json" \
	-- ./nested
check_eq "--functions-of: -F given wins" 199 "$(pgtest get "$TMP/f3.json" meta.options.sample_hz)"
