# SPDX-License-Identifier: MIT
# Functions that share a name in one binary, as real programs have them (tests/progs/dupnames:
# a static step() in a.c and b.c, a g++ clone work.constprop.0 in c1.cc and c2.cc): each is
# traced and written as its own function with a scope (its translation unit) that keeps the
# keys unique and stable; report shows "step [a.c]"; compare matches them by scope and names
# only b.c's step when only it gets slower; --functions-of and merge keep them apart.
source "$(dirname "$0")/lib.sh"
F=(-f step -f '_ZL4work*' -f 'run_*')

"$PERFGATE" record -q -o "$TMP/base.json" -r 10 "${F[@]}" -- ./dupnames
python3 - "$TMP/base.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
scopes = sorted((f["name"], f.get("scope")) for f in run["functions"]
                if f["name"] in ("step", "_ZL4workmm.constprop.0"))
assert scopes == [("_ZL4workmm.constprop.0", "c1.cc"), ("_ZL4workmm.constprop.0", "c2.cc"),
                  ("step", "a.c"), ("step", "b.c")], scopes
# names unique in the binary carry no scope
assert all("scope" not in f for f in run["functions"] if f["name"].startswith("run_")), run
# every one was called, 20 times per repetition
for rep in run["repetitions"]:
    byid = {s["id"]: s for s in rep["functions"]}
    for f in run["functions"]:
        if f["name"] == "step":
            assert byid[f["id"]]["calls"] == 20, (f, byid.get(f["id"]))
PY
check "record: scopes" test $? = 0

expect_exit 0 "$PERFGATE" report "$TMP/base.json"
check_contains "report: step [a.c]" "$TMP/stdout" 'step \[a.c\]'
check_contains "report: step [b.c]" "$TMP/stdout" 'step \[b.c\]'
check_contains "report: the C++ clone of c2.cc" "$TMP/stdout" '\[clone .constprop.0\] \[c2.cc\]'

# only b.c's step gets slower (twice the work): compare names it and not a.c's. Recorded as one
# interleaved session (perfgate ab): two recordings one after the other failed here about one
# time in six when the machine ran the whole base recording at half speed (every function
# "improved" by ~50%, b.c's doubled step came out unchanged: drift between the two recordings)
PG_SLOW_B=1 "$PERFGATE" record -q -o "$TMP/slow.json" -r 10 \
	--functions-of "$TMP/base.json" -- ./dupnames
expect_exit 1 "$PERFGATE" ab -q -o "$TMP/ab" -r 10 --max-reps 10 "${F[@]}" \
	'./dupnames 1' './dupnames 1 slow-b'
cp "$TMP/ab/compare.json" "$TMP/cmp.json"
python3 - "$TMP/cmp.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
steps = {f.get("scope"): f for f in r["functions"] if f["name"] == "step"}
assert sorted(steps) == ["a.c", "b.c"], steps
assert steps["b.c"]["verdict"] == "regression", steps["b.c"]
assert steps["a.c"]["verdict"] != "regression", steps["a.c"]
assert steps["b.c"]["display"] == "step [b.c]", steps["b.c"]["display"]
PY
check "compare: b.c's step alone" test $? = 0

# --functions-of traced the same keys; merge keeps the two apart
check_eq "--functions-of: same functions" "$(pgtest names "$TMP/base.json")" \
	"$(pgtest names "$TMP/slow.json")"
expect_exit 0 "$PERFGATE" merge "$TMP/base.json" "$TMP/base.json" -o "$TMP/merged.json"
check_eq "merge: 4 scoped functions" 4 "$(python3 -c 'import sys, pgtest
print(sum(1 for f in pgtest.load(sys.argv[1])["functions"] if "scope" in f))' "$TMP/merged.json")"
