# SPDX-License-Identifier: MIT
# The GitLab template run by a real third-party runner of .gitlab-ci.yml: gitlab-ci-local (npm
# package, `make ci-tools`), with its shell executor, which also validates the pipeline against
# GitLab's schema. A small project made here includes the CI/CD component templates/perfgate.yml
# with spec inputs (which extends .perfgate of ci-templates/gitlab/perfgate.gitlab-ci.yml), and
# the job clones perfgate's scripts from a local "perfgate" repository at the release tag
# v$(perfgate version), whose main branch is broken on purpose: a job that cloned main fails.
#   - the default branch's pipeline publishes (run.json, the history and its change points in
#     the log and as Markdown) and is not gated, and sees no other publisher's copy (none can
#     be downloaded here);
#   - a merge request that slows blur_row ten times fails the job, with the JUnit (blur_row a
#     failure), Code Quality (when this perfgate writes it) and summary artifacts;
#   - a merge request that changes nothing passes.
# The gate is loosened (min-effect 50 on the *_row leaves): this is about the plumbing; the
# statistics are tested elsewhere.
source "$(dirname "$0")/lib.sh"
SRC=$PERFGATE_SRCDIR
GCL=${PERFGATE_NPM:-/opt/perfgate-ci-tools}/node_modules/.bin/gitlab-ci-local
[ -x "$GCL" ] || fail "no $GCL: run make ci-tools"
command -v rsync >/dev/null || fail "gitlab-ci-local needs rsync (make deps)"
VER=$("$PERFGATE" version | awk '{ print $2 }')

# ---- perfgate's repository: the scripts at tag v$VER; main broken afterwards ----
P=$TMP/perfgate
mkdir -p "$P"
cp -r "$SRC/ci-templates" "$SRC/templates" "$P/"
git -C "$P" init -q -b main
git -C "$P" -c user.email=t@example.com -c user.name=t add .
git -C "$P" -c user.email=t@example.com -c user.name=t commit -qm release
git -C "$P" tag "v$VER"
printf '#!/bin/sh\necho "perfgate-ci: this is main, not the release" >&2\nexit 3\n' \
	>"$P/ci-templates/perfgate-ci.sh"
git -C "$P" -c user.email=t@example.com -c user.name=t commit -qam "main moves on"

# ---- the project: C1 on main; slow (blur_row 10x) and same (a comment) from it ----
R=$TMP/project
mkdir -p "$R/templates" "$R/ci-templates/gitlab"
cd "$R"
git init -q -b main
git config user.email t@example.com
git config user.name test
git remote add gcl-origin git@gitlab.example.com:group/project.git	# gitlab-ci-local's
cp "$SRC/examples/demo/imgfilter.c" .
cp "$SRC/templates/perfgate.yml" templates/
cp "$SRC/ci-templates/gitlab/perfgate.gitlab-ci.yml" ci-templates/gitlab/
printf 'imgfilter\nperfgate-out/\n.gitlab-ci-local/\n.perfgate/\n' >.gitignore
cat >.gitlab-ci.yml <<YML
include:
  - local: /templates/perfgate.yml
    inputs:
      command: ./imgfilter 3
      build: clang -O2 -g -fpatchable-function-entry=5 -o imgfilter imgfilter.c
      functions: "*_row"
      min-effect: "50"
      max-reps: "10"
      history: perfgate-out/perfgate-history.db
      perfgate-git-url: file://$P
YML
git add . && git commit -qm C1
C1=$(git rev-parse HEAD)
git checkout -qb slow
sed -i '0,/r < 8; r++) {/s//r < 80; r++) {/' imgfilter.c
git commit -qam S1
git checkout -qb same "$C1"
echo '/* a comment */' >>imgfilter.c && git commit -qam F1
git checkout -q main

# gcl NAME [VARIABLE=VALUE...]: the pipeline's perfgate job; exit status in $st, log in NAME.log
gcl() {
	local s=$1 v args=()
	shift
	# gitlab-ci-local gives a job with an image CI_PROJECT_DIR=/builds/GROUP/PROJECT even
	# under its shell executor, which runs the job here: perfgate's clone goes here too
	for v in PERFGATE="$PERFGATE" PG_SKIP_DEPS=1 GITLAB_CI=true PERFGATE_SRC="$R/.perfgate" \
		CI_API_V4_URL=http://127.0.0.1:9/api/v4 "$@"; do
		args+=(--variable "$v")
	done
	rm -rf perfgate-out .perfgate
	st=0
	"$GCL" --force-shell-executor --no-color "${args[@]}" perfgate >"$TMP/$s.log" 2>&1 ||
		st=$?
}
ART=$R/.gitlab-ci-local/artifacts/perfgate/perfgate-out

# ---- 1. the default branch: publish, not gated ----
gcl main
[ "$st" = 0 ] || { tail -n 40 "$TMP/main.log"; fail "the default branch's job exited $st"; }
check_contains "main: not published" "$TMP/main.log" 'published: .*run.json is this job'
check_eq "main: perfgate not cloned at the tag (the component's default version)" \
	"$(git -C "$P" rev-parse "v$VER^{commit}")" "$(git -C "$R/.perfgate" rev-parse HEAD)"
check "main: ran main's broken script" not grep -q 'this is main, not the release' "$TMP/main.log"
check "main: no run.json artifact" test -s "$ART/run.json"
check "main: no history artifact" test -s "$ART/perfgate-history.db"
check_contains "main: no change points in the log" "$TMP/main.log" 'history changes on main'
check_contains "main: no Markdown of the change points" "$ART/history-changes.md" \
	'^### perfgate history: 0 change point(s) in 1 sessions'
check "main: a lost race seen where there was none" not grep -q 'another publisher' "$TMP/main.log"
check_contains "main: the dotenv report" "$R/perfgate-out/perfgate.env" '^PERFGATE_RESULT=published$'

# ---- 2. a merge request that slows blur_row: the job fails, with its reports ----
MR=(CI_PIPELINE_SOURCE=merge_request_event CI_MERGE_REQUEST_IID=1
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main "CI_MERGE_REQUEST_DIFF_BASE_SHA=$C1")
git checkout -q slow
gcl slow "${MR[@]}"
[ "$st" != 0 ] || { tail -n 40 "$TMP/slow.log"; fail "the slow merge request passed"; }
check_contains "slow: not recorded with ab" "$TMP/slow.log" 'interleaved'
check_contains "slow: the job did not fail" "$TMP/slow.log" 'FAIL.*perfgate'
check_contains "slow: the dotenv exit code" "$R/perfgate-out/perfgate.env" '^PERFGATE_EXIT_CODE=1$'
check "slow: no JUnit artifact" test -s "$ART/junit.xml"
check "slow: no summary artifact" test -s "$ART/summary.md"
check_contains "slow: blur_row not a JUnit failure" "$ART/junit.xml" 'blur_row'
python3 - "$ART/junit.xml" <<'PY' || check_failed "slow: JUnit" "blur_row is not a failure"
import sys, xml.etree.ElementTree as ET
cases = [c for c in ET.parse(sys.argv[1]).iter("testcase") if "blur_row" in c.get("name", "")]
assert cases and cases[0].find("failure") is not None, cases
PY
check_contains "slow: no verdict in the summary" "$ART/summary.md" ':x: perfgate: regression'
if "$PERFGATE" ab --help 2>/dev/null | grep -q -- '--codequality'; then
	check_contains "slow: no Code Quality finding for blur_row" "$ART/codequality.json" \
		'blur_row'
fi
[ -z "$(git worktree list | sed 1d)" ] || check_failed "slow" "a worktree was left behind"

# ---- 3. a merge request that changes nothing: passes ----
git checkout -q same
gcl same "${MR[@]}"
[ "$st" = 0 ] || { tail -n 40 "$TMP/same.log"; fail "the unchanged merge request failed ($st)"; }
check_contains "same: the dotenv exit code" "$R/perfgate-out/perfgate.env" '^PERFGATE_EXIT_CODE=0$'
check_contains "same: not passed" "$TMP/same.log" 'PASS.*perfgate'
echo "gitlab-ci-local scenarios passed"
