# SPDX-License-Identifier: MIT
# Two recordings judged against their own noise (diff/rnull.h): tests/progs/own_noise's twelve
# functions each move between recordings on their own (OWN_NOISE_SEED draws each one's factor
# within +-8%, the same in every repetition of a recording, so the rank test over one
# recording's repetitions cannot see it). Comparisons judge on-CPU time (--metric cpu): the
# model is work per call, and a busy runner's waits for a CPU are not.
#
# Margins: the seeds' draws differ by at most 7.5% between the two recordings (work3 +5.1%,
# work2 -6.0%, work5 -6.7%); against the null the comparison estimates from them (+-3.7% here,
# at its 95% bound), the smallest q of the A/A was 0.32, 6x alpha. work0 60% slower is 16x
# that spread: its q was 1.5e-4.
source "$(dirname "$0")/lib.sh"
REC=("$PERFGATE" record -q -r 10 -f 'work*')
OWN_NOISE_SEED=1 "${REC[@]}" -o "$TMP/a.json" -- ./own_noise
OWN_NOISE_SEED=2 "${REC[@]}" -o "$TMP/b.json" -- ./own_noise
OWN_NOISE_SEED=2 "${REC[@]}" -o "$TMP/c.json" -- ./own_noise 60

# A/A, the functions apart by their own noise: nothing flagged, the noise said and kept
expect_exit 0 "$PERFGATE" compare "$TMP/a.json" "$TMP/b.json" --metric cpu --all \
	--json "$TMP/aa.json"
check_contains "the own noise is said" "$TMP/stdout" \
	"own noise: a function varies +-[0-9.]*% between the two recordings on its own"
check_contains "an inconclusive function says why" "$TMP/stdout" \
	"within the recordings' own noise (+-[0-9.]*%)"
python3 - "$TMP/aa.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert not pgtest.with_verdict(r, "regression"), pgtest.verdicts(r)
assert not pgtest.with_verdict(r, "improvement"), pgtest.verdicts(r)
# the null's spread: a fraction of the +-8% each function may move by, at its upper bound
assert 0.01 < r["speed"]["spread"] < 0.16, r["speed"]
assert r["speed"]["refs"] == 12, r["speed"]
PY

# work0 60% slower on top: found, alone
expect_exit 1 "$PERFGATE" compare "$TMP/a.json" "$TMP/c.json" --metric cpu --json "$TMP/w0.json"
check_eq "work0 found alone" work0 "$(pgtest verdicts "$TMP/w0.json" regression)"
check_eq "no improvement" "" "$(pgtest verdicts "$TMP/w0.json" improvement)"

# six functions: too few to estimate the null, which is said, and nothing is widened
R6=("$PERFGATE" record -q -r 10 -f work0 -f work1 -f work2 -f work3 -f work4 -f work5)
OWN_NOISE_SEED=1 "${R6[@]}" -o "$TMP/a6.json" -- ./own_noise
OWN_NOISE_SEED=1 "${R6[@]}" -o "$TMP/b6.json" -- ./own_noise
expect_exit 0 "$PERFGATE" compare "$TMP/a6.json" "$TMP/b6.json" --metric cpu --alpha 0.01
check_contains "too few functions: said" "$TMP/stdout" \
	"own noise: not estimated (6 functions, 8 needed)"
