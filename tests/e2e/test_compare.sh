# SPDX-License-Identifier: MIT
# The gate on a real program: an A/A comparison of the same binary passes (exit 0; or, with
# nothing judged on a loaded machine, is inconclusive, never a regression); slowing
# one leaf by 100% (PG_SLOW=100) fails (exit 1) and names that leaf and only that leaf; the
# JUnit report validates against the schema, its test cases at their source file and line
# relative to the repository (--repo-root), and the GitLab Code Quality report has one finding,
# the leaf's, at the same place.
source "$(dirname "$0")/lib.sh"
XSD=$PERFGATE_SRCDIR/tests/data/JUnit.xsd
F=(-f leaf_hash -f leaf_mix -f checksum -f main)

# Each run of 10 repetitions is recorded in two shards of 5, the three runs' shards in turn
# (base, same, slow, base, same, slow) and merged: a machine's speed moves between recordings
# (8% and 12% seen on loaded machines, README, "Interleaved A/B"; 60% within a minute on a
# busy one), and taken in turn every run sees both halves of the test's time alike.
for shard in 1 2; do
	"$PERFGATE" record -q -o "$TMP/base$shard.json" -r 5 "${F[@]}" -- ./knob
	"$PERFGATE" record -q -o "$TMP/same$shard.json" -r 5 "${F[@]}" -- ./knob
	PG_SLOW=100 "$PERFGATE" record -q -o "$TMP/slow$shard.json" -r 5 "${F[@]}" -- ./knob
done
for run in base same slow; do
	"$PERFGATE" merge -o "$TMP/$run.json" "$TMP/${run}1.json" "$TMP/${run}2.json" 2>/dev/null
done

# what drift is left between the runs the A/A gate allows, 20%
expect_exit 0 "$PERFGATE" compare "$TMP/base.json" "$TMP/same.json" --junit "$TMP/aa.xml" \
	--json "$TMP/aa.json" --min-effect 20
# a pass, or on a machine so loaded that nothing could be judged, inconclusive: never a
# regression, never a pass without evidence
check_contains "A/A: a PASS or INCONCLUSIVE line" "$TMP/stdout" '^perfgate: \(PASS\|INCONCLUSIVE\)'
xmllint --noout --schema "$XSD" "$TMP/aa.xml"
python3 - "$TMP/aa.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
assert r["overall"] in ("pass", "inconclusive"), r["overall"]
j = r["judged"]
assert (r["overall"] == "pass") == (j["program"] or (j["exact"] + j["sampled"] > 0
                                                    and j["cpu_share"] >= 0.5)), (r["overall"], j)
assert r["counts"]["regressions"] == 0
PY

expect_exit 1 "$PERFGATE" compare "$TMP/base.json" "$TMP/slow.json" --junit "$TMP/ab.xml" \
	--json "$TMP/ab.json" --codequality "$TMP/cq.json" --repo-root "$PERFGATE_SRCDIR"
cat "$TMP/stdout"
check_contains "a REGRESSION line" "$TMP/stdout" '^perfgate: REGRESSION'
xmllint --noout --schema "$XSD" "$TMP/ab.xml"
LEAF_LINE=$(grep -n '^__attribute__((noinline)) unsigned long leaf_hash(' \
	"$PERFGATE_SRCDIR/tests/progs/knob.c" | cut -d: -f1)
python3 - "$TMP/ab.json" "$TMP/ab.xml" "$TMP/cq.json" "$LEAF_LINE" <<'PY'
import json, sys, pgtest
import xml.etree.ElementTree as ET
# the source reports: JUnit's file and line, one Code Quality finding, both relative
suite = ET.parse(sys.argv[2]).getroot()
leaf = [tc for tc in suite.iter("testcase") if tc.get("name") == "leaf_hash"][0]
assert (leaf.get("file"), leaf.get("line")) == ("tests/progs/knob.c", sys.argv[4]), leaf.attrib
cq = json.load(open(sys.argv[3]))
regs = [f for f in cq if f["check_name"] == "perfgate-regression"]
assert len(regs) == 1, cq
assert regs[0]["location"] == {"path": "tests/progs/knob.c",
                               "lines": {"begin": int(sys.argv[4])}}, regs[0]
assert regs[0]["severity"] == "major" and "leaf_hash" in regs[0]["description"], regs[0]
assert all(f["severity"] == "minor" for f in cq if f is not regs[0]), cq
r = pgtest.load(sys.argv[1])
assert r["overall"] == "regression"
reg = pgtest.with_verdict(r, "regression")
assert reg == ["leaf_hash"], reg
# twice the iterations: +100% of its time, within 30 points under and 40 over, or within the
# width of the result's own interval when the runs were noisier than that. Why 100: two
# recordings of 2 reference functions take the machine's speed from the spin and carry the
# priors of their own noise (5%, the factor 1.3: diff/rnull.h) and of what a spin does not
# see (0.113 on the log scale: diff/rspeed.h): a half-width of about 0.32 on the log scale,
# so that a 50% slower leaf_hash (log 0.41) sits near the 5% minimum effect, and at 100% (log
# 0.69) the low end is ~+40%, 8x the minimum
f = pgtest.func(r, "leaf_hash")
w = f["ci_hi"] - f["ci_lo"]
assert 1.00 - max(0.30, w) < f["change"] < 1.00 + max(0.40, w), f
assert f["ci_lo"] > 0.05 and f["q"] <= 0.05, f
suite = ET.parse(sys.argv[2]).getroot()
failed = [tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None
          and tc.get("classname") != "[program]"]
assert failed == ["leaf_hash"], failed
# the whole program got slower with it (a testcase of its own), explained by leaf_hash
prog = pgtest.program(r)
if prog["verdict"] == "regression":
    assert "leaf_hash" in prog["explain"], prog["explain"]
assert int(suite.get("failures")) == len(pgtest.with_verdict(r, "regression")) + \
    sum(1 for g in r["functions"] if g.get("origin") == "program" and g["verdict"] == "regression")
assert int(suite.get("tests")) == len(list(suite.iter("testcase")))
PY

# too few repetitions to decide: inconclusive, not a pass and not a failure
"$PERFGATE" record -q -o "$TMP/b3.json" -r 3 "${F[@]}" -- ./knob
PG_SLOW=25 "$PERFGATE" record -q -o "$TMP/s3.json" -r 3 "${F[@]}" -- ./knob
expect_exit 0 "$PERFGATE" compare "$TMP/b3.json" "$TMP/s3.json"
check_contains "3 vs 3 repetitions must be inconclusive" "$TMP/stdout" 'INCONCLUSIVE'
expect_exit 2 "$PERFGATE" compare --strict "$TMP/b3.json" "$TMP/s3.json"

# two builds of one benchmark in directories with long names: the header lines tell the sides
# apart, each command shortened around where the two differ
D=/work/builds/$(printf 'x%.0s' {1..60})
python3 - "$TMP/base.json" "$TMP/slow.json" "$D" <<'PY'
import json, sys, pgtest
for path, side in zip(sys.argv[1:3], ("base-build", "new-build")):
    r = pgtest.load(path)
    r["meta"]["command"][0] = "%s/%s/knob" % (sys.argv[3], side)
    r["meta"]["command"] += ["--iterations", "1000000", "--size", "4096"]
    json.dump(r, open(path.replace(".json", "-long.json"), "w"))
PY
expect_exit 1 "$PERFGATE" compare "$TMP/base-long.json" "$TMP/slow-long.json"
check_contains "long commands: the base line hides where they differ" "$TMP/stdout" \
	'^  base  \.\.\..*/base-build/knob.* (10 repetitions, commit'
check_contains "long commands: the new line hides where they differ" "$TMP/stdout" \
	'^  new   \.\.\..*/new-build/knob.* (10 repetitions, commit'
check_contains "one regression: '1 function', singular" "$TMP/stdout" \
	'^perfgate: REGRESSION\( of the whole program and\)\? in 1 function: leaf_hash$'

# each run records its environment; compare opens with what differs between the two sides,
# and says nothing when they are the same
python3 - "$TMP/base.json" "$TMP/base-env.json" <<'PY'
import json, sys, pgtest
r = pgtest.load(sys.argv[1])
env = r["meta"]["environment"]
assert "clang" in env["compilers"], env        # knob is built with clang -g
assert env.get("cpu_flags") and env.get("os"), env
r["meta"]["kernel"] = "6.1.0-older"
env["os"] = "Debian GNU/Linux 11 (bullseye)"
env["cpu_flags"] += " pg_test_flag"
json.dump(r, open(sys.argv[2], "w"))
PY
expect_exit 0 "$PERFGATE" compare "$TMP/base.json" "$TMP/same.json" --min-effect 20 \
	--markdown "$TMP/aa.md"
check "A/A: no environment line" not grep -q 'the two sides differ' "$TMP/stdout" "$TMP/aa.md"
"$PERFGATE" compare "$TMP/base-env.json" "$TMP/same.json" --min-effect 20 \
	--markdown "$TMP/env.md" >"$TMP/env.txt" 2>/dev/null || true
check_eq "the environments' differences first" "perfgate: the two sides differ: kernel \
6.1.0-older -> $(uname -r); CPU flags -pg_test_flag; os Debian GNU/Linux 11 (bullseye) -> \
$(. /etc/os-release && echo "$PRETTY_NAME")" "$(head -n 1 "$TMP/env.txt")"
check_contains "the Markdown summary says so after its heading" "$TMP/env.md" \
	'^> :warning: the two sides differ: kernel 6.1.0-older'
