# SPDX-License-Identifier: MIT
# Self versus total on nested calls, and recursion: every nanosecond of main's total is some
# traced function's self time, so the self times add up to main's total exactly.
source "$(dirname "$0")/lib.sh"
"$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 3 -- ./nested
calls "$TMP/run.json" >"$TMP/actual"
cat >"$TMP/expected" <<'OUT'
fib 1973
inner 50
main 1
outer 50
spin 100
OUT
expect_same "$TMP/expected" "$TMP/actual"
python3 - "$TMP/run.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
for rep, s in zip(run["repetitions"], pgtest.reps(run)):
    assert s["spin"]["self_ns"] == s["spin"]["total_ns"], "a leaf's self time is its total"
    for f in ("inner", "outer", "main", "fib"):
        assert s[f]["self_ns"] < s[f]["total_ns"], f + ": self must be below total"
    total_self = sum(x["self_ns"] for x in rep["functions"])
    assert total_self == s["main"]["total_ns"], (total_self, s["main"]["total_ns"])
    # outer spins 40000 and calls inner, which spins 20000: about 3x. The fastest calls are
    # compared, which preemption by other load on the machine cannot inflate.
    ratio = s["outer"]["min_ns"] / s["inner"]["min_ns"]
    assert 1.5 < ratio < 6, ratio
    for x in rep["functions"]:
        assert sum(c for _, c in x["hist"]) == x["calls"]
        assert x["min_ns"] <= x["total_ns"] / x["calls"] <= x["max_ns"]
print("ok")
PY
