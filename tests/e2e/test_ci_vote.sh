# SPDX-License-Identifier: MIT
# CI reports on real recordings of knob: compare --markdown and the GitHub Actions behaviour
# (job summary, ::error annotations with file:line from DWARF), perfgate vote for Gerrit and
# GitHub (pass +1, regression -1, inconclusive / different hosts / no result 0, bad input 2;
# different commands compared with a warning, voted on with a note), and perfgate merge (shards
# pooled; different commands or -f options refused). leaf_hash is
# made five times as slow, raw times are compared with a 50% minimum effect: these tests are
# about the reports, not the statistics (tests/e2e/test_compare.sh), and must not fail on a
# busy machine.
source "$(dirname "$0")/lib.sh"
F=(-f leaf_hash -f leaf_mix -f checksum -f main)
C=(--raw --min-effect 50)

"$PERFGATE" record -q -o "$TMP/base.json" -r 10 "${F[@]}" -- ./knob
"$PERFGATE" record -q -o "$TMP/same.json" -r 10 "${F[@]}" -- ./knob
PG_SLOW=400 "$PERFGATE" record -q -o "$TMP/slow.json" -r 10 "${F[@]}" -- ./knob
"$PERFGATE" record -q -o "$TMP/b3.json" -r 3 "${F[@]}" -- ./knob

py() { python3 -c "import json, sys, pgtest; $1" "${@:2}"; }
label() { pgtest get "$1" labels.Performance; }
conclusion() { pgtest get "$1" conclusion; }
vote() { # RESULT NAME: gerrit and github payloads in $TMP/NAME.{gerrit,github}
	"$PERFGATE" vote "$1" --system gerrit >"$TMP/$2.gerrit"
	"$PERFGATE" vote "$1" --system github -o "$TMP/$2.github"
}

# the source position is recorded
py 'f = pgtest.func(pgtest.load(sys.argv[1]), "leaf_hash")
assert f["file"].endswith("tests/progs/knob.c") and f["line"] == 12, f' "$TMP/base.json"

# ---- pass ----
expect_exit 0 "$PERFGATE" compare "${C[@]}" "$TMP/base.json" "$TMP/same.json" \
	--json "$TMP/aa.json" --markdown "$TMP/aa.md" --junit "$TMP/aa.xml" --artifact flame.svg
check_contains "A/A: markdown verdict" "$TMP/aa.md" '^### :white_check_mark: perfgate: pass'
check_contains "A/A: artifacts" "$TMP/aa.md" '^Artifacts: `aa.xml`, `aa.json`, `flame.svg`.$'
check "no annotations outside GitHub Actions" not grep -q -- '^::' "$TMP/stdout"
vote "$TMP/aa.json" aa
check_eq "A/A: gerrit vote +1" 1 "$(label "$TMP/aa.gerrit")"
check_eq "A/A: check run success" success "$(conclusion "$TMP/aa.github")"

# ---- regression, under GitHub Actions ----
: >"$TMP/step_summary"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$TMP/step_summary GITHUB_WORKSPACE=$PERFGATE_SRCDIR \
	expect_exit 1 "$PERFGATE" compare "${C[@]}" "$TMP/base.json" "$TMP/slow.json" --json "$TMP/ab.json"
cat "$TMP/stdout"
A='^::error file=tests/progs/knob.c,line=12,title=perfgate%3A leaf_hash +[0-9.]*%25 slower'
A+=' per call::leaf_hash (knob) per-call self time'
check_contains "an ::error annotation for leaf_hash at tests/progs/knob.c:12" "$TMP/stdout" "$A"
nreg=$(pgtest get "$TMP/ab.json" counts.regressions)
check_eq "one annotation per regression" "$nreg" "$(grep -c '^::error' "$TMP/stdout")"
# the heading counts the functions; the whole program, when it regressed too, is named
nfun=$(python3 -c 'import sys, pgtest
print(len(pgtest.with_verdict(pgtest.load(sys.argv[1]), "regression")))' "$TMP/ab.json")
grep -Eq "^### :x: perfgate: regression( of the whole program and)? in $nfun functions?\$" \
	"$TMP/step_summary" ||
	fail "no regression heading in GITHUB_STEP_SUMMARY"
grep -q '^| :red_circle: regression | `leaf_hash` (knob.c:12) | knob |' "$TMP/step_summary" ||
	fail "leaf_hash row missing from the job summary"
vote "$TMP/ab.json" ab
check_eq "regression: gerrit vote -1" -1 "$(label "$TMP/ab.gerrit")"
py 'm = pgtest.load(sys.argv[1])["message"]; assert "* leaf_hash (knob): slower +" in m, m' \
	"$TMP/ab.gerrit"
check_eq "regression: check run failure" failure "$(conclusion "$TMP/ab.github")"
py 'c = pgtest.load(sys.argv[1]); assert len(c.get("head_sha", "x" * 40)) == 40
assert "leaf_hash" in c["output"]["summary"]' "$TMP/ab.github"
# check-run annotations at the declaration, relative to the repository (the git work tree of
# the current directory; --repo-root; GITHUB_WORKSPACE outside a work tree)
annot() { # PAYLOAD: leaf_hash's annotation as "path line end level", regressions first
	py 'a = pgtest.load(sys.argv[1])["output"].get("annotations", [])
assert a and a[0]["annotation_level"] == "failure", a
print(*[" ".join(str(x[k]) for k in ("path", "start_line", "end_line", "annotation_level"))
        for x in a if x["message"].startswith("leaf_hash (knob): slower +")])' "$1"
}
check_eq "regression: leaf_hash's check-run annotation" "tests/progs/knob.c 12 12 failure" \
	"$(annot "$TMP/ab.github")"
"$PERFGATE" vote "$TMP/ab.json" --system github --repo-root "$PERFGATE_SRCDIR/tests" \
	-o "$TMP/ab-root.github"
check_eq "--repo-root: the annotation's path" "progs/knob.c 12 12 failure" \
	"$(annot "$TMP/ab-root.github")"
(cd / && GITHUB_WORKSPACE=$PERFGATE_SRCDIR "$PERFGATE" vote "$TMP/ab.json" --system github \
	-o "$TMP/ab-ws.github")
check_eq "GITHUB_WORKSPACE: the annotation's path" "tests/progs/knob.c 12 12 failure" \
	"$(annot "$TMP/ab-ws.github")"

# ---- inconclusive: too few repetitions; different hosts ----
expect_exit 0 "$PERFGATE" compare "$TMP/b3.json" "$TMP/slow.json" --json "$TMP/in.json"
vote "$TMP/in.json" in
check_eq "inconclusive: gerrit vote 0" 0 "$(label "$TMP/in.gerrit")"
check_eq "inconclusive: check run neutral" neutral "$(conclusion "$TMP/in.github")"
py 'r = pgtest.load(sys.argv[1]); r["meta"]["host"] = "elsewhere"
json.dump(r, open(sys.argv[2], "w"))' "$TMP/slow.json" "$TMP/slow_host.json"
expect_exit 1 "$PERFGATE" compare "${C[@]}" "$TMP/base.json" "$TMP/slow_host.json" \
	--json "$TMP/host.json"
vote "$TMP/host.json" host
check_eq "different hosts: gerrit vote 0" 0 "$(label "$TMP/host.gerrit")"
check_contains "different hosts: said why" "$TMP/host.gerrit" 'different hosts'

# ---- different commands: compared as two binaries are, with a warning; the vote says so ----
"$PERFGATE" record -q -o "$TMP/other.json" -r 2 -f leaf_hash -- ./knob extra
py 'r = json.load(open(sys.argv[1])); r["meta"]["command"].append("extra")
json.dump(r, open(sys.argv[2], "w"))' "$TMP/same.json" "$TMP/same_cmd.json"
expect_exit 0 "$PERFGATE" compare "${C[@]}" "$TMP/base.json" "$TMP/same_cmd.json" \
	--json "$TMP/cmd.json"
check "different commands: a warning naming both" grep -q \
	"warning: the runs are of different commands: '[^']*knob' and '[^']*knob extra'" \
	"$TMP/stderr"
vote "$TMP/cmd.json" cmd
check_eq "different commands: voted on the verdict" 1 "$(label "$TMP/cmd.gerrit")"
check_contains "different commands: the vote says so" "$TMP/cmd.gerrit" \
	'the runs are of different commands'
expect_exit 2 "$PERFGATE" compare "${C[@]}" --strict "$TMP/base.json" "$TMP/same_cmd.json"
has 'different commands (--strict)'
py 'r = json.load(open(sys.argv[1]))
for f in r["functions"]: f["name"] += "_renamed"
json.dump(r, open(sys.argv[2], "w"))' "$TMP/same_cmd.json" "$TMP/nomatch.json"
expect_exit 2 "$PERFGATE" compare "${C[@]}" "$TMP/base.json" "$TMP/nomatch.json"
has 'no function was called in both'

# ---- no result (the comparison failed), bad input ----
expect_exit 2 "$PERFGATE" vote "$TMP/none.json" --system gerrit
check_eq "vote on a missing file: one error line" 1 "$(wc -l <"$TMP/stderr")"
expect_exit 0 "$PERFGATE" vote "$TMP/none.json" --system gerrit --missing-ok
check_eq "no result: gerrit vote 0" 0 "$(label "$TMP/stdout")"
expect_exit 2 "$PERFGATE" vote "$TMP/base.json" --system github
check_contains "a run file refused as a result" "$TMP/stderr" 'not a usable perfgate compare result'
expect_exit 2 "$PERFGATE" vote "$TMP/aa.json" --system jenkins
expect_exit 2 "$PERFGATE" vote "$TMP/aa.json"
expect_exit 2 "$PERFGATE" vote "$TMP/aa.json" --system gerrit -o "$TMP/nodir/x.json"
check "vote created no directory" test ! -e "$TMP/nodir"
expect_exit 2 "$PERFGATE" compare "$TMP/base.json" "$TMP/same.json" --markdown "$TMP/nodir/x.md"

# ---- merge ----
expect_exit 0 "$PERFGATE" merge "$TMP/base.json" "$TMP/same.json" -o "$TMP/merged.json"
py 'r = pgtest.load(sys.argv[1]); assert len(r["repetitions"]) == 20, len(r["repetitions"])
assert r["meta"]["options"]["repetitions"] == 20' "$TMP/merged.json"
check_eq "merge keeps the calls" "$(calls "$TMP/base.json")" "$(calls "$TMP/merged.json")"
# (the verdict is the statistics' business: here, that all 20 repetitions are compared)
st=0
"$PERFGATE" compare "$TMP/merged.json" "$TMP/slow.json" >"$TMP/stdout" || st=$?
[ "$st" = 0 ] || [ "$st" = 1 ] || fail "compare with a merged baseline exited $st"
check_contains "merged baseline: 20 repetitions" "$TMP/stdout" '^  base .*(20 repetitions'
expect_exit 2 "$PERFGATE" merge "$TMP/base.json" "$TMP/other.json" -o "$TMP/bad.json"
check_contains "merge: different commands refused" "$TMP/stderr" 'different commands'
"$PERFGATE" record -q -o "$TMP/fewer.json" -r 2 -f leaf_hash -- ./knob
expect_exit 2 "$PERFGATE" merge "$TMP/base.json" "$TMP/fewer.json" -o "$TMP/bad.json"
check_contains "merge: different -f refused" "$TMP/stderr" 'different functions'
check "merge wrote no file on error" test ! -e "$TMP/bad.json"
expect_exit 2 "$PERFGATE" merge "$TMP/base.json"
expect_exit 2 "$PERFGATE" merge "$TMP/base.json" "$TMP/missing.json" -o "$TMP/bad.json"
ls -A "$TMP" | grep -q '^\.bad' && fail "merge left a temporary file"

# ---- perfgate ab: its compare.json and Markdown are compare's, and vote on them ----
expect_exit 1 "$PERFGATE" ab -q -o "$TMP/ab" -r 10 --max-reps 10 "${F[@]}" "${C[@]}" \
	--markdown "$TMP/ab.md" ./knob './knob 400'
check_contains "ab: markdown verdict" "$TMP/ab.md" ':x: perfgate: regression'
vote "$TMP/ab/compare.json" abv
check_eq "ab: gerrit vote -1" -1 "$(label "$TMP/abv.gerrit")"
check_eq "ab: check run failure" failure "$(conclusion "$TMP/abv.github")"
# its sides merge into ordinary runs (the pairing dropped, said so)
expect_exit 0 "$PERFGATE" merge "$TMP/ab/base.json" "$TMP/base.json" -o "$TMP/abmerged.json"
check_contains "merge of an ab side: a note" "$TMP/stderr" 'not paired'
check "merge of an ab side: not paired" \
	py 'assert "ab" not in pgtest.load(sys.argv[1])["meta"]' "$TMP/abmerged.json"
echo "vote, markdown and merge checks passed"
