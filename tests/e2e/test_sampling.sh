# SPDX-License-Identifier: MIT
# Sampled profiles (perfgate record -F): known call chains come out of the unwinder whether the
# code has frame pointers or not, through Debian's libc (built without them: DWARF only), in a
# shared library, with inlined functions as frames, deeper than the stack snapshot (frame
# pointers continue; without them the samples count as truncated), in a second thread and
# across fork+exec; kernel frames are marked [k]; `perfgate folded` parses back and adds up to
# the run's sample counts; without -F the default flow samples a short benchmark faster than
# 199 Hz and records the rate it says; --no-sample records no profile.
source "$(dirname "$0")/lib.sh"

# stacks_of RUN.json: parse `perfgate folded` back, check it against the run file, print every
# stack with its share of the samples ("0.973 _start;...;main;a;b;c"), largest first
stacks_of() {
	"$PERFGATE" folded "$1" >"$TMP/folded"
	python3 - "$TMP/folded" "$1" <<'PY'
import sys, pgtest
stacks = {}
for line in open(sys.argv[1]):
    assert line.endswith("\n"), line
    frames, sep, count = line[:-1].rpartition(" ")
    assert sep and count.isdigit() and int(count) >= 1, line
    assert frames and all(f for f in frames.split(";")), line
    assert frames not in stacks, "repeated stack: " + frames
    stacks[frames] = int(count)
run = pgtest.load(sys.argv[2])
assert run["meta"]["options"]["sample_hz"] > 0
total = 0
for rep in run["repetitions"]:
    kept = sum(n for _, n in rep["stacks"])
    assert [s for s, _ in rep["stacks"]] == sorted(s for s, _ in rep["stacks"])
    assert kept == rep["samples"] - rep["samples_lost"], rep
    assert rep["samples_lost"] == 0 and rep["samples_truncated"] <= kept // 20, rep
    total += kept
assert sum(stacks.values()) == total > 0, (sum(stacks.values()), total)
for s, n in sorted(stacks.items(), key=lambda kv: -kv[1]):
    print("%.3f %s" % (n / total, s))
PY
}

# share PATTERN: the share of samples whose stack matches the extended regex PATTERN
share() {
	python3 -c '
import re, sys
print("%.3f" % sum(float(l.split(" ", 1)[0]) for l in open(sys.argv[1])
                   if re.search(sys.argv[2], l.rstrip("\n").split(" ", 1)[1])))' "$TMP/stacks" "$1"
}

expect_share() { # PATTERN MIN
	local got
	got=$(share "$1")
	python3 -c "import sys; sys.exit(0 if $got >= $2 else 1)" ||
		{ head -5 "$TMP/stacks" >&2; fail "only $got of the samples match '$1' (want $2)"; }
}

REC=("$PERFGATE" record -q -r 2 -F 999 -f main)
ROOT='_start;__libc_start_main;__libc_start_call_main'	# the root of main's stacks, via libc

# main -> a -> b -> c, with and without frame pointers
for prog in sample_chain sample_chain_nofp; do
	"${REC[@]}" -o "$TMP/$prog.json" -- ./$prog 60000000
	stacks_of "$TMP/$prog.json" >"$TMP/stacks"
	expect_share '(^|;)main;a;b;c$' 0.8
	expect_share "^$ROOT;main;a;b;c\$" 0.8
	# the per-repetition view: each repetition on its own
	"$PERFGATE" folded "$TMP/$prog.json" --rep 2 | grep -q ';main;a;b;c ' ||
		fail "--rep 2 lacks the stack"
done

# through libc's qsort (no frame pointers in Debian's libc) into the callback
for prog in sample_chain sample_chain_nofp; do
	"${REC[@]}" -o "$TMP/q.json" -- ./$prog qsort 60000000
	stacks_of "$TMP/q.json" >"$TMP/stacks"
	expect_share "^$ROOT;main;sort_all;qsort_r;(msort_with_tmp[^;]*;)+cmp\$" 0.8
done

# a frame in a shared library
"${REC[@]}" -o "$TMP/lib.json" -- ./uses_lib_spin 60000000
stacks_of "$TMP/lib.json" >"$TMP/stacks"
expect_share ';main;call_lib;pgtest_lib_spin$' 0.8
python3 - "$TMP/lib.json" <<'PY'
import sys, pgtest
src = {f: (file, line) for f, file, line in pgtest.load(sys.argv[1])["frame_sources"]}
assert src["pgtest_lib_spin"][0].endswith("pgtest.c"), src["pgtest_lib_spin"]
assert src["call_lib"][0].endswith("uses_lib_spin.c") and src["call_lib"][1] > 0
PY

# inlined code: the function it was inlined into, then the inlined function, as two frames,
# the inlined one marked; the own samples are the function's whose code holds them
"${REC[@]}" -o "$TMP/inl.json" -- ./sample_chain inline 60000000
stacks_of "$TMP/inl.json" >"$TMP/stacks"
expect_share ';main;outer;inl_spin \[i\]$' 0.8
python3 - "$TMP/inl.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
own = {}
for rep in run["repetitions"]:
    for o, e, f, n in rep["own_samples"]:
        own[f] = own.get(f, 0) + n
assert max(own, key=own.get) == "outer", own
assert not any(f.startswith("inl_spin") for f in own), own
PY
check "inlined code: own samples are outer's" test $? = 0

# a stack deeper than the 16 KiB snapshot: with frame pointers the unwinding goes on through
# them (all 48 frames of deep() and main); without, it stops and the samples are counted as
# truncated, kept with the frames unwound
for prog in sample_chain sample_chain_nofp; do
	"${REC[@]}" -o "$TMP/deep-$prog.json" -- ./$prog deep 60000000
done
python3 - "$TMP/deep-sample_chain.json" "$TMP/deep-sample_chain_nofp.json" <<'PY'
import sys, pgtest
for path, fp in zip(sys.argv[1:], (True, False)):
    reps = pgtest.load(path)["repetitions"]
    total = sum(n for r in reps for _, n in r["stacks"])
    trunc = sum(r["samples_truncated"] for r in reps)
    assert total == sum(r["samples"] - r["samples_lost"] for r in reps)
    leaf = sum(n for r in reps for s, n in r["stacks"] if s.endswith(";deep;c"))
    assert leaf >= 0.8 * total, (path, leaf, total)
    if fp:
        full = sum(n for r in reps for s, n in r["stacks"]
                   if ";main;" + "deep;" * 48 + "c" in s)
        assert full >= 0.8 * total and trunc <= total // 20, (full, trunc, total)
    else:
        assert trunc >= 0.8 * total, (trunc, total)
PY

# a second thread
"${REC[@]}" -o "$TMP/thr.json" -- ./sample_chain_nofp thread 60000000
stacks_of "$TMP/thr.json" >"$TMP/stacks"
expect_share ';start_thread;worker;a;b;c$' 0.8

# time in the kernel: kernel frames marked [k], under the user stack
"${REC[@]}" -o "$TMP/sys.json" -- ./sample_chain sys 600000
stacks_of "$TMP/sys.json" >"$TMP/stacks"
expect_share ';main;sys_loop;__write;entry_SYSCALL_64[^;]* \[k\];.* \[k\]$' 0.3

# fork + exec: a shell running two programs, one after the other
"$PERFGATE" record -q -r 1 -F 999 -f ./sample_chain:main -o "$TMP/tree.json" -- \
	sh -c './sample_chain 60000000; ./sample_chain_nofp qsort 60000000'
stacks_of "$TMP/tree.json" >"$TMP/stacks"
expect_share ';main;a;b;c$' 0.15
expect_share ';main;sort_all;qsort_r;.*;cmp$' 0.15
expect_share ';main;(a;b;c|sort_all;qsort_r;.*;cmp)$' 0.8

# compare --metric total names every sampled function's object: two programs of one tree
# share the names of their chain (_start, main, a, b, c) and libc, and each stays two functions
# (libc's named with the program of its process); main, traced in sample_chain only, is
# sampled in sample_chain_nofp. 300M iterations give ~250 samples a program here, 25 times
# the 10 a repetition a sampled function needs to be judged (PG_SAMPLED_MIN_SAMPLES).
"$PERFGATE" record -q -r 1 -F 999 -f ./sample_chain:main -o "$TMP/two.json" -- \
	sh -c './sample_chain 300000000; ./sample_chain_nofp 300000000'
expect_exit 0 "$PERFGATE" compare "$TMP/two.json" "$TMP/two.json" --metric total \
	--json "$TMP/two-c.json"
python3 - "$TMP/two-c.json" <<'PY'
import sys, pgtest
fs = [f for f in pgtest.load(sys.argv[1])["functions"] if f.get("origin") == "sampled"]
assert fs and all(f["binary"] for f in fs), [(f["name"], f["binary"]) for f in fs]
got = {(f["name"], f["binary"]) for f in fs}
for prog in ("sample_chain", "sample_chain_nofp"):
    for name in ("_start", "a", "b", "c"):
        assert (name, prog) in got, (name, prog, sorted(got))
    assert ("__libc_start_main", "libc.so.6 (%s)" % prog) in got, (prog, sorted(got))
assert ("main", "sample_chain_nofp") in got and ("main", "sample_chain") not in got, got
PY
check "--metric total: every sampled function in its object" test $? = 0

# no -F, under the default budget: the rate follows the length of the sampled first pass (a
# short benchmark is sampled faster than the 199 Hz default), said in one line and recorded
"$PERFGATE" record -r 1 -o "$TMP/auto.json" -- ./sample_chain 60000000 2>"$TMP/auto.err"
check_contains "the chosen rate is said" "$TMP/auto.err" \
	'--budget: sampling at [0-9]* Hz: ~[0-9]* samples a repetition'
hz=$(sed -n 's/.*--budget: sampling at \([0-9]*\) Hz.*/\1/p' "$TMP/auto.err")
check_eq "meta.sample_hz is the rate said" "$hz" \
	"$(pgtest get "$TMP/auto.json" meta.options.sample_hz)"
check "a short benchmark is sampled faster than 199 Hz" test "${hz:-0}" -gt 199
# -F: the user's rate stands; -f (no budget, no sampled pass): the default, 199 Hz
"$PERFGATE" record -r 1 -F 99 -o "$TMP/f99.json" -- ./sample_chain 60000000 2>"$TMP/f99.err"
check "-F: no rate chosen" not grep -q 'sampling at' "$TMP/f99.err"
check_eq "-F stands" 99 "$(pgtest get "$TMP/f99.json" meta.options.sample_hz)"
"$PERFGATE" record -q -r 1 -f main -o "$TMP/f.json" -- ./sample_chain 60000000
check_eq "-f: the default rate" 199 "$(pgtest get "$TMP/f.json" meta.options.sample_hz)"

# --no-sample: today's exact tracing only, and no profile to show
"$PERFGATE" record -q -r 1 --no-sample -f main -o "$TMP/none.json" -- ./sample_chain 1000000
python3 - "$TMP/none.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
assert "sample_hz" not in run["meta"]["options"] and "frame_sources" not in run
assert all("stacks" not in r and "samples" not in r for r in run["repetitions"])
PY
expect_exit 2 "$PERFGATE" folded "$TMP/none.json"
check_contains "a message for a run without stacks" "$TMP/stderr" 'no sampled stacks'
expect_exit 2 "$PERFGATE" record -q -F 0 -o "$TMP/x.json" -- ./sample_chain 1
expect_exit 2 "$PERFGATE" folded "$TMP/sample_chain.json" --rep 3
