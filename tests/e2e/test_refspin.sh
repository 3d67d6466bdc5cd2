# SPDX-License-Identifier: MIT
# The reference spin (runner/session/spin.h, diff/rspeed.h): two recordings of two traced
# functions have too few reference functions to tell the machine's speed between them, and
# compare takes it from the spins perfgate ran before each repetition. Every run file holds
# one spin per repetition (merge keeps them); the header and compare.json name the spin as the
# source; an A/A pair flags nothing; leaf_hash made 60% slower (knob 60) is the regression, its
# interval holding its change; the same files without their spins (an older perfgate's) say
# the speed is unknown and widen every interval by PG_RSPEED_UNKNOWN.
#
# Margins: the runs compared are shards taken in turn and merged, so that a drift of the
# machine falls on both sides alike. The A/A comparison judges at alpha 0.01 (at 0.05, one
# pair in 20 may flag by design). 60% more work in leaf_hash is 12x the 5% minimum effect, and
# the spins' uncertainty is at least 2% (PG_RSPEED_SPIN_FLOOR): no check depends on this
# machine's speed or on the spin's length, which the test prints only.
source "$(dirname "$0")/lib.sh"
cd "$PROGS"
F=(-f leaf_hash -f leaf_mix)
rec() { "$PERFGATE" record -q -r 5 "${F[@]}" -o "$1" -- ./knob "${@:2}"; }

for i in 1 2; do
	rec "$TMP/a$i.json"
	rec "$TMP/b$i.json"
	rec "$TMP/c$i.json" 60
done
for x in a b c; do
	"$PERFGATE" merge "$TMP/${x}1.json" "$TMP/${x}2.json" -o "$TMP/$x.json" 2>"$TMP/stderr"
done

python3 - "$TMP/a1.json" "$TMP/a.json" <<'PY'
import sys, pgtest
for path, n in ((sys.argv[1], 5), (sys.argv[2], 10)):
    s = pgtest.load(path)["meta"]["reference_spin"]
    assert s["workload"].startswith("mul-add-chain-"), s["workload"]
    assert len(s["wall_ns"]) == len(s["cpu_ns"]) == len(s["runq_ns"]) == n, (path, s)
    assert all(c > 0 and 0 <= q < w for w, c, q in zip(s["wall_ns"], s["cpu_ns"], s["runq_ns"]))
s = pgtest.load(sys.argv[2])["meta"]["reference_spin"]
print("spin on a CPU (ms):", [round((w - q) / 1e6, 2) for w, q in zip(s["wall_ns"], s["runq_ns"])])
PY

# On 2 to 8 CPUs the spin runs on each, and the samples say where the benchmark ran: the
# weighted times are the file's (a rounding of 1 ns). The benchmark keeps every CPU: the
# spin's pinning is undone before it starts (cpus prints its affinity's count).
NCPU=$(nproc)
"$PERFGATE" record -q -r 3 -f ./knob:leaf_hash -o "$TMP/p.json" -- sh -c "nproc > $TMP/nproc; ./knob"
check_eq "the benchmark keeps every CPU" "$NCPU" "$(cat "$TMP/nproc")"
python3 - "$TMP/p.json" "$NCPU" <<'PY'
import sys, pgtest
s, ncpu = pgtest.load(sys.argv[1])["meta"]["reference_spin"], int(sys.argv[2])
if not 2 <= ncpu <= 8:
    assert "cpus" not in s, s
    sys.exit(0)
for i, cpus in enumerate(s["cpus"]):
    assert sorted(c[0] for c in cpus) == list(range(ncpu)), cpus
    n = sum(c[4] for c in cpus)
    assert n > 0, cpus
    want = sum(c[2] * c[4] for c in cpus) / n
    assert abs(s["cpu_ns"][i] - want) <= 1, (s["cpu_ns"][i], want)
print("per-CPU spins (ms, samples):", [[(c[0], round(c[2] / 1e6, 2), c[4]) for c in cpus]
                                       for cpus in s["cpus"]])
PY

# A/A: the spin is the source, and nothing is flagged
expect_exit 0 "$PERFGATE" compare "$TMP/a.json" "$TMP/b.json" --alpha 0.01 --json "$TMP/aa.json"
cat "$TMP/stdout"
check_contains "A/A: the header names the spin" "$TMP/stdout" \
	"machine speed from the reference spin (2 reference functions, 3 needed)"
python3 - "$TMP/aa.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["speed"]["source"] == "spin", r["speed"]
assert r["speed"]["applied"] is False and r["speed"]["spin_se"] >= 0.02, r["speed"]
assert abs(r["speed"]["shift"] - r["speed"]["spin"]) < 1e-12, r["speed"]
for v in ("regression", "improvement"):
    assert not [f for f in pgtest.with_verdict(r, v) if not f.startswith("[")], \
        pgtest.verdicts(r)
PY

# leaf_hash 60% slower: the regression, within its interval; leaf_mix not
expect_exit 1 "$PERFGATE" compare "$TMP/a.json" "$TMP/c.json" --json "$TMP/ac.json"
cat "$TMP/stdout"
check_contains "slower: the header names the spin" "$TMP/stdout" \
	"machine speed from the reference spin"
python3 - "$TMP/ac.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["speed"]["source"] == "spin", r["speed"]
assert "leaf_hash" in pgtest.with_verdict(r, "regression"), pgtest.verdicts(r)
assert "leaf_mix" not in pgtest.with_verdict(r, "regression"), pgtest.verdicts(r)
f = pgtest.func(r, "leaf_hash")
assert f["ci_lo"] <= f["change"] <= f["ci_hi"] and f["ci_lo"] > 0.05, f
PY

# run files without spins (an older perfgate's): the speed is unknown, every interval wider
python3 - "$TMP/a.json" "$TMP/c.json" "$TMP/a0.json" "$TMP/c0.json" <<'PY'
import json, sys
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    with open(src) as f:
        d = json.load(f)
    del d["meta"]["reference_spin"]
    with open(dst, "w") as f:
        json.dump(d, f)
PY
"$PERFGATE" compare "$TMP/a0.json" "$TMP/c0.json" --json "$TMP/old.json" \
	>"$TMP/stdout" 2>"$TMP/stderr" || true
check_contains "no spins: the header says unknown" "$TMP/stdout" \
	"machine speed unknown (2 reference functions, 3 needed, and no reference spin"
python3 - "$TMP/old.json" "$TMP/ac.json" <<'PY'
import math, sys, pgtest
old, new = pgtest.load(sys.argv[1]), pgtest.load(sys.argv[2])
assert old["speed"]["source"] == "unknown" and old["speed"]["spin"] is None, old["speed"]
for name in ("leaf_hash", "leaf_mix"):
    f = pgtest.func(old, name)
    # each side at least 1.96 * hypot(PG_RSPEED_UNKNOWN, PG_RSPEED_SPIN_BLIND) = 1.96 *
    # hypot(0.093, 0.113) = 0.287 on the log scale, less rounding: an unknown speed is
    # never narrower than a spin's known one with what it does not see
    lo = math.log1p(f["change"]) - math.log1p(f["ci_lo"])
    hi = math.log1p(f["ci_hi"]) - math.log1p(f["change"])
    assert lo > 0.28 and hi > 0.28, (name, f)
PY
