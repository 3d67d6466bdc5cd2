# SPDX-License-Identifier: MIT
# Off-CPU stacks (docs/sampling.md, "Off-CPU stacks"): a function that sleeps 20 ms a call
# (tests/progs/offstack) blocks under main;...;sleeper in the kernel's sleep path, about 20 ms
# a call in every repetition; threads handing a token through a mutex and a condition
# variable block in futex waits under handoff, in both threads; the run file holds them per
# repetition (sorted, unique, counts >= 1), `perfgate folded --offcpu` adds them up and
# `perfgate merge` keeps them;
# they are opt-in (--offcpu-stacks: the default and --no-offcpu record none); `perfgate flamegraph --offcpu` draws off-CPU time, and the
# differential flame graph of two runs (`flamegraph BASE NEW`) works for either kind; `pprof
# --offcpu` writes offcpu/nanoseconds. Bad input: one clear message, exit 2.
source "$(dirname "$0")/lib.sh"

REC=("$PERFGATE" record -q -r 5 -F 999 --offcpu-stacks -f main -f sleeper -f handoff)
"${REC[@]}" -o "$TMP/base.json" -- ./offstack 5 3000
"${REC[@]}" -o "$TMP/new.json" -- ./offstack 5

# the run file: off-CPU stacks per repetition, sleeper's ~20 ms a call in each
check "off-CPU stacks of sleeper, per repetition" python3 - "$TMP/base.json" <<'PY'
import re, sys, pgtest
run = pgtest.load(sys.argv[1])
calls = [rep["sleeper"]["calls"] for rep in pgtest.reps(run)]
assert calls == [5] * 5, calls
sleep = re.compile(r"(^|;)main;(.*;)?sleeper;.*;(schedule|__schedule|do_nanosleep|"
                   r"hrtimer_nanosleep|common_nsleep) \[k\]$")
for r, rep in enumerate(run["repetitions"]):
    stacks = rep.get("offcpu_stacks")
    assert stacks, "repetition %d has no off-CPU stacks" % (r + 1)
    names = [s for s, _ in stacks]
    assert names == sorted(set(names)), "not sorted and unique"
    assert all(n >= 1 for _, n in stacks)
    ns = sum(n for s, n in stacks if sleep.search(s))
    other = [s for s, _ in stacks if ";sleeper;" in s and not sleep.search(s)]
    assert not other, other
    # 5 calls of a 20 ms sleep: at least the sleep, at most twice it (a loaded machine)
    assert 5 * 19.5e6 <= ns <= 5 * 40e6, "repetition %d: sleeper blocked %d ns" % (r + 1, ns)
    print("repetition %d: sleeper blocked %.2f ms a call" % (r + 1, ns / 5 / 1e6))
PY

# who woke them (docs/sampling.md, "Wakers"): sleeper's timer fires in an interrupt (or, on a
# kernel that runs timers in a thread, a kernel thread); handoff's futex waits are woken by the
# other thread of the process, in its system call. Intervals whose wakeup was not seen have no
# waker: the checks are on the wakers recorded, and that some are.
check "the wakers of sleeper and handoff" python3 - "$TMP/base.json" <<'PY'
import sys, pgtest
kinds = {}
for rep in pgtest.load(sys.argv[1])["repetitions"]:
    stacks = rep["offcpu_stacks"]
    for i, kind, comm, ns in rep.get("offcpu_wakers", []):
        for fn in ("sleeper", "handoff"):
            if ";%s;" % fn in stacks[i][0]:
                kinds.setdefault(fn, set()).add((kind, comm))
assert kinds.get("sleeper") and kinds["sleeper"] <= {("irq", ""), ("kernel", "")}, kinds
assert kinds.get("handoff") == {("same", "offstack")}, kinds
PY

# folded --offcpu: the stacks of all repetitions added up, in ns
"$PERFGATE" folded "$TMP/base.json" --offcpu -o "$TMP/base.folded"
check "folded --offcpu adds up the repetitions" python3 - "$TMP/base.folded" "$TMP/base.json" <<'PY'
import sys, pgtest
got = {}
for line in open(sys.argv[1]):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    assert stack not in got and int(n) >= 1, line
    got[stack] = int(n)
want = {}
for rep in pgtest.load(sys.argv[2])["repetitions"]:
    for s, n in rep["offcpu_stacks"]:
        want[s] = want.get(s, 0) + n
assert got == want
PY
check_contains "sleeper's stack ends in the sleep path" "$TMP/base.folded" \
	';main;\(.*;\)\?sleeper;.*nanosleep \[k\] [0-9]*$'
# both threads of the hand-off wait in futex_wait under handoff
check_contains "main's hand-off waits" "$TMP/base.folded" ';main;handoff;.*futex.* \[k\] [0-9]*$'
check_contains "the other thread's hand-off waits" "$TMP/base.folded" \
	'start_thread;other;handoff;.*futex.* \[k\] [0-9]*$'
"$PERFGATE" folded "$TMP/base.json" --offcpu --rep 2 -o "$TMP/rep2.folded"
check "--rep 2 is repetition 2" python3 - "$TMP/rep2.folded" "$TMP/base.json" <<'PY'
import sys, pgtest
got = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1])}
assert got == dict(pgtest.load(sys.argv[2])["repetitions"][1]["offcpu_stacks"])
PY

# perfgate merge keeps each repetition's off-CPU stacks
"$PERFGATE" merge "$TMP/base.json" "$TMP/base.json" -o "$TMP/merged.json" 2>/dev/null
check "merge keeps the off-CPU stacks" python3 - "$TMP/merged.json" "$TMP/base.json" \
	"$TMP/base.json" <<'PY'
import sys, pgtest
got = [r.get("offcpu_stacks") for r in pgtest.load(sys.argv[1])["repetitions"]]
want = [r.get("offcpu_stacks") for p in sys.argv[2:] for r in pgtest.load(p)["repetitions"]]
assert got == want and all(got)
PY

# --no-offcpu: none; asking for them is one clear error
"$PERFGATE" record -q -r 1 -F 999 -f main --offcpu-stacks --no-offcpu -o "$TMP/off.json" \
	-- ./offstack 2
check "--no-offcpu records no off-CPU stacks" python3 -c '
import sys, pgtest
assert all("offcpu_stacks" not in r for r in pgtest.load(sys.argv[1])["repetitions"])' \
	"$TMP/off.json"
"$PERFGATE" record -q -r 1 -F 999 -f main -o "$TMP/default.json" -- ./offstack 2
check "off-CPU stacks are opt-in: the default records none" python3 -c '
import sys, pgtest
run = pgtest.load(sys.argv[1])
assert run["meta"]["options"].get("offcpu") is True, run["meta"]["options"]
assert all("offcpu_stacks" not in r for r in run["repetitions"])' "$TMP/default.json"
expect_exit 2 "$PERFGATE" folded "$TMP/default.json" --offcpu
has "record with --offcpu-stacks"
for cmd in folded "flamegraph -o $TMP/x.svg" "pprof -o $TMP/x.pb.gz"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$PERFGATE" $cmd "$TMP/off.json" --offcpu
	has "has no off-CPU stacks"
	check_eq "one line on stderr ($cmd)" 1 "$(wc -l <"$TMP/stderr")"
done
check "no SVG for a run without off-CPU stacks" test ! -e "$TMP/x.svg"
"$PERFGATE" record -q -r 1 --no-sample -f main -o "$TMP/nosample.json" -- ./offstack 1
expect_exit 2 "$PERFGATE" folded "$TMP/nosample.json" --offcpu
has "with --no-sample"

# flame graphs: off-CPU time in the header and tooltips
"$PERFGATE" flamegraph "$TMP/base.json" --offcpu -o "$TMP/off.svg"
check "an SVG" xmllint --noout "$TMP/off.svg"
check_contains "title says off-CPU" "$TMP/off.svg" '>off-CPU time: .*offstack 5 3000<'
check_contains "header says off-CPU time" "$TMP/off.svg" \
	'Off-CPU time: [0-9.]* s blocked in 5 repetitions'
check_contains "tooltips in time" "$TMP/off.svg" '^[0-9.]* ms off-CPU ([0-9.]*% of the off-CPU'
check_contains "sleeper is drawn" "$TMP/off.svg" '<title>sleeper'
"$PERFGATE" flamegraph "$TMP/base.json" -o "$TMP/cpu.svg"
check "the CPU flame graph speaks of samples" not grep -q "off-CPU" "$TMP/cpu.svg"

# differential: the sleep's share of the off-CPU time grows without the hand-off
"$PERFGATE" flamegraph "$TMP/base.json" "$TMP/new.json" --offcpu -o "$TMP/diff.svg"
check "a differential SVG" xmllint --noout "$TMP/diff.svg"
check_contains "differential off-CPU header" "$TMP/diff.svg" 'Differential off-CPU flame graph'
check "the sleep path's self share grew" python3 - "$TMP/diff.svg" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
tips = [t for t in re.findall(r"<title>([^<]*nanosleep \[k\]\n[^<]*)</title>", svg)
        if "self share" in t and ": GREW" in t]
assert tips, re.findall(r"<title>([^<]*nanosleep[^<]*)</title>", svg)
PY
"$PERFGATE" flamegraph "$TMP/base.json" "$TMP/base.json" -o "$TMP/cpudiff.svg"
check_contains "the CPU kind works too" "$TMP/cpudiff.svg" 'Differential flame graph. Widths'
expect_exit 2 "$PERFGATE" flamegraph "$TMP/base.json" "$TMP/off.json" --offcpu -o "$TMP/y.svg"
has "off.json has no off-CPU stacks"
expect_exit 2 "$PERFGATE" folded "$TMP/base.json" "$TMP/new.json" --offcpu
has "expected one run file"

# pprof --offcpu: one sample type, offcpu/nanoseconds, the folded total
"$PERFGATE" pprof "$TMP/base.json" --offcpu -o "$TMP/off.pb.gz"
if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS= GOPROXY=off \
		GOTOOLCHAIN=local PPROF_TMPDIR=$TMP
	go tool pprof -raw "$TMP/off.pb.gz" >"$TMP/raw" 2>"$TMP/raw.err" ||
		{ cat "$TMP/raw.err" >&2; fail "go tool pprof -raw failed"; }
	check_contains "period type offcpu/nanoseconds" "$TMP/raw" '^PeriodType: offcpu nanoseconds'
	check "pprof values = folded --offcpu" python3 - "$TMP/raw" "$TMP/base.folded" <<'PY'
import re, sys
vals = [int(m.group(1)) for m in (re.match(r"\s+(\d+): [\d ]+$", l) for l in open(sys.argv[1]))
        if m]
want = [int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2])]
assert sorted(vals) == sorted(want), (len(vals), len(want))
PY
fi
