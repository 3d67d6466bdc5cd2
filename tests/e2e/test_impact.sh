# SPDX-License-Identifier: MIT
# Verdicts that matter to the program: once_small (tests/progs/negligible.c, ~20 us
# once a run) made three times as slow (PG_SLOW_SMALL=1) is a real, significant +200%, but
# ~40 us of a ~200 ms repetition: compare reports it as notable and passes (exit 0), in the
# table, the JSON result, the JUnit report (no failure) and the Markdown summary alike. With
# the impact rule off (--min-impact 0) the same comparison fails on it.
source "$(dirname "$0")/lib.sh"
XSD=$PERFGATE_SRCDIR/tests/data/JUnit.xsd
F=(-f once_small -f work)

# Both runs recorded in one interleaved session (perfgate ab, 10 pairs), compared pair by
# pair: a machine's speed moves between recordings (60% within a minute on a busy one): one
# after the other, the two carry its drift to one side; in shards taken in turn, they left
# work's and the whole program's intervals too wide to judge on a busy machine (the CPU time
# +26% [+4%, +55%])
#
# once_small is one single-stepped call a repetition, its time about twice its probes' cost:
# a session disturbed from outside (once on a CI machine: the whole program +-20%, every
# function inconclusive) can leave even its +200% undecided. What is checked is the impact
# rule, not the machine, so such a session is recorded again, up to three in all; three
# undecided ones in a row fail below.
for try in 1 2 3; do
	"$PERFGATE" ab -q -o "$TMP/ab" -r 10 --max-reps 10 "${F[@]}" ./negligible \
		'PG_SLOW_SMALL=1 ./negligible' >/dev/null || true
	python3 - "$TMP/ab/compare.json" <<'PY' && break
import sys, pgtest
f = pgtest.func(pgtest.load(sys.argv[1]), "once_small")
sys.exit(f["verdict"] == "inconclusive")
PY
	echo "session $try left once_small inconclusive: recorded again"
done
cp "$TMP/ab/base.json" "$TMP/base.json"
cp "$TMP/ab/new.json" "$TMP/slow.json"

# (the whole program may still move by several percent on a loaded machine, which a 20%
# minimum effect keeps out of this check; once_small's +200% is 10x beyond it). The impact
# line is set here, 0.5%: once_small's slowdown is 40-70 us of a 120-200 ms repetition
# (0.02-0.06%: a faster machine runs the rest of it quicker), 8x or more under it; at the
# paired default of 0.05% a machine where the repetition took 127 ms put it just over.
expect_exit 0 "$PERFGATE" compare "$TMP/base.json" "$TMP/slow.json" --junit "$TMP/r.xml" \
	--json "$TMP/r.json" --markdown "$TMP/r.md" --min-effect 20 --min-impact 0.5
cat "$TMP/stdout"
check_contains "once_small listed as notable" "$TMP/stdout" '^once_small .* notable  q='
check_contains "the table says it does not fail" "$TMP/stdout" 'too little of the run to fail'
# a pass needs evidence: the whole program judged, which ten pairs of a ~125 ms run do not
# always give within 20% (its CPU time read +0.4% [-15.6%, +33.2%] on an AMD EPYC VM): then
# INCONCLUSIVE, exit 0 all the same; never a failure
check_contains "PASS line counts it, or inconclusive" "$TMP/stdout" \
	'^perfgate: \(PASS .*1 notable\|INCONCLUSIVE: the judged functions hold\)'
check "no REGRESSION in the table" not grep -q 'REGRESSION' "$TMP/stdout"
check_contains "the summary lists it" "$TMP/r.md" 'notable, slower.*once_small'
check "JUnit validates" xmllint --noout --schema "$XSD" "$TMP/r.xml"
python3 - "$TMP/r.json" "$TMP/r.xml" <<'PY'
import sys, pgtest
import xml.etree.ElementTree as ET
r = pgtest.load(sys.argv[1])
assert r["overall"] in ("pass", "inconclusive"), r["overall"]
assert r["counts"]["regressions"] == 0 and r["counts"]["notable"] == 1, r["counts"]
f = pgtest.func(r, "once_small")
assert f["verdict"] == "notable", f
assert f["change"] > 0.5 and f["q"] <= 0.05, f
# 40-70 us of a 120-200 ms repetition, 0.02-0.06%: 8x or more under the 0.5% line
# (tests/progs/negligible.c)
assert 0 < f["impact"] < r["options"]["min_impact"], f
assert pgtest.func(r, "work")["verdict"] != "regression"
suite = ET.parse(sys.argv[2]).getroot()
assert int(suite.get("failures")) == 0, suite.get("failures")
assert all(tc.find("failure") is None for tc in suite.iter("testcase"))
PY

# the vote agrees: no regression (+1 on a pass, 0 when inconclusive; never -1)
"$PERFGATE" vote "$TMP/r.json" --system gerrit >"$TMP/vote.json"
want=$(python3 -c 'import json,sys; print(1 if json.load(open(sys.argv[1]))["overall"] == "pass" else 0)' "$TMP/r.json")
check_eq "gerrit vote" "$want" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(list(d["labels"].values())[0])' "$TMP/vote.json")"
check_contains "the vote message names it" "$TMP/vote.json" 'once_small.*notable, slower'

# the rule off: the same change fails
expect_exit 1 "$PERFGATE" compare "$TMP/base.json" "$TMP/slow.json" --min-impact 0
check_contains "--min-impact 0: a regression" "$TMP/stdout" '^perfgate: REGRESSION in 1 function: once_small'

# Differing selections: a run that traced work only, against the base run
# that traced once_small too. once_small was not traced in the new run: not judged (not
# "removed"); work, traced in both, is compared.
"$PERFGATE" record -q -o "$TMP/w.json" -r 10 -f work -- ./negligible
# (an A/A of work between two sequential recordings: a large --min-effect keeps a busy
# machine's drift, once +47% with the wall time +44%, from failing what this checks)
expect_exit 0 "$PERFGATE" compare "$TMP/base.json" "$TMP/w.json" --json "$TMP/sel.json" \
	--min-effect 300
has "traced different sets of functions (1 called only in the base run, 0 only in the new one"
check_contains "one-side function counted" "$TMP/stdout" \
	'^[12] inconclusive functions\? not shown.*traced in one run only'
check_eq "one-side: once_small" "inconclusive one-side 0" "$(python3 - "$TMP/sel.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
f = pgtest.func(r, "once_small")
print(f["verdict"], f["cause"], r["counts"]["removed"])
PY
)"
check_eq "one-side: work is compared" "work" "$(python3 - "$TMP/sel.json" <<'PY'
import sys, pgtest
r = pgtest.load(sys.argv[1])
print(" ".join(f["name"] for f in r["functions"] if f["n_base"] and f["n_new"] and f["cause"] != "one-side"))
PY
)"
