# SPDX-License-Identifier: MIT
# Programs that stress uprobes: longjmp over traced frames, deep recursion, many threads, a
# burst of forks, C++ exceptions. Each behaves as it does without perfgate (same output, same
# exit status), and the counts are exact and consistent: self <= total, histogram == calls, and
# the self times of a thread's traced calls add up to its outermost traced call's total.
source "$(dirname "$0")/lib.sh"

# same_behaviour NAME PERFGATE-OPTIONS... -- CMD...: record NAME.json with 2 repetitions and
# check that CMD printed the same and exited the same as it does alone
same_behaviour() {
	local name=$1 alone=0 traced=0 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	"$@" >"$TMP/$name.alone" 2>&1 || alone=$?
	"$PERFGATE" record -q -o "$TMP/$name.json" -r 2 "${opts[@]}" -- "$@" \
		>"$TMP/$name.traced" 2>"$TMP/$name.err" || traced=$?
	[ "$traced" = 0 ] || { cat "$TMP/$name.err" >&2; fail "$name: perfgate exited $traced"; }
	# two repetitions: the program's output twice
	cat "$TMP/$name.alone" "$TMP/$name.alone" >"$TMP/$name.twice"
	expect_same "$TMP/$name.twice" "$TMP/$name.traced"
	check_eq "$name: exited $alone alone" 0 "$alone"
}

# check_run NAME 'func=calls ...' [OUTERMOST...]: exact calls per repetition, consistency, and
# sum(self) == sum(total of the outermost functions) when those are given
check_run() {
	python3 - "$TMP/$1.json" "$2" "${@:3}" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
want = dict(kv.split("=") for kv in sys.argv[2].split())
outer = sys.argv[3:]
names = {f["id"]: f["name"].split("(")[0] for f in run["functions"]}
for f in run["functions"]:
    names[f["id"]] = f["display"].split("(")[0]
for r, rep in enumerate(run["repetitions"]):
    s = {names[x["id"]]: x for x in rep["functions"]}
    got = {k: s[k]["calls"] if k in s else 0 for k in want}
    assert got == {k: int(v) for k, v in want.items()}, (r, got, want)
    for x in rep["functions"]:
        assert x["self_ns"] <= x["total_ns"], x
        assert sum(c for _, c in x["hist"]) == x["calls"], x
        assert x["min_ns"] <= x["total_ns"] / x["calls"] <= x["max_ns"], x
    if outer:
        selves = sum(x["self_ns"] for x in rep["functions"])
        totals = sum(s[o]["total_ns"] for o in outer)
        assert selves == totals, (r, selves, totals)
print("ok")
PY
}

# longjmp: the outermost traced frame jumps away 100 times (escape), a traced function
# catches its own longjmp (guarded), and a tail call is not mistaken for a longjmp
same_behaviour longjmp -f 'escape*' -f after_jump -f guarded -f leaf -f 'tail_*' -- ./longjmp
check_run longjmp 'escape=0 escape_local=0 after_jump=100 guarded=50 leaf=50 tail_a=30 tail_b=30'
grep -q "5300 traced calls never returned" "$TMP/longjmp.err" ||
	{ cat "$TMP/longjmp.err"; fail "longjmp: the skipped frames were not reported"; }
# the same with main traced: every second of main is someone's self time
same_behaviour longjmp_main -f main -f 'escape*' -f after_jump -f guarded -f leaf -f 'tail_*' \
	-- ./longjmp
check_run longjmp_main 'main=1 after_jump=100 guarded=50 leaf=50 tail_a=30 tail_b=30'

# recursion: 64 traced frames deep is the kernel's limit of return probes per thread; deeper
# calls are reported, and everything after them is exact again
same_behaviour deep50 -f recurse -f shallow -- ./deep 50
check_run deep50 'recurse=510 shallow=10'
same_behaviour deep200 -f recurse -f shallow -- ./deep 200
check_run deep200 'recurse=640 shallow=10'
grep -q "2740 calls nested deeper than 64 traced frames" "$TMP/deep200.err" ||
	{ cat "$TMP/deep200.err"; fail "deep: the calls beyond the limit were not reported"; }
# the counted and the reported calls add up to the calls made: 2 x 10 x 201
[ $((640 * 2 + 2740)) = 4020 ] || fail "arithmetic"

# 64 threads at once, one leaving through pthread_exit inside a traced call
same_behaviour threads -f 'tb_*' -- ./manythreads
check_run threads 'tb_body=63 tb_work=6400 tb_leaf=6400 tb_exit_early=0'
grep -q "traced calls never returned" "$TMP/threads.err" ||
	{ cat "$TMP/threads.err"; fail "threads: pthread_exit's frame was not reported"; }

# a burst of 50 forks
same_behaviour forkburst -f 'fb_*' -- ./forkburst
check_run forkburst 'fb_child=500 fb_parent=1'

# C++ exceptions that do not leave a traced function behave as without perfgate
same_behaviour exceptions -f ex_catcher -f ex_after -- ./exceptions
check_run exceptions 'ex_catcher=100 ex_after=100' ex_catcher ex_after
# ...and so do those thrown through traced functions: the return probes replaced their return
# addresses with the trampoline, which the C++ unwinder cannot step over, and the preloaded
# libperfgate-preload.so puts the real ones back while the exception unwinds. The frames it
# unwound never return (11 per throwing round, 50 rounds, 2 repetitions); ex_catcher, which
# caught it, returns through its return probe again and is counted every time.
same_behaviour thrown -f 'ex_*' -- ./exceptions
check_run thrown 'ex_catcher=100 ex_after=100 ex_thrower=550' ex_catcher ex_after
grep -q "1100 traced calls never returned" "$TMP/thrown.err" ||
	{ cat "$TMP/thrown.err"; fail "thrown: the unwound frames were not reported"; }
# rethrown to an outer traced catcher, thrown and caught again inside the handler, unwinding
# through destructors that call traced functions, and a thread's pthread_exit, which runs the
# destructors above a traced frame (tests/progs/rethrow.cc): per run 402 frames unwound. The
# exiting thread's destructor is left out: its outermost traced call never returns, so its
# self time would be no returning call's
same_behaviour rethrow -f 'rx_*' -x 'rx_farewell::*' -- ./rethrow
check_run rethrow 'rx_outer=100 rx_after=100 rx_inner=50 rx_thrower=300 rx_dtor_work=600
	rx_handler_work=50 rx_nested=50 rx_nested_throw=0 rx_exit_outer=0 rx_exit_inner=0' \
	rx_outer rx_after
grep -q "804 traced calls never returned" "$TMP/rethrow.err" ||
	{ cat "$TMP/rethrow.err"; fail "rethrow: the unwound frames were not reported"; }
# only the catcher that a rethrow reaches traced: it returns, and is counted, every time
same_behaviour rethrow_outer -f rx_outer -- ./rethrow
check_run rethrow_outer 'rx_outer=100' rx_outer
# the benchmark as another user maps the return addresses all the same
same_behaviour thrown_nobody --user nobody -f 'ex_*' -- ./exceptions
check_run thrown_nobody 'ex_catcher=100 ex_after=100 ex_thrower=550' ex_catcher ex_after

# a preload library the benchmark's user cannot read is left out (ld.so would complain into
# the benchmark's output), which perfgate -v says once
cp "$PROGS/../libperfgate-preload.so" "$TMP/private.so"	# $TMP is root's, mode 0700
PERFGATE_PRELOAD="$TMP/private.so" "$PERFGATE" -v record -o "$TMP/private.json" -r 2 \
	--user nobody -f ex_catcher -f ex_after -- ./exceptions >"$TMP/private.out" \
	2>"$TMP/private.err" || { cat "$TMP/private.err"; fail "private: perfgate failed"; }
expect_same "$TMP/exceptions.twice" "$TMP/private.out"
[ "$(grep -c "nobody cannot read $TMP/private.so" "$TMP/private.err")" = 1 ] ||
	{ cat "$TMP/private.err"; fail "private: not said once"; }
check "private: ld.so did not complain" not grep -q -- "ld.so" "$TMP/private.err"
check_run private 'ex_catcher=100 ex_after=100'

# without the fix (--no-exception-fix), an exception thrown through a traced function aborts
# the benchmark, and perfgate says why
expect_exit 2 "$PERFGATE" record -q -o "$TMP/nofix.json" -r 1 --no-exception-fix -f 'ex_*' \
	-- ./exceptions
grep -q "C++ exception thrown through a traced function aborts it without the exception fix" \
	"$TMP/stderr" || { cat "$TMP/stderr"; fail "no hint about exceptions"; }
check "no run file" test ! -e "$TMP/nofix.json"
# nor can the fix reach an unwinder linked into the executable (-static-libstdc++
# -static-libgcc): the benchmark aborts as without it, and perfgate names that case
expect_exit 2 "$PERFGATE" record -q -o "$TMP/static.json" -r 1 -f 'ex_*' -- ./exceptions_static
grep -q "exception fix does not reach a statically linked libstdc++ or libgcc" "$TMP/stderr" ||
	{ cat "$TMP/stderr"; fail "no hint about static linking"; }
check "no run file" test ! -e "$TMP/static.json"
# the fix costs every traced call a little: it is on only when a traced binary is C++, or
# with --exception-fix
"$PERFGATE" -v record -o "$TMP/c.json" -r 1 -f count_a -- ./calls >/dev/null 2>"$TMP/c.err" ||
	{ cat "$TMP/c.err"; fail "calls"; }
grep -q "no traced binary is C++: the exception fix is off" "$TMP/c.err" &&
	! grep -q "C++ exception fix:" "$TMP/c.err" || { cat "$TMP/c.err"; fail "fix on for C"; }
"$PERFGATE" -v record -o "$TMP/c.json" -r 1 --exception-fix -f count_a -- ./calls >/dev/null \
	2>"$TMP/c.err" || { cat "$TMP/c.err"; fail "calls --exception-fix"; }
grep -q "C++ exception fix: .*libperfgate-preload.so" "$TMP/c.err" ||
	{ cat "$TMP/c.err"; fail "--exception-fix did not turn the fix on"; }
echo ok
