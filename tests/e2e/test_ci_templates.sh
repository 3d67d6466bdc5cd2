# SPDX-License-Identifier: MIT
# The CI templates, run for real on the bundled example (examples/demo/imgfilter.c) in a
# temporary git repository: the templates are valid YAML (yamllint); the GitHub action's shell
# steps and the GitLab job's script run with GITHUB_* / CI_* pointing at temporary files.
#
#   C1 (main) -- C2 (main tip)
#     \-- F1 -- F2 (clean: comments only)
#     \-- S1 (slow: blur_row does 10x the work)
#
# Checked: the baseline is recorded at the merge base C1 (not the main tip, not HEAD~1), built
# in a worktree and recorded with the change in one perfgate ab session (ab=false: two
# recordings in a row), even when a run of C1 is stored; a stored run (refs/perfgate/baselines,
# GitLab's artifact) is used only when asked for, and the summary's first line then says that
# the sides come from different runners; a clean change exits 0, a regression 1 with the files,
# outputs, job summary and ::error annotation (file:line from DWARF) in place, also when the
# comment cannot be posted; the GitLab job downloads the default branch's artifact with its job
# token when asked to, also in a job with its own before_script. The setup step on stock
# runners, with fake apt-get, dpkg, uname, id, sudo, lsb_release and os-release files on PATH:
# Ubuntu installs linux-tools-common and linux-tools-$(uname -r) and builds with that kernel's
# bpftool, Debian its bpftool package; no root, no sudo or no BTF stop it with exit 2; with
# PG_CACHE_DIR the first setup builds and keeps the build there, the next takes it from there.
source "$(dirname "$0")/lib.sh"
SRC=$PERFGATE_SRCDIR
CI=$SRC/tests/e2e/ci_steps.py
ACTION=$SRC/action.yml
GITLAB=$SRC/ci-templates/gitlab/perfgate.gitlab-ci.yml

yamllint -s -c "$SRC/ci-templates/.yamllint" "$SRC/ci-templates" "$SRC/action.yml" \
	"$SRC/templates" || fail "yamllint finds problems in ci-templates/, action.yml, templates/"
bash -n "$SRC/ci-templates/perfgate-ci.sh"

# ---- setup on stock runners: fakes on PATH, a tree with the Makefile only ----
FK=$TMP/fake
mkdir -p "$FK/bin" "$FK/src" "$FK/tools"
cp "$SRC/Makefile" "$FK/src/"
fake() { # NAME BODY: a script on the fake PATH
	printf '#!/bin/bash\n%s\n' "$2" >"$FK/bin/$1"
	chmod +x "$FK/bin/$1"
}
# apt-get logs what it installs and "installs" a kernel's bpftool; dpkg knows no package
fake apt-get 'echo "apt-get $*" >>"$FK_LOG"
for p; do case $p in linux-tools-[0-9]*) v=${p#linux-tools-}; mkdir -p "$FK_TOOLS/$v"
	printf "#!/bin/sh\necho bpftool v7\n" >"$FK_TOOLS/$v/bpftool"
	chmod +x "$FK_TOOLS/$v/bpftool" ;; esac; done'
fake dpkg 'exit 1'
fake uname '[ "$1" = -r ] && { echo "$FK_KVER"; exit 0; }; exec /usr/bin/uname "$@"'
fake id '[ "$1" = -u ] && [ -n "${FK_UID:-}" ] && { echo "$FK_UID"; exit 0; }; exec /usr/bin/id "$@"'
fake sudo 'echo "sudo $*" >>"$FK_LOG"; [ -z "${FK_NOSUDO:-}" ] || exit 1
while [[ $1 == -* ]]; do shift; done; "$@"'
fake lsb_release 'echo "${FK_LSB:-Debian}"'
# make: the real one for deps-build; "building" writes a perfgate that prints its version
fake make 'echo "make $*" >>"$FK_LOG"
for a; do [ "$a" = all ] || continue
	printf "#!/bin/sh\necho perfgate fake\n" >"$FK_SRC/perfgate"; chmod +x "$FK_SRC/perfgate"
	exit 0; done
exec /usr/bin/make "$@"'
printf 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="24.04"\n' >"$FK/ubuntu"
printf 'NAME="Debian GNU/Linux"\nID=debian\nVERSION_ID="12"\n' >"$FK/debian"
printf 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n' >"$FK/mint"
# setup_on NAME [VAR=VALUE...]: the setup step with the fakes; exit status in $st, log in $FK_LOG
setup_on() {
	local name=$1
	shift
	rm -f "$FK/src/perfgate"
	rm -rf "$FK/tools"/*
	FK_LOG=$TMP/fake-$name.log
	: >"$FK_LOG"
	st=0
	env -u PERFGATE -u BPFTOOL -u GITHUB_ENV -u GITHUB_OUTPUT PATH="$FK/bin:$PATH" \
		FK_LOG="$FK_LOG" FK_TOOLS="$FK/tools" FK_SRC="$FK/src" FK_KVER=6.8.0-1017-azure \
		PG_LINUX_TOOLS="$FK/tools" PERFGATE_SRC="$FK/src" PG_COMMAND=./bench \
		PG_OUT="$TMP/fake-out" PG_OS_RELEASE="$FK/ubuntu" "$@" \
		bash "$SRC/ci-templates/perfgate-ci.sh" setup >>"$FK_LOG" 2>&1 || st=$?
}
installed() { grep '^apt-get install' "$FK_LOG" | tr ' ' '\n' | grep -v '^-' || true; }
K=6.8.0-1017-azure

setup_on ubuntu
check_eq "ubuntu: setup exited" 0 "$st"
check "ubuntu: linux-tools-common installed" grep -qx linux-tools-common <(installed)
check "ubuntu: linux-tools-\$(uname -r) installed" grep -qx "linux-tools-$K" <(installed)
check "ubuntu: the bpftool package not asked for" not grep -qx bpftool <(installed)
check "ubuntu: libbpf-dev installed" grep -qx libbpf-dev <(installed)
check_contains "ubuntu: built with the kernel's bpftool" "$FK_LOG" \
	"^make -C $FK/src -j[0-9]* all BPFTOOL=$FK/tools/$K/bpftool\$"
check_contains "ubuntu: perfgate version" "$FK_LOG" '^perfgate fake$'
setup_on mint PG_OS_RELEASE="$FK/mint"
check "ubuntu derivative: linux-tools" grep -qx "linux-tools-$K" <(installed)
setup_on lsb PG_OS_RELEASE="$FK/none" FK_LSB=Ubuntu
check "lsb_release Ubuntu: linux-tools" grep -qx "linux-tools-$K" <(installed)
setup_on debian PG_OS_RELEASE="$FK/debian"
check_eq "debian: setup exited" 0 "$st"
check "debian: the bpftool package installed" grep -qx bpftool <(installed)
check "debian: no linux-tools" not grep -q linux-tools <(installed)
check_contains "debian: built with bpftool" "$FK_LOG" \
	"^make -C $FK/src -j[0-9]* all BPFTOOL=bpftool\$"
# the action's bpftool input (BPFTOOL) wins; without packages a missing bpftool is an error
printf '#!/bin/sh\necho mine\n' >"$FK/mybpftool" && chmod +x "$FK/mybpftool"
setup_on given BPFTOOL="$FK/mybpftool"
check_contains "BPFTOOL: built with it" "$FK_LOG" "all BPFTOOL=$FK/mybpftool\$"
setup_on skip PG_SKIP_DEPS=1
check_eq "ubuntu without linux-tools: setup exited" 2 "$st"
check_contains "ubuntu without linux-tools: a message" "$FK_LOG" 'bpftool (.*) does not run'
check "PG_SKIP_DEPS: apt-get did not run" not grep -q apt-get "$FK_LOG"
# runner requirements: root through sudo, BTF
setup_on sudo FK_UID=1001
check_eq "sudo: setup exited" 0 "$st"
check_contains "sudo: packages installed through sudo" "$FK_LOG" \
	'^sudo -E make -C .* deps-build'
setup_on nosudo FK_UID=1001 FK_NOSUDO=1
check_eq "no sudo: setup exited" 2 "$st"
check_contains "no sudo: a message" "$FK_LOG" 'recording needs root'
setup_on nobtf PG_BTF="$FK/none"
check_eq "no BTF: setup exited" 2 "$st"
check_contains "no BTF: a message" "$FK_LOG" 'this kernel has no BTF'
python3 - "$ACTION" <<'PY' || fail "the action does not pass its bpftool input as BPFTOOL"
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]
setup = [s for s in steps if s.get("id") == "setup"][0]
assert setup["env"]["BPFTOOL"] == "${{ inputs.bpftool }}", setup["env"]
PY
# the build kept in PG_CACHE_DIR (the Actions cache): built once, then taken from there with no
# package or build step
setup_on cache1 PG_OS_RELEASE="$FK/debian" PG_CACHE_DIR="$FK/cache"
check_eq "cache: the first setup exited" 0 "$st"
check_contains "cache: the first setup built" "$FK_LOG" ' all BPFTOOL=bpftool$'
check "cache: the build was kept" test -x "$FK/cache/perfgate"
setup_on cache2 PG_OS_RELEASE="$FK/debian" PG_CACHE_DIR="$FK/cache"
check_eq "cache: the second setup exited" 0 "$st"
check "cache: the second setup did not build again" not grep -q ' all BPFTOOL=' "$FK_LOG"
check "cache: the second setup installed no packages" not grep -q 'deps-build\|apt-get' "$FK_LOG"
check_contains "cache: taken from the cache" "$FK_LOG" 'perfgate from the cache'
check_contains "cache: the cached perfgate ran" "$FK_LOG" '^perfgate fake$'
# the cache key: version, runner image, a digest of the sources (changed by any source)
key() { env ImageOS=ubuntu24 ImageVersion=20250101.1 PERFGATE_SRC="$1" \
	bash "$SRC/ci-templates/perfgate-ci.sh" cache-key; }
VER=$("$PERFGATE" version | awk '{ print $2 }')
K1=$(key "$SRC")
[[ $K1 =~ ^perfgate-$VER-ubuntu24-20250101\.1-[a-z0-9_]+-[0-9a-f]{12}$ ]] ||
	check_failed "cache key" "$K1 does not name the version and the image"
check_eq "cache key: the same twice" "$K1" "$(key "$SRC")"
mkdir -p "$TMP/src2/core" && cp "$SRC/Makefile" "$TMP/src2/" &&
	cp "$SRC/core/version.h" "$TMP/src2/core/"
K2=$(key "$TMP/src2")
echo '/* changed */' >>"$TMP/src2/core/version.h"
[ "$K2" != "$(key "$TMP/src2")" ] || check_failed "cache key" "a changed source kept $K2"

# ---- the repository ----
R=$TMP/repo
mkdir -p "$R"
cd "$R"
git init -q -b main
git config user.email t@example.com
git config user.name test
cp "$SRC/examples/demo/imgfilter.c" .
# where blur_row is defined: the line the annotations and the summary must name
BLUR=$(grep -n 'void blur_row(' imgfilter.c | cut -d: -f1)
printf 'imgfilter\nperfgate-out/\n' >.gitignore
git add . && git commit -qm C1
C1=$(git rev-parse HEAD)
git checkout -qb clean
echo '/* a comment */' >>imgfilter.c && git commit -qam F1
echo '/* another comment */' >>imgfilter.c && git commit -qam F2
git checkout -q "$C1" && git checkout -qb slow
# the first "r < 8; r++) {" is blur_row's: ten times the work
sed -i '0,/r < 8; r++) {/s//r < 80; r++) {/' imgfilter.c
git commit -qam S1
git checkout -q main
echo 'readme' >README && git add README && git commit -qm C2
C2=$(git rev-parse HEAD)

BUILD='clang -O2 -g -fpatchable-function-entry=5 -o imgfilter imgfilter.c'
# The slow change makes blur_row 10x slower; a 50% minimum effect on raw times keeps timing
# noise on a busy machine from failing the clean change: these tests are about the plumbing,
# not the statistics. Only the *_row leaves are traced: a caller's raw self time holds its
# callees' untimed probe costs, which move with the machine (a clean change once flagged main
# +192%, with the wall time +30%, on a busy CI machine).
IN=(--input "command=./imgfilter 3" --input "build=$BUILD" --input "perfgate=$PERFGATE"
    --input repetitions=10 --input min-effect=50 --input compare-args=--raw
    --input "functions=*_row"
    --github base_ref=main --github run_id=4242 --github run_attempt=1 --github job=perf)

# github SCENARIO ARGS...: run the action in $R with fresh GitHub files; exit status in $st
github() {
	local s=$1
	shift
	rm -rf "$R/perfgate-out"
	mkdir -p "$TMP/$s"
	st=0
	GITHUB_STEP_SUMMARY=$TMP/$s/summary GITHUB_ENV=$TMP/$s/env GITHUB_WORKSPACE=$R \
		python3 "$CI" github "$ACTION" "$R" "${IN[@]}" "$@" >"$TMP/$s/stdout" \
		2>"$TMP/$s/stderr" || st=$?
	cat "$TMP/$s/stdout"
}
output() { # SCENARIO NAME: an output of the action
	tail -n 1 "$TMP/$1/stdout" | pgtest get - "$2"
}

# 1. publish on the default branch, asked to keep a stored baseline: the run of C2 is stored
# in refs/perfgate/baselines
github publish --input mode=publish --input baseline=ref
[ "$st" = 0 ] || { cat "$TMP/publish/stderr"; fail "publish exited $st"; }
check_eq "publish: result 'published'" published "$(output publish result)"
git cat-file -e "refs/perfgate/baselines:$C2.json" || fail "publish did not store $C2.json"
check_eq "the stored baseline is C2's run" "$C2" \
	"$(git show "refs/perfgate/baselines:$C2.json" | pgtest get - meta.git_commit)"

# 2. a clean pull request: the merge base C1 is recorded, with the change (no token: the
# comment is not posted, with one warning)
git checkout -q clean
github clean
[ "$st" = 0 ] || { cat "$TMP/clean/stderr"; fail "clean change: the action exited $st"; }
check_eq "merge base C1" "$C1" "$(output clean merge-base)"
check_eq "the baseline was recorded at the merge base C1" "$C1" \
	"$(pgtest get "$R/perfgate-out/base.json" meta.git_commit)"
check_eq "the run was recorded at HEAD" "$(git rev-parse HEAD)" \
	"$(pgtest get "$R/perfgate-out/run.json" meta.git_commit)"
check "clean: no stored baseline looked for" not grep -q 'refs/perfgate' "$TMP/clean/stderr"
check_contains "clean: a warning about the missing token" "$TMP/clean/stdout" \
	'^::warning::perfgate: no GitHub token: .*pass github-token'
check "clean: a check run payload" test -s "$R/perfgate-out/check.json"
check_eq "clean: the functions input was used" "blur_row checksum_row fill_row sharpen_row tone_row" \
	"$(pgtest names "$R/perfgate-out/run.json" | xargs)"
res=$(output clean result)
[ "$res" = pass ] || [ "$res" = inconclusive ] || fail "clean change: result $res"
for f in base.json run.json compare.json junit.xml summary.md; do
	check "clean: perfgate-out/$f written" test -s "$R/perfgate-out/$f"
done
grep -q 'perfgate: pass\|perfgate: inconclusive' "$TMP/clean/summary" ||
	fail "clean: no verdict in GITHUB_STEP_SUMMARY"
cmp -s "$TMP/clean/summary" "$R/perfgate-out/summary.md" ||
	fail "the job summary differs from summary.md"
check "clean: no ::error annotations" not grep -q -- '^::error' "$TMP/clean/stdout"
grep -q 'uses actions/upload-artifact@v4.*"path": "perfgate-out/"' "$TMP/clean/stdout" ||
	fail "the upload step does not upload perfgate-out/"
artifact() { # SCENARIO: the name of the uploaded artifact
	sed -n 's/^step .*: uses actions\/upload-artifact@v4 //p' "$TMP/$1/stdout" | pgtest get - name
}
check_eq "clean: the artifact's name" perfgate-4242-1-perf-0 "$(artifact clean)"
[ -z "$(git worktree list | sed 1d)" ] || fail "a worktree was left behind"
check_contains "clean: recorded interleaved" "$TMP/clean/stderr" 'interleaved'
# the two sides of one perfgate ab session, each built in its own tree
ab_sides() { # DIR: the base and the change are the sides of one session
	python3 - "$1" <<'PY'
import sys, pgtest
base, run = (pgtest.load(sys.argv[1] + f) for f in ("/base.json", "/run.json"))
assert base["meta"]["ab"]["side"] == "base" and run["meta"]["ab"]["side"] == "new", \
    (base["meta"].get("ab"), run["meta"].get("ab"))
assert base["meta"]["ab"]["session"] == run["meta"]["ab"]["session"]
assert len(base["repetitions"]) == len(run["repetitions"]) >= 10
PY
}
check "clean: base.json and run.json are one ab session" ab_sides "$R/perfgate-out"

# 2b. ab=false: two recordings in a row, as before
github seq --input baseline=record --input ab=false --strategy job-index=3
check_eq "another matrix leg: the artifact's name" perfgate-4242-1-perf-3 "$(artifact seq)"
[ "$st" = 0 ] || { cat "$TMP/seq/stderr"; fail "sequential: the action exited $st"; }
check_eq "sequential: the baseline recorded at C1" "$C1" \
	"$(pgtest get "$R/perfgate-out/base.json" meta.git_commit)"
check "sequential: base.json is not an ab side" \
	python3 -c 'import sys, pgtest; assert "ab" not in pgtest.load(sys.argv[1])["meta"]' \
	"$R/perfgate-out/base.json"
[ -z "$(git worktree list | sed 1d)" ] || fail "a worktree was left behind"

# 3. the merge base's run is published; a slow pull request that asks for it (baseline: ref)
# is compared with it and fails, and says first that the sides come from different runners.
# The API cannot be reached: one warning, and the verdict and exit status stand
git checkout -q "$C1"
github publish1 --input mode=publish --input baseline=ref
check_eq "publish at C1 exited $st" 0 "$st"
git checkout -q slow
GITHUB_API_URL=http://127.0.0.1:9 github slow --input baseline=ref --input github-token=tok \
	--github repository=o/r --input pr-number=7
[ "$st" = 1 ] || { cat "$TMP/slow/stderr"; fail "regression: the action exited $st, not 1"; }
grep -q "baseline: $C1.json from refs/perfgate/baselines" "$TMP/slow/stderr" ||
	fail "the published baseline of C1 was not used"
check_contains "stored: summary.md's first line" <(head -n 1 "$R/perfgate-out/summary.md") \
	'^> :warning: \*\*The two sides come from different runners\*\*: .*refs/perfgate/baselines'
check_contains "stored: the job summary's first line" <(head -n 1 "$TMP/slow/summary") \
	'The two sides come from different runners'
check_contains "unreachable API: a warning" "$TMP/slow/stdout" \
	'^::warning::perfgate: the comment was not posted (could not reach http://127.0.0.1:9'
check_contains "unreachable API: the check run" "$TMP/slow/stdout" \
	'^::warning::perfgate: the check run was not posted'
check_eq "regression: the exit-code output" 1 "$(output slow exit-code)"
check_eq "regression: result 'regression'" regression "$(output slow result)"
check_contains "compare step: exit 1" "$TMP/slow/stdout" '^step perfgate - compare: exit 1'
grep -q "^::error file=imgfilter.c,line=$BLUR,title=perfgate%3A blur_row" "$TMP/slow/stdout" ||
	fail "no ::error annotation for blur_row at imgfilter.c:$BLUR"
check_contains "a regression in the summary" "$TMP/slow/summary" ':x: perfgate: regression'
check_eq "regression: the check run is a failure" failure \
	"$(pgtest get "$R/perfgate-out/check.json" conclusion)"
check_eq "pr.json: the pull request" 7 "$(pgtest get "$R/perfgate-out/pr.json" number)"
grep -q "\`blur_row\` (imgfilter.c:$BLUR)" "$R/perfgate-out/summary.md" ||
	fail "blur_row missing from summary.md"
xmllint --noout --schema "$SRC/tests/data/JUnit.xsd" "$R/perfgate-out/junit.xml"
check_contains "a JUnit failure" "$R/perfgate-out/junit.xml" '<failure type="regression"'
# flame graphs: drawn when this perfgate can, and named in the summary only when they exist
arts=$(grep '^Artifacts: ' "$R/perfgate-out/summary.md")
for svg in flamegraph.svg diff-flamegraph.svg; do
	if [ -s "$R/perfgate-out/$svg" ]; then
		[[ $arts == *"\`$svg\`"* ]] || fail "summary does not name $svg: $arts"
	else
		[[ $arts != *"\`$svg\`"* ]] || fail "summary names a missing $svg: $arts"
	fi
done
if "$PERFGATE" flamegraph --help >/dev/null 2>&1; then
	check "perfgate can draw flame graphs: one drawn" test -s "$R/perfgate-out/flamegraph.svg"
	xmllint --noout "$R/perfgate-out/flamegraph.svg"
fi

# 3b. the default path: no functions or baseline input, on the slow change whose merge base
# C1 has a stored run. The merge base is recorded all the same, with perfgate's default budget,
# and the change traces its functions (--functions-of)
git checkout -q slow
github default --input functions=
[ "$st" -le 1 ] || { cat "$TMP/default/stderr"; fail "default path: the action exited $st"; }
check "default path: the stored run not used" not grep -q 'refs/perfgate' "$TMP/default/stderr"
check "default path: no note on different runners" \
	not grep -q 'different runners' "$R/perfgate-out/summary.md"
check_eq "default path: the baseline is C1's" "$C1" \
	"$(pgtest get "$R/perfgate-out/base.json" meta.git_commit)"
python3 - "$R/perfgate-out" <<'PY' || fail "default path: not the default budget and its set"
import sys, pgtest
base, run = (pgtest.load(sys.argv[1] + f) for f in ("/base.json", "/run.json"))
assert base["meta"]["options"]["budget_pct"] == 5, base["meta"]["options"]
assert run["meta"]["options"]["functions_of"] == sys.argv[1] + "/base.json", run["meta"]
assert pgtest.names(base) == pgtest.names(run), (pgtest.names(base), pgtest.names(run))
PY
check "default path: one ab session" ab_sides "$R/perfgate-out"

# ---- GitLab ----
# A fake GitLab API serving the default branch's artifact; it logs each request and its token.
mkdir -p "$TMP/www"
cat >"$TMP/server.py" <<'PY'
import http.server, os, sys
root, log = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.path, self.headers.get("JOB-TOKEN")))
        p = os.path.join(root, self.path.split("?")[0].lstrip("/"))
        if not os.path.isfile(p):
            self.send_error(404)
            return
        data = open(p, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.serve_forever()
PY
python3 "$TMP/server.py" "$TMP/www" "$TMP/requests" >"$TMP/port" &
SERVER=$!
ON_EXIT='kill $SERVER 2>/dev/null'	# lib.sh's exit handler runs it
for _ in $(seq 300); do [ -s "$TMP/port" ] && break; sleep 0.1; done	# polled: up to 30 s
PORT=$(cat "$TMP/port")

GL=(--var "PG_COMMAND=./imgfilter 3" --var "PG_BUILD=$BUILD" --var "PERFGATE=$PERFGATE"
    --var "PERFGATE_SRC=$SRC" --var PG_SKIP_DEPS=1 --var GITLAB_CI=true --var PG_MIN_EFFECT=50
    --var PG_COMPARE_ARGS=--raw --var "PG_FUNCTIONS=*_row"
    --var CI_DEFAULT_BRANCH=main --var CI_PROJECT_ID=7 --var CI_JOB_NAME=perfgate
    --var CI_JOB_TOKEN=tok123 --var "CI_PROJECT_DIR=$R"
    --var "CI_API_V4_URL=http://127.0.0.1:$PORT/api/v4")
gitlab() { # SCENARIO VARS...
	local s=$1
	shift
	rm -rf "$R/perfgate-out"
	st=0
	python3 "$CI" gitlab "$GITLAB" "${JOB:-.perfgate}" "$R" "${GL[@]}" "$@" \
		>"$TMP/gl-$s.log" 2>&1 ||
		st=$?
}

# 4. the default branch's pipeline keeps its run as the artifact
git checkout -q main
gitlab main --var CI_COMMIT_BRANCH=main
[ "$st" = 0 ] || { cat "$TMP/gl-main.log"; fail "gitlab main pipeline exited $st"; }
grep -qx 'PERFGATE_RESULT=published' "$R/perfgate-out/perfgate.env" || fail "gitlab: dotenv"
A=$TMP/www/api/v4/projects/7/jobs/artifacts/main/raw/perfgate-out
mkdir -p "$A"
cp "$R/perfgate-out/run.json" "$A/run.json"

# 5. a merge request with a regression that asks for the stored run (PG_BASELINE:
# gitlab-artifact): baseline from the artifact, job fails, the summary says first that the
# sides come from different runners. The pipeline's job extends .perfgate with its own
# before_script, which must not drop the setup
cat >"$TMP/pipeline.yml" <<YML
perfgate:
  extends: .perfgate
  before_script:
    - echo "own before_script" >"$TMP/own-before"
YML
GITLAB=$GITLAB,$TMP/pipeline.yml JOB=perfgate
git checkout -q slow
gitlab slow --var CI_COMMIT_BRANCH=slow --var CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
	--var CI_PIPELINE_SOURCE=merge_request_event --var "CI_MERGE_REQUEST_DIFF_BASE_SHA=$C1" \
	--var PG_BASELINE=gitlab-artifact
[ "$st" = 1 ] || { cat "$TMP/gl-slow.log"; fail "gitlab regression: exited $st, not 1"; }
check_contains "gitlab stored: summary.md's first line" <(head -n 1 "$R/perfgate-out/summary.md") \
	'different runners.*artifact of main'
check_contains "gitlab stored: the job log" "$TMP/gl-slow.log" 'different runners'
check "gitlab: the job's own before_script ran" test -s "$TMP/own-before"
check_contains "gitlab: setup with the job's own before_script" "$TMP/gl-slow.log" \
	'^perfgate [0-9]'
grep -q '^/api/v4/projects/7/jobs/artifacts/main/raw/perfgate-out/run.json?job=perfgate tok123$' \
	"$TMP/requests" || fail "gitlab: the artifact was not requested with the job token"
check_eq "gitlab: the baseline is the default branch's artifact" "$C2" \
	"$(pgtest get "$R/perfgate-out/base.json" meta.git_commit)"
grep -qx 'PERFGATE_RESULT=regression' "$R/perfgate-out/perfgate.env" || fail "gitlab: result"
grep -qx 'PERFGATE_EXIT_CODE=1' "$R/perfgate-out/perfgate.env" || fail "gitlab: exit code"
python3 - "${GITLAB%%,*}" "$R" <<'PY'
import os, sys, yaml
yaml.SafeLoader.add_constructor("!reference", lambda l, n: l.construct_sequence(n))
job = yaml.safe_load(open(sys.argv[1]))[".perfgate"]
assert job["script"][0] == [".perfgate_setup", "script"], job["script"]
assert "before_script" not in job, "the setup must not depend on before_script"
art = job["artifacts"]
assert art["when"] == "always" and art["expose_as"]
assert "perfgate-out/flamegraph.svg" in art["paths"]
assert art["reports"]["junit"] == "perfgate-out/junit.xml"
for p in [art["reports"]["junit"], art["reports"]["dotenv"], "perfgate-out/summary.md",
          "perfgate-out/run.json", "perfgate-out/compare.json"]:
    assert os.path.isfile(os.path.join(sys.argv[2], p)), p
PY

# 6. the default (PG_BASELINE: merge-base), with an artifact stored: the API is not asked, the
# merge base is recorded with --budget (PG_BUDGET), and the change traces its functions; a
# clean change passes
nreq=$(wc -l <"$TMP/requests")
git checkout -q clean
gitlab clean --var CI_COMMIT_BRANCH=clean --var CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
	--var PG_BUDGET=50
[ "$st" = 0 ] || { cat "$TMP/gl-clean.log"; fail "gitlab clean change: exited $st"; }
check_eq "gitlab default: the artifact API was asked" "$nreq" "$(wc -l <"$TMP/requests")"
check_eq "gitlab: the fallback baseline is the merge base" "$C1" \
	"$(pgtest get "$R/perfgate-out/base.json" meta.git_commit)"
grep -qx 'PERFGATE_EXIT_CODE=0' "$R/perfgate-out/perfgate.env" || fail "gitlab clean: exit code"
python3 - "$R/perfgate-out" <<'PY' || fail "gitlab: PG_BUDGET was not used"
import sys, pgtest
base, run = (pgtest.load(sys.argv[1] + f) for f in ("/base.json", "/run.json"))
assert base["meta"]["options"]["budget_pct"] == 50, base["meta"]["options"]
assert run["meta"]["options"]["functions_of"] == sys.argv[1] + "/base.json", run["meta"]
names = pgtest.names
assert names(base) == names(run) and set(names(run)) <= {"blur_row", "checksum_row", "fill_row",
                                                         "sharpen_row", "tone_row"}, \
    (names(base), names(run))
PY
check "gitlab fallback: one ab session" ab_sides "$R/perfgate-out"
echo "all CI template scenarios passed"
