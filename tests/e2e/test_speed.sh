# SPDX-License-Identifier: MIT
# The machine's speed in each pair (diff/speed.h): tests/progs/shared_cpu models a shared
# machine, one process in three 20-50% slower all over. In an ab session with work0 20% slower,
# the comparison corrects each pair for the speed, names work0 only, and its interval for work0
# is narrower than the uncorrected one of the same files (--no-speed-correction); the result
# files say which was done.
#
# The model machine is the same in every run of the test: the processes' speeds follow a fixed
# sequence (SHARED_CPU_SEQ) and the order in each pair a fixed seed, one that puts the slow
# processes on both sides alike (6 pairs slower on NEW, 5 on BASE). Drawn afresh, one session in
# ~30 has its slow processes so much on one side that the whole program moved (p <= 0.05, by
# 2% or more: a simulation of the model), and the correction is rightly not applied.
#
# Every comparison here judges on-CPU time (--metric cpu): the model machine's speed is more
# work per call, which on-CPU time holds alone, while self time also holds the waits for a CPU
# of a busy runner (the real machine's noise, not modelled: on a runner with other jobs beside
# it, processes waited 5x their CPU time and every function read inconclusive). The A/A
# session below measures what noise is left: work0's 20% must stand at least 4x above it.
source "$(dirname "$0")/lib.sh"
cd "$PROGS"
F=(-f work0 -f work1 -f work2 -f work3 -f work4 -f work5)
M=(--metric cpu)
session() { rm -f "$TMP/seq"; SHARED_CPU_SEQ=$TMP/seq "$@"; }

expect_exit 1 session "$PERFGATE" ab -o "$TMP/s" -r 20 --max-reps 20 --seed 3 "${F[@]}" "${M[@]}" \
	--junit "$TMP/s.xml" ./shared_cpu './shared_cpu 20'
cat "$TMP/stdout"
# from six, or the five others where work0's own change shows through the machine's noise
# uncorrected (it changed by itself: no reference then)
check_contains "corrected: the text says so" "$TMP/stdout" \
	"machine speed: each pair corrected for it (a pair's sides differed by .*, from [56] functions)"
check_contains "corrected: JUnit property" "$TMP/s.xml" 'name="speed_correction" value="applied"'
python3 - "$TMP/s/compare.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["speed"]["applied"] is True, r["speed"]
assert r["speed"]["refs"] in (5, 6), r["speed"]
assert r["speed"]["spread"] > 0.02, r["speed"]
assert pgtest.with_verdict(r, "regression") == ["work0"], pgtest.verdicts(r)
f = pgtest.func(r, "work0")
assert 0.10 < f["change"] < 0.30, f["change"]
PY

# the same files without the correction: said so, and work0's interval is wider
expect_exit_any() { "$@" >"$TMP/stdout" 2>"$TMP/stderr" || true; }
expect_exit_any "$PERFGATE" compare "$TMP/s/base.json" "$TMP/s/new.json" --no-speed-correction \
	"${M[@]}" --json "$TMP/raw.json"
check_contains "--no-speed-correction: said so" "$TMP/stdout" \
	'machine speed: not corrected (--no-speed-correction)'
expect_exit 1 "$PERFGATE" compare "$TMP/s/base.json" "$TMP/s/new.json" "${M[@]}" \
	--json "$TMP/cor.json"
python3 - "$TMP/raw.json" "$TMP/cor.json" <<'PY'
import sys, pgtest
raw, cor = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
assert raw["speed"]["applied"] is False and raw["speed"]["refs"] == 0, raw["speed"]
w = [pgtest.func(x, "work0") for x in (raw, cor)]
width = [f["ci_hi"] - f["ci_lo"] for f in w]
print("work0 interval width: %.3f uncorrected, %.3f corrected" % tuple(width))
assert width[1] < width[0], width
PY

# the same program on both sides: nothing flagged, at alpha 0.01 (at the default 0.05, one A/A
# session in 20 or so may flag something by design)
expect_exit 0 session "$PERFGATE" ab -o "$TMP/aa" -r 20 --max-reps 20 --seed 3 --alpha 0.01 \
	"${F[@]}" "${M[@]}" ./shared_cpu ./shared_cpu
python3 - "$TMP/aa/compare.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert not pgtest.with_verdict(r, "regression"), pgtest.verdicts(r)
assert not pgtest.with_verdict(r, "improvement"), pgtest.verdicts(r)
PY
python3 - "$TMP/aa/compare.json" "$TMP/s/compare.json" <<'PY'
import sys, pgtest
aa, s = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
noise = sorted(abs(f["change"]) for f in aa["functions"])[len(aa["functions"]) // 2]
print("A/A: the median corrected change %.1f%%; work0 read %+.1f%%" %
      (100 * noise, 100 * pgtest.func(s, "work0")["change"]))
assert 0.20 > 4 * noise, noise
PY

# Two recordings, the second on a machine 40% slower all over (SHARED_CPU_SLOWER=40): to the
# functions a slower machine and a slower build look alike, so they are corrected for the
# speed between the runs (diff/rspeed.h) and none is flagged. The model's slower machine is
# more work per call, which the reference spin does not see (+0%): the program's CPU time,
# +40% as its functions are, is what a build slower everywhere gives too, and two recordings
# say they cannot tell (inconclusive, drift; the exit status 0 of INCONCLUSIVE).
# work0 60% slower on top of it is found, alone: two recordings are
# compared repetition by repetition (a rank test, no pairs), and the model's processes differ
# by up to 50% within a recording, so at +60% every repetition of work0 lies above every base
# one, far from alpha; at +20% the slow third overlaps and a busy machine's noise decides.
# These comparisons run at alpha 0.01, as the A/A session above: at the default 0.05 one
# A/A comparison in 20 or so may flag a function by design.
REC=("$PERFGATE" record -q -r 15 "${F[@]}")
session "${REC[@]}" -o "$TMP/r-base.json" -- ./shared_cpu
SHARED_CPU_SLOWER=40 session "${REC[@]}" -o "$TMP/r-slow.json" -- ./shared_cpu
SHARED_CPU_SLOWER=40 session "${REC[@]}" -o "$TMP/r-work0.json" -- ./shared_cpu 60
expect_exit 0 "$PERFGATE" compare "$TMP/r-base.json" "$TMP/r-slow.json" "${M[@]}" \
	--alpha 0.01 --json "$TMP/r1.json"
cat "$TMP/stdout"
check_contains "two recordings: the speed between them is said" "$TMP/stdout" \
	"machine speed from [0-9]* reference functions*: the new run's functions corrected for it (+"
expect_exit_any "$PERFGATE" compare "$TMP/r-base.json" "$TMP/r-work0.json" "${M[@]}" \
	--alpha 0.01 --json "$TMP/r2.json"
expect_exit_any "$PERFGATE" compare "$TMP/r-base.json" "$TMP/r-slow.json" \
	--no-speed-correction "${M[@]}" --json "$TMP/r0.json"
python3 - "$TMP/r1.json" "$TMP/r2.json" "$TMP/r0.json" <<'PY'
import sys, pgtest
slow, work0, raw = (pgtest.load(p) for p in sys.argv[1:4])
sp = slow["speed"]
assert sp["between_runs"] and sp["applied"] and sp["refs"] == 6, sp
assert 0.2 < sp["shift"] < 0.65, sp
assert pgtest.with_verdict(slow, "regression") == [], pgtest.verdicts(slow)
assert pgtest.with_verdict(slow, "improvement") == [], pgtest.verdicts(slow)
assert pgtest.program(slow)["verdict"] == "inconclusive", pgtest.program(slow)
assert pgtest.program(slow)["cause"] == "drift", pgtest.program(slow)
assert slow["overall"] == "inconclusive", slow["overall"]
# uncorrected, every function reads the machine's +40%
assert all(pgtest.func(raw, "work%d" % i)["change"] > 0.15 for i in range(6)), raw["functions"]
assert pgtest.with_verdict(work0, "regression") == ["work0"], pgtest.verdicts(work0)
assert 0.4 < pgtest.func(work0, "work0")["change"] < 0.8, pgtest.func(work0, "work0")
PY
