# SPDX-License-Identifier: MIT
# valgrind memcheck on the user-space paths: report (every format), compare with every writer
# (table, JUnit, JSON, Markdown, flame graph), merge and vote, also of a Google Benchmark
# program's runs, and their error paths (corrupt, truncated and missing files). No invalid
# access, no use of uninitialised memory, no leak.
# (record is covered by `make check SANITIZE=1`: valgrind does not model the bpf() syscall
# and uprobes do not fire in code that valgrind translates.)
source "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || fail "valgrind is not installed (make deps)"
P=$PERFGATE
if [ "${PERFGATE_BUILD:-}" = build-asan ] || nm "$P" 2>/dev/null | grep -q __asan_init; then
	echo "skipped: $P is built with ASan (make test SANITIZE=1), which valgrind cannot run"
	exit 0
fi
vg() { # expected-exit-codes (0, 0|1, ...) perfgate-args...
	local want=$1 got=0
	shift
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --track-origins=yes \
		"$P" "$@" >"$TMP/stdout" 2>"$TMP/stderr" || got=$?
	if ! [[ $got =~ ^($want)$ ]]; then
		cat "$TMP/stderr" >&2
		fail "valgrind perfgate $*: exit $got, expected $want"
	fi
}

# runs with and without a sampled profile, and a slower one
"$P" record -q --no-sample -o "$TMP/a.json" -r 3 -- ./knob 2>/dev/null
PG_SLOW=40 "$P" record -q --no-sample -o "$TMP/b.json" -r 3 -- ./knob 2>/dev/null
"$P" record -q -F 999 -o "$TMP/sa.json" -r 2 -- ./nested 2>/dev/null
"$P" record -q -F 999 -o "$TMP/sb.json" -r 2 -- ./nested 2>/dev/null

for fmt in text csv json; do
	vg 0 report "$TMP/a.json" --format "$fmt"
	vg 0 report "$TMP/sa.json" --format "$fmt"
done
vg '0|1' compare "$TMP/a.json" "$TMP/b.json" --all --junit "$TMP/j.xml" --json "$TMP/c.json" \
	--markdown "$TMP/c.md"
vg '0|1' compare "$TMP/sa.json" "$TMP/sb.json" --metric total --flamegraph "$TMP/f.svg" \
	--json "$TMP/s.json"
python3 - "$TMP/sa.json" "$TMP/s.json" <<'PY'
import sys, pgtest
# the runs keep inclusive samples by object, and compare names each sampled function's
assert any(r.get("incl_samples") for r in pgtest.load(sys.argv[1])["repetitions"])
fs = [f for f in pgtest.load(sys.argv[2])["functions"] if f.get("origin") == "sampled"]
assert all(f["binary"] for f in fs), [(f["name"], f["binary"]) for f in fs]
PY
check "--metric total: sampled functions in their objects" test $? = 0
vg 0 merge "$TMP/a.json" "$TMP/a.json" -o "$TMP/m.json"
vg '0|1' vote "$TMP/s.json" --system gerrit -o "$TMP/vote.json"

# error paths release what they allocated
head -c 700 "$TMP/a.json" >"$TMP/cut.json"
# a negative number in the second row of the first repetition's statistics (version 3)
sed 's/;/;-/' "$TMP/a.json" >"$TMP/neg.json"
vg 2 report "$TMP/cut.json"
vg 2 report "$TMP/neg.json"
vg 2 report "$TMP/missing.json"
vg 2 compare "$TMP/a.json" "$TMP/neg.json" --junit "$TMP/j2.xml"
vg 2 compare "$TMP/a.json" "$TMP/sa.json"
# Google Benchmark's figures (docs/gbench.md): read, reported, compared, merged
BENCHMARK_MIN_TIME=0.01 "$P" record -q --no-sample -f leaf_mix -o "$TMP/ga.json" -r 3 -- ./gbench \
	2>/dev/null
BENCHMARK_MIN_TIME=0.01 "$P" record -q --no-sample -f leaf_mix -o "$TMP/gb.json" -r 3 -- ./gbench \
	--benchmark_filter=BM_mix 2>/dev/null
vg 0 report "$TMP/ga.json"
vg '0|1' compare "$TMP/ga.json" "$TMP/gb.json" --all --junit "$TMP/gj.xml" --json "$TMP/gc.json" \
	--markdown "$TMP/gc.md"
vg 0 merge "$TMP/ga.json" "$TMP/ga.json" -o "$TMP/gm.json"
vg 2 merge "$TMP/a.json" "$TMP/sa.json" -o "$TMP/m2.json"
for f in "$PERFGATE_SRCDIR"/tests/fuzz/regressions/runfile/*; do
	vg 2 report "$f"
done
echo ok
