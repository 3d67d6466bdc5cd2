# SPDX-License-Identifier: MIT
# Thousands of functions attach through one uprobe_multi link per binary, count exactly, and
# leave no probe behind when perfgate exits.
source "$(dirname "$0")/lib.sh"
python3 - "$TMP/many.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("volatile unsigned long sink;\n")
    for i in range(3000):
        f.write("__attribute__((noinline)) void fn_%d(void) { sink += %d; }\n" % (i, i))
    f.write("int main(void) {\n")
    for i in range(0, 3000, 3):
        f.write(" fn_%d();\n" % i)
    f.write(" return 0;\n}\n")
PY
cc -O1 -o "$TMP/many" "$TMP/many.c"
before=$(bpftool link show 2>/dev/null | grep -c uprobe || true)
"$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 2 --max-funcs 5000 -- "$TMP/many"
python3 - "$TMP/run.json" <<'PY'
import sys, pgtest
run = pgtest.load(sys.argv[1])
assert len(run["functions"]) == 3001, len(run["functions"])
for rep in pgtest.reps(run):
    names = {name: x["calls"] for name, x in rep.items()}
    assert len(names) == 1001, len(names)  # 1000 fn_ plus main
    assert all(c == 1 for c in names.values())
    assert "fn_3" in names and "fn_4" not in names
PY
after=$(bpftool link show 2>/dev/null | grep -c uprobe || true)
check_eq "uprobe links left behind: $before before, $after after" "$after" "$before"
# the default cap keeps a huge selection in check, with a message
"$PERFGATE" record --all-functions -o "$TMP/cap.json" -r 1 --max-funcs 100 -- "$TMP/many" 2>"$TMP/err"
check_contains "a message about the cap" "$TMP/err" "tracing the first 100"
# --max-funcs caps the default selection only: with -f it is ignored, and says so
"$PERFGATE" record -o "$TMP/capf.json" -r 1 --max-funcs 10 -f 'fn_1*' -- "$TMP/many" 2>"$TMP/err"
check_contains "a warning that -f overrides --max-funcs" "$TMP/err" "--max-funcs is ignored"
check "--max-funcs did not cap an -f selection" test "$(pgtest names "$TMP/capf.json" | wc -l)" -gt 10
