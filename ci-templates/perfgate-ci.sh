#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci-templates/perfgate-ci.sh - the shell steps of perfgate's CI templates, shared by the GitHub
# composite action (action.yml at the repository's root) and the GitLab job
# (gitlab/perfgate.gitlab-ci.yml, and the component templates/perfgate.yml that extends it).
# docs/ci.md describes the whole flow; every setting is an environment variable:
#
#   PG_COMMAND      the benchmark command, shell words (required): "./bench --size 3"
#   PG_BUILD        command that builds the benchmark, run by bash in the tree (optional)
#   PG_FUNCTIONS    -f patterns, separated by spaces (optional: the default selection, which
#                   perfgate chooses within its default budget)
#   PG_BUDGET       record the baseline with --budget PCT (default: perfgate's 5% without
#                   PG_FUNCTIONS, none with them; "all": --all-functions, no budget). When a
#                   budget chose the baseline's functions, the change traces the same ones
#                   (record --functions-of base.json)
#   PG_REPETITIONS  repetitions per run (10)
#   PG_MIN_EFFECT   smallest slowdown that counts, percent (5)
#   PG_ALPHA        false discovery rate (0.05)
#   PG_COMPARE_ARGS more perfgate compare options, separated by spaces ("--metric total")
#   PG_BASELINE     what the change is compared with (merge-base):
#                     merge-base       build the merge base in a git worktree and record it with
#                                      the change in one perfgate ab session (with PG_AB), on
#                                      this runner: the default, whether or not a run is stored
#                     ref[:REF]        the stored RUN file <merge-base-sha>.json in the tree of git
#                                      ref REF (default refs/perfgate/baselines), from 'publish'
#                     file:PATH        a run file committed at PATH, read at the merge base
#                     gitlab-artifact  run.json of the default branch's latest perfgate job
#                   A stored run (ref, file, gitlab-artifact) is used only when asked for here;
#                   it comes from another runner, and the summary's first line says so. When none
#                   is found the merge base is recorded instead. record and auto are taken as
#                   merge-base
#   PG_AB           true (default): the merge base is recorded with the change in one
#                   interleaved session (perfgate ab: pairs of one repetition each, compared pair
#                   by pair); false: two recordings in a row
#   PG_MAX_REPS     perfgate ab's --max-reps: more pairs while undecided, up to this (20)
#   PG_BASE_REF     branch to merge into (GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME,
#                   CI_DEFAULT_BRANCH, else main)
#   PG_MODE         compare (pull/merge requests) or publish (default branch: record, keep the
#                   run file as the job's artifact (and in the ref with PG_BASELINE=ref[:REF]),
#                   add it to the history; never gated)
#   PG_OUT          output directory (perfgate-out)
#   PG_PUSH         publish pushes the baseline ref to origin (true)
#   PERFGATE        a perfgate binary to use; else built from PERFGATE_SRC (the perfgate tree)
#   PG_CACHE_DIR    a directory kept between jobs (the Actions cache, keyed by 'cache-key'):
#                   setup takes perfgate from it when it holds a build that runs, else builds and
#                   copies the build there, with the packages of the libraries it links
#   PG_SKIP_DEPS    1: do not install packages
#   BPFTOOL         the bpftool that builds perfgate's BPF skeletons (default: Debian's bpftool;
#                   on Ubuntu /usr/lib/linux-tools/$(uname -r)/bpftool, from the packages
#                   linux-tools-common and linux-tools-$(uname -r), which setup installs)
#   PG_OS_RELEASE   the os-release file that names the distribution (/etc/os-release); with
#   PG_LINUX_TOOLS (/usr/lib/linux-tools) and PG_BTF (/sys/kernel/btf/vmlinux), for tests
#   PG_HISTORY      a perfgate history database (docs/history.md): a SQLite file such as
#                   perfgate-out/perfgate-history.db, or a postgresql:// URI; empty (default):
#                   none. The history step adds the run to it in publish mode, and checks the
#                   change against it otherwise (perfgate history check, failing on a
#                   regression unless PG_HISTORY_GATE=false). Under GitLab a missing file is
#                   first fetched from the default branch's latest job's artifacts
#                   In publish mode with a SQLite file, the generation read when the file was
#                   restored is checked against the newest published copy before this job's is
#                   saved (history-save; under GitLab in the history step itself): when another
#                   publisher saved meanwhile, the run is added to that copy instead
#   PG_FAIL_ON_CHANGE  true: in publish mode, a regression change point that no earlier publish
#                   alerted on (perfgate history changes --alert-new exit 1) fails the job
#                   (default false: a warning). The change points, with a trend chart of the new
#                   ones, are shown in the job log and job summary
#   PG_PR_NUMBER, PG_HEAD_SHA  the pull request and its head commit, for the report step
#   PG_CHECK_NAME   the check run's name (perfgate)
#
# Steps: setup, baseline, record, compare (publish in publish mode), history (with PG_HISTORY),
# history-aside and history-save (GitHub, publish mode: before and after the newest published
# history is restored again), report (check.json and pr.json for
# ci-templates/github/feedback.py); cache-key prints the
# Actions cache key of this perfgate's build. Exit status: 0 pass, 1 regression (compare, or
# history with its gates), 2 error. With PG_AB the baseline step builds the merge base in a
# worktree, the record step records both in one perfgate ab session (which also compares and
# writes the reports), and the compare step reports its result; a stored baseline is compared
# with a recording of the change.
set -euo pipefail

say() { echo "perfgate-ci: $*" >&2; }
die() { say "error: $*"; exit 2; }

: "${PG_OUT:=perfgate-out}"
: "${PG_REPETITIONS:=10}"
: "${PG_MIN_EFFECT:=5}"
: "${PG_ALPHA:=0.05}"
: "${PG_BASELINE:=merge-base}"
: "${PG_MODE:=compare}"
: "${PG_PUSH:=true}"
: "${PG_FUNCTIONS:=}"
: "${PG_BUDGET:=}"
: "${PG_BUILD:=}"
: "${PG_COMPARE_ARGS:=}"
: "${PG_AB:=true}"
: "${PG_MAX_REPS:=20}"
: "${PG_FAIL_ON_CHANGE:=false}"
PG_OUT=$(realpath -m "$PG_OUT")
DEFAULT_REF=refs/perfgate/baselines

# Run as root (recording needs CAP_BPF and CAP_PERFMON): directly, or through sudo.
as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo -E "$@"; fi
}

# ci_output KEY VALUE: a step output (GitHub: GITHUB_OUTPUT; GitLab: the dotenv report
# $PG_OUT/perfgate.env as PERFGATE_KEY).
ci_output() {
	if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >>"$GITHUB_OUTPUT"; fi
	if [ -n "${GITLAB_CI:-}" ]; then
		local key=${1^^}
		echo "PERFGATE_${key//-/_}=$2" >>"$PG_OUT/perfgate.env"
	fi
}

perfgate() {
	[ -n "${PERFGATE:-}" ] || PERFGATE=${PERFGATE_SRC:?PERFGATE or PERFGATE_SRC must be set}/perfgate
	"$PERFGATE" "$@"
}

# The distribution, as os-release's ID (or lsb_release's): "ubuntu" for Ubuntu and its
# derivatives (ID_LIKE), else the ID in lower case ("debian"), "" when unknown.
distro() {
	local id="" like="" f=${PG_OS_RELEASE:-/etc/os-release}
	if [ -r "$f" ]; then
		# shellcheck disable=SC1090
		id=$(. "$f" && echo "${ID:-}")
		# shellcheck disable=SC1090
		like=$(. "$f" && echo "${ID_LIKE:-}")
	elif command -v lsb_release >/dev/null; then
		id=$(lsb_release -si 2>/dev/null || true)
	fi
	id=${id,,}
	case " $id $like " in
	*" ubuntu "*) echo ubuntu ;;
	*) echo "$id" ;;
	esac
}

# The packages and the bpftool of this distribution. Debian packages bpftool; Ubuntu's bpftool
# package is a wrapper (in linux-tools-common) that runs the copy in the running kernel's
# linux-tools-$(uname -r), and fails without it; 22.04 has no bpftool package at all. Sets
# BPFTOOL (unless given) and BPFTOOL_PKGS.
choose_bpftool() {
	local kver
	BPFTOOL_PKGS=bpftool
	if [ "$(distro)" = ubuntu ]; then
		kver=$(uname -r)
		BPFTOOL_PKGS="linux-tools-common linux-tools-$kver"
		: "${BPFTOOL:=${PG_LINUX_TOOLS:-/usr/lib/linux-tools}/$kver/bpftool}"
	fi
	: "${BPFTOOL:=bpftool}"
}

# What recording needs of the runner: root (directly or through sudo without a password), and
# the kernel's BTF (perfgate's BPF programs attach to BTF tracepoints). Linux 6.6 or later
# attaches every probe with one uprobe_multi link; older kernels take one link per probe.
check_runner() {
	local kver major minor
	if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
		die "recording needs root: run the job as root, or allow sudo without a password"
	fi
	if [ ! -r "${PG_BTF:-/sys/kernel/btf/vmlinux}" ]; then
		die "this kernel has no BTF (${PG_BTF:-/sys/kernel/btf/vmlinux}): perfgate cannot" \
			"load its BPF programs (a kernel built with CONFIG_DEBUG_INFO_BTF is needed)"
	fi
	kver=$(uname -r)
	IFS=. read -r major minor _ <<<"$kver"
	minor=${minor%%[!0-9]*}
	if [ "${major:-0}" -lt 6 ] 2>/dev/null ||
		{ [ "${major:-0}" = 6 ] && [ "${minor:-0}" -lt 6 ] 2>/dev/null; }; then
		say "warning: Linux $kver is older than 6.6: probes attach one at a time (slower)"
	fi
}

# The version of the perfgate tree SRC: its VERSION file, else core/version.h's.
src_version() {
	if [ -s "$1/VERSION" ]; then
		tr -d ' \n' <"$1/VERSION"
	else
		sed -n 's/^#define PERFGATE_VERSION "\(.*\)"$/\1/p' "$1/core/version.h" 2>/dev/null
	fi
}

# The Actions cache key of perfgate's build: its version and a digest of its sources (a tag
# moved to other code builds anew), and the runner image, whose libraries the binary links
# (GitHub's ImageOS and ImageVersion, else the distribution's release); the step outputs key
# and dir (where setup keeps the build: PG_CACHE_DIR).
cmd_cache_key() {
	local src=${PERFGATE_SRC:?PERFGATE_SRC must be set} ver img digest
	ver=$(src_version "$src")
	digest=$(cd "$src" && find . \( -path ./build -o -path ./.git -o -path ./tests \) -prune -o \
		-type f \( -name '*.[ch]' -o -name Makefile -o -name '*.py' \) -print | LC_ALL=C sort |
		xargs sha256sum | sha256sum | cut -c1-12)
	img=${ImageOS:-$(distro)}-${ImageVersion:-$(. "${PG_OS_RELEASE:-/etc/os-release}" 2>/dev/null &&
		echo "${VERSION_ID:-}")}-$(uname -m)
	local key=perfgate-${ver:-unknown}-$img-$digest dir=${RUNNER_TEMP:-/tmp}/perfgate-build
	if [ -n "${GITHUB_OUTPUT:-}" ]; then printf 'key=%s\ndir=%s\n' "$key" "$dir" >>"$GITHUB_OUTPUT"; fi
	echo "$key"
}

# perfgate from PG_CACHE_DIR when it holds a build that runs: the packages of the libraries it
# links are installed first (a runner image without them). Sets PERFGATE.
from_cache() {
	local pkgs=()
	[ -n "${PG_CACHE_DIR:-}" ] && [ -x "$PG_CACHE_DIR/perfgate" ] || return 1
	if [ "${PG_SKIP_DEPS:-0}" != 1 ] && [ -s "$PG_CACHE_DIR/packages" ]; then
		read -ra pkgs <<<"$(xargs <"$PG_CACHE_DIR/packages")"
		if ! dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
			say "installing the libraries of the cached perfgate: ${pkgs[*]}"
			as_root apt-get update -q >&2 && as_root apt-get install -y -q "${pkgs[@]}" >&2 ||
				say "warning: could not install ${pkgs[*]}"
		fi
	fi
	if ! "$PG_CACHE_DIR/perfgate" version >/dev/null 2>&1; then
		say "warning: the cached perfgate in $PG_CACHE_DIR does not run: building it"
		return 1
	fi
	PERFGATE=$PG_CACHE_DIR/perfgate
	say "perfgate from the cache ($PG_CACHE_DIR)"
}

# Copy the build into PG_CACHE_DIR with the packages of the libraries it links.
to_cache() {
	[ -n "${PG_CACHE_DIR:-}" ] || return 0
	mkdir -p "$PG_CACHE_DIR"
	cp "$PERFGATE" "$PG_CACHE_DIR/perfgate"
	if [ -f "$PERFGATE_SRC/build/libperfgate-preload.so" ]; then
		cp "$PERFGATE_SRC/build/libperfgate-preload.so" "$PG_CACHE_DIR/"
	fi
	{ ldd "$PERFGATE" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
		xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | LC_ALL=C sort -u; } \
		>"$PG_CACHE_DIR/packages" || true
	say "perfgate's build copied to $PG_CACHE_DIR for the cache"
}

# Build perfgate from PERFGATE_SRC (its build dependencies first, unless PG_SKIP_DEPS=1).
build_perfgate() {
	[ -n "${PERFGATE_SRC:-}" ] || die "set PERFGATE (a binary) or PERFGATE_SRC (its tree)"
	choose_bpftool
	if [ "${PG_SKIP_DEPS:-0}" != 1 ]; then
		say "installing the build dependencies ($(distro); bpftool: $BPFTOOL)"
		as_root make -C "$PERFGATE_SRC" deps-build BPFTOOL_DEBIAN="$BPFTOOL_PKGS" >&2
	fi
	"$BPFTOOL" version >/dev/null 2>&1 ||
		die "bpftool ($BPFTOOL) does not run: install it, or set BPFTOOL (the action's" \
			"bpftool input)"
	# all: perfgate and the library its C++ exception fix preloads (docs/recording.md)
	make -C "$PERFGATE_SRC" -j"$(nproc)" all BPFTOOL="$BPFTOOL" >&2
	PERFGATE=$(realpath "$PERFGATE_SRC/perfgate")
	to_cache
}

cmd_setup() {
	[ -n "${PG_COMMAND:-}" ] || die "PG_COMMAND (the benchmark command) is empty"
	case "$PG_MODE" in compare | publish) ;; *) die "PG_MODE must be compare or publish" ;; esac
	check_runner
	if [ -n "${PERFGATE:-}" ]; then
		[ -x "$PERFGATE" ] || die "PERFGATE=$PERFGATE is not an executable"
	elif ! from_cache; then
		build_perfgate
	fi
	perfgate version >&2
	# later steps of a GitHub composite action see the settings through GITHUB_ENV
	if [ -n "${GITHUB_ENV:-}" ]; then
		local v delim
		for v in PERFGATE PG_COMMAND PG_BUILD PG_FUNCTIONS PG_BUDGET PG_REPETITIONS PG_MIN_EFFECT \
			PG_ALPHA PG_COMPARE_ARGS PG_BASELINE PG_BASE_REF PG_MODE PG_OUT PG_PUSH PG_AB \
			PG_MAX_REPS PG_FAIL_ON_CHANGE PG_PR_NUMBER PG_HEAD_SHA PG_CHECK_NAME; do
			delim=PG_EOF_$RANDOM$RANDOM$RANDOM
			printf '%s<<%s\n%s\n%s\n' "$v" "$delim" "${!v:-}" "$delim" >>"$GITHUB_ENV"
		done
	fi
	mkdir -p "$PG_OUT"
	ci_output perfgate "$PERFGATE"
}

# The commit the change is measured against: the merge base of HEAD and the target branch,
# not HEAD~1 (whose own changes, or the target's newer commits, would be mixed in).
merge_base() {
	local ref=${PG_BASE_REF:-${GITHUB_BASE_REF:-${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-}}}
	local mb=""

	ref=${ref:-${CI_DEFAULT_BRANCH:-main}}
	if [ -n "${CI_MERGE_REQUEST_DIFF_BASE_SHA:-}" ]; then
		echo "$CI_MERGE_REQUEST_DIFF_BASE_SHA"
		return
	fi
	if git remote get-url origin >/dev/null 2>&1; then
		if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
			git fetch --quiet --unshallow origin >&2 || true
		fi
		git fetch --quiet origin "+refs/heads/$ref:refs/remotes/origin/$ref" >&2 || true
	fi
	for cand in "origin/$ref" "$ref"; do
		if mb=$(git merge-base HEAD "$cand" 2>/dev/null); then
			say "merge base of HEAD and $cand: $mb"
			echo "$mb"
			return
		fi
	done
	die "no merge base of HEAD and $ref (a shallow clone? check out with fetch-depth: 0)"
}

# record_in DIR OUT [OPTIONS...]: build (PG_BUILD) and record (PG_COMMAND) in DIR into OUT,
# with more record OPTIONS (--budget, or --functions-of, which replaces PG_FUNCTIONS).
record_in() {
	local dir=$1 out=$2 words=() fns=() fargs=() extra=("${@:3}")
	(
		cd "$dir"
		if [ -n "$PG_BUILD" ]; then
			say "building in $dir: $PG_BUILD"
			bash -eo pipefail -c "$PG_BUILD" >&2
		fi
		# the command is the pipeline author's own shell words: quotes are honoured
		eval "words=($PG_COMMAND)"
		read -ra fns <<<"$PG_FUNCTIONS"
		if [ "${extra[0]:-}" != --functions-of ]; then
			for f in "${fns[@]}"; do fargs+=(-f "$f"); done
		fi
		say "recording $PG_REPETITIONS repetitions of '$PG_COMMAND' in $dir"
		as_root "$PERFGATE" record -q -o "$out" -r "$PG_REPETITIONS" "${fargs[@]}" \
			"${extra[@]}" -- "${words[@]}" >&2
	)
}

# budget_args: the record options of PG_BUDGET (none: perfgate's default)
budget_args() {
	case "$PG_BUDGET" in
	'') ;;
	all) [ -n "$PG_FUNCTIONS" ] || echo --all-functions ;;
	*) echo --budget "$PG_BUDGET" ;;
	esac
}

# budget_chose: did a budget choose the baseline's functions (PG_BUDGET, or the default)?
budget_chose() {
	[ "$PG_BUDGET" != all ] && { [ -n "$PG_BUDGET" ] || [ -z "$PG_FUNCTIONS" ]; }
}

record_at() { # COMMIT OUT
	local wt
	wt=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfgate-base.XXXXXX")
	git worktree add --quiet --detach "$wt" "$1" >&2
	if ! record_in "$wt" "$2" $(budget_args); then
		git worktree remove --force "$wt" || true
		die "could not record the baseline at $1"
	fi
	git worktree remove --force "$wt"
	rm -rf "$wt"
}

# The merge base to record: with PG_AB, built in a worktree now and recorded with the change
# by the record step (its path in $PG_OUT/.ab-worktree); else recorded here.
base_at() { # COMMIT OUT
	local wt
	if [ "$PG_AB" != true ]; then
		record_at "$@"
		return
	fi
	wt=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfgate-base.XXXXXX")
	git worktree add --quiet --detach "$wt" "$1" >&2
	if [ -n "$PG_BUILD" ] && ! (cd "$wt" && say "building in $wt: $PG_BUILD" &&
		bash -eo pipefail -c "$PG_BUILD" >&2); then
		git worktree remove --force "$wt" || true
		die "could not build the baseline at $1"
	fi
	echo "$wt" >"$PG_OUT/.ab-worktree"
	say "the merge base $1 is built in $wt: the record step records it with the change"
}

# The record step of PG_AB: build the change, then perfgate ab of the merge base's build (the
# command's program taken from the worktree) and the change's, in the change's directory.
# Its exit status goes to $PG_OUT/.ab-status for the compare step.
record_ab() {
	local wt status=0 words=() fns=() fargs=() cargs=() bcmd ncmd w
	wt=$(cat "$PG_OUT/.ab-worktree")
	rm -f "$PG_OUT/.ab-worktree" "$PG_OUT/.ab-status"
	if [ -n "$PG_BUILD" ]; then
		say "building in $PWD: $PG_BUILD"
		bash -eo pipefail -c "$PG_BUILD" >&2
	fi
	# the command is the pipeline author's own shell words: quotes are honoured
	eval "words=($PG_COMMAND)"
	case "${words[0]}" in
	/*) say "warning: '${words[0]}' is an absolute path: both sides run the same program" ;;
	*/*) bcmd=$(printf '%q' "$wt/${words[0]#./}") ;;
	*) say "warning: '${words[0]}' is found on PATH: both sides run the same program" ;;
	esac
	bcmd=${bcmd:-$(printf '%q' "${words[0]}")}
	ncmd=$(printf '%q' "${words[0]}")
	for w in "${words[@]:1}"; do
		bcmd+=" $(printf '%q' "$w")"
		ncmd+=" $(printf '%q' "$w")"
	done
	read -ra fns <<<"$PG_FUNCTIONS"
	for f in "${fns[@]}"; do fargs+=(-f "$f"); done
	read -ra cargs <<<"$PG_COMPARE_ARGS"
	if perfgate flamegraph --help >/dev/null 2>&1; then
		cargs+=(--artifact "$PG_OUT/flamegraph.svg" --flamegraph "$PG_OUT/diff-flamegraph.svg")
	fi
	say "recording '$PG_COMMAND' at the merge base ($wt) and here, interleaved"
	as_root "$PERFGATE" ab -q -o "$PG_OUT" -r "$PG_REPETITIONS" --max-reps "$PG_MAX_REPS" \
		"${fargs[@]}" $(budget_args) --min-effect "$PG_MIN_EFFECT" --alpha "$PG_ALPHA" \
		--junit "$PG_OUT/junit.xml" --markdown "$PG_OUT/summary.md" $(codequality_args ab) \
		"${cargs[@]}" "$bcmd" "$ncmd" || status=$?
	git worktree remove --force "$wt" || true
	rm -rf "$wt"
	[ "$status" != 2 ] || die "perfgate ab could not record or compare (see above)"
	mv "$PG_OUT/new.json" "$PG_OUT/run.json"
	if perfgate flamegraph --help >/dev/null 2>&1 &&
		! perfgate flamegraph "$PG_OUT/run.json" -o "$PG_OUT/flamegraph.svg" >&2; then
		say "no flame graph (see above)"
	fi
	echo "$status" >"$PG_OUT/.ab-status"
}

from_ref() { # REF COMMIT OUT
	if git remote get-url origin >/dev/null 2>&1; then
		git fetch --quiet origin "+$1:$1" >&2 2>/dev/null || true
	fi
	git rev-parse -q --verify "$1:$2.json" >/dev/null || return 1
	git show "$1:$2.json" >"$3.tmp" && mv "$3.tmp" "$3"
	say "baseline: $2.json from $1"
}

from_gitlab() { # OUT
	local url
	[ -n "${CI_API_V4_URL:-}" ] && [ -n "${CI_PROJECT_ID:-}" ] || return 1
	url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/${CI_DEFAULT_BRANCH:-main}"
	url+="/raw/${PG_ARTIFACT_PATH:-perfgate-out/run.json}"
	url+="?job=${PG_BASELINE_JOB:-${CI_JOB_NAME:-perfgate}}"
	if ! curl --fail --silent --show-error --location --header "JOB-TOKEN: ${CI_JOB_TOKEN:-}" \
		--output "$1.tmp" "$url"; then
		rm -f "$1.tmp"
		return 1
	fi
	mv "$1.tmp" "$1"
	say "baseline: the latest run of ${CI_DEFAULT_BRANCH:-main} ($url)"
}

# stored_as DESCRIPTION: the baseline is a stored run (for the compare step's first line)
stored_as() {
	echo "$1" >"$PG_OUT/.stored"
}

cmd_baseline() {
	local mb base=$PG_OUT/base.json what
	mkdir -p "$PG_OUT"
	rm -f "$base" "$PG_OUT/.stored"
	if [ "$PG_MODE" = publish ]; then
		say "publish mode: no baseline needed"
		return
	fi
	mb=$(merge_base)
	ci_output merge-base "$mb"
	case "$PG_BASELINE" in
	merge-base | record) ;;
	auto)
		say "PG_BASELINE=auto is merge-base: a stored run is used only when asked for" \
			"(ref, file:PATH, gitlab-artifact)"
		;;
	ref | ref:*)
		local ref=${PG_BASELINE#ref}
		ref=${ref#:}
		ref=${ref:-$DEFAULT_REF}
		from_ref "$ref" "$mb" "$base" && stored_as "$mb.json in $ref"
		;;
	file:*)
		what=${PG_BASELINE#file:}
		if git show "$mb:$what" >"$base.tmp" 2>/dev/null; then
			mv "$base.tmp" "$base"
			stored_as "$what at $mb"
		else
			rm -f "$base.tmp"
			say "no $what at the merge base $mb"
		fi
		;;
	gitlab-artifact)
		from_gitlab "$base" && stored_as "the latest run.json artifact of ${CI_DEFAULT_BRANCH:-main}"
		;;
	*) die "unknown PG_BASELINE '$PG_BASELINE' (merge-base, ref[:REF], file:PATH," \
		"gitlab-artifact)" ;;
	esac
	if [ ! -f "$base" ]; then
		case "$PG_BASELINE" in
		merge-base | record | auto) ;;
		*) say "warning: no stored baseline ($PG_BASELINE) for $mb: recording the merge base" ;;
		esac
		base_at "$mb" "$base"
	fi
}

cmd_record() {
	local extra=()
	mkdir -p "$PG_OUT"
	if [ "$PG_MODE" != publish ] && [ -s "$PG_OUT/.ab-worktree" ]; then
		record_ab
		ci_output run "$PG_OUT/run.json"
		return
	fi
	# when a budget chose the baseline's functions, the change traces the same ones, or
	# compare could not judge callers whose traced callees differ
	if budget_chose && [ "$PG_MODE" != publish ] && [ -s "$PG_OUT/base.json" ]; then
		extra=(--functions-of "$PG_OUT/base.json")
	else
		read -ra extra <<<"$(budget_args)"
	fi
	record_in "$PWD" "$PG_OUT/run.json" "${extra[@]}"
	ci_output run "$PG_OUT/run.json"
}

# Store the run as the baseline of HEAD: a file <sha>.json in the tree of $PG_BASELINE_REF
# (a ref outside refs/heads: no branch to check out, fetched only on purpose).
# Without PG_BASELINE=ref[:REF] the run file is published as the job's artifact only.
cmd_publish() {
	local ref=${PG_BASELINE#ref:} sha blob parent tree commit idx
	if [[ $PG_BASELINE != ref && $PG_BASELINE != ref:* ]]; then
		say "published: $PG_OUT/run.json is this job's artifact (and the history's, with" \
			"PG_HISTORY); merge requests record their merge base"
		ci_output result published
		ci_output exit-code 0
		return
	fi
	[[ $PG_BASELINE == ref:* ]] || ref=$DEFAULT_REF
	# build on the remote's baselines, not on a stale or missing local copy
	if git remote get-url origin >/dev/null 2>&1; then
		git fetch --quiet origin "+$ref:$ref" >&2 2>/dev/null || true
	fi
	sha=$(git rev-parse HEAD)
	blob=$(git hash-object -w "$PG_OUT/run.json")
	idx=$(mktemp)
	rm -f "$idx"
	parent=$(git rev-parse -q --verify "$ref^{commit}" || true)
	if [ -n "$parent" ]; then GIT_INDEX_FILE=$idx git read-tree "$parent"; fi
	GIT_INDEX_FILE=$idx git update-index --add --cacheinfo "100644,$blob,$sha.json"
	tree=$(GIT_INDEX_FILE=$idx git write-tree)
	rm -f "$idx"
	commit=$(GIT_AUTHOR_NAME=perfgate GIT_AUTHOR_EMAIL=perfgate@localhost \
		GIT_COMMITTER_NAME=perfgate GIT_COMMITTER_EMAIL=perfgate@localhost \
		git commit-tree "$tree" ${parent:+-p "$parent"} -m "perfgate baseline for $sha")
	git update-ref "$ref" "$commit"
	say "stored the baseline of $sha in $ref"
	# a lost race with another publish only costs later changes a recording: not an error
	if [ "$PG_PUSH" = true ] && git remote get-url origin >/dev/null 2>&1 &&
		! git push --quiet origin "$ref:$ref" >&2; then
		say "warning: could not push $ref; changes based on $sha will record their baseline"
	fi
	ci_output result published
	ci_output exit-code 0
}

cmd_compare() {
	local base=$PG_OUT/base.json run=$PG_OUT/run.json status=0 result extra=() args=()
	if [ "$PG_MODE" = publish ]; then
		cmd_publish
		return
	fi
	if [ -f "$PG_OUT/.ab-status" ]; then	# perfgate ab compared them: its result
		status=$(cat "$PG_OUT/.ab-status")
		rm -f "$PG_OUT/.ab-status"
		report_result "$status"
		return "$status"
	fi
	[ -f "$base" ] || die "no baseline ($base): run the baseline step first"
	[ -f "$run" ] || die "no run ($run): run the record step first"
	# flame graphs, when this perfgate can draw them and both runs have sampled stacks (a
	# missing flame graph never fails the gate); the summary names the files that exist
	if perfgate flamegraph --help >/dev/null 2>&1; then
		if perfgate flamegraph "$run" -o "$PG_OUT/flamegraph.svg" >&2; then
			extra+=(--artifact "$PG_OUT/flamegraph.svg")
			if perfgate flamegraph "$base" -o "$PG_OUT/base-flamegraph.svg" >&2 &&
				perfgate compare --help 2>/dev/null | grep -q -- '--flamegraph'; then
				extra+=(--flamegraph "$PG_OUT/diff-flamegraph.svg")
			fi
		else
			say "no flame graph (see above)"
		fi
	fi
	read -ra args <<<"$PG_COMPARE_ARGS"
	[ ! -f "$PG_OUT/.stored" ] || different_runners "$(cat "$PG_OUT/.stored")" >"$PG_OUT/.note"
	if [ -s "$PG_OUT/.note" ]; then
		say "$(cat "$PG_OUT/.note")"
		# compare appends its summary to the job summary: the note goes first
		if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
			cat "$PG_OUT/.note" >>"$GITHUB_STEP_SUMMARY"
			echo >>"$GITHUB_STEP_SUMMARY"
		fi
	fi
	perfgate compare "$base" "$run" --min-effect "$PG_MIN_EFFECT" --alpha "$PG_ALPHA" \
		--junit "$PG_OUT/junit.xml" --json "$PG_OUT/compare.json" \
		--markdown "$PG_OUT/summary.md" $(codequality_args compare) "${args[@]}" "${extra[@]}" ||
		status=$?
	if [ -s "$PG_OUT/.note" ] && [ -f "$PG_OUT/summary.md" ]; then
		{ cat "$PG_OUT/.note" && echo && cat "$PG_OUT/summary.md"; } >"$PG_OUT/summary.md.tmp"
		mv "$PG_OUT/summary.md.tmp" "$PG_OUT/summary.md"
	fi
	rm -f "$PG_OUT/.note" "$PG_OUT/.stored"
	report_result "$status"
	return "$status"
}

# different_runners WHAT: the first line of a comparison with a stored run, which names the
# two sides' machines: runners differ in CPU, kernel and load, and so do their timings.
different_runners() {
	python3 - "$1" "$PG_OUT/base.json" "$PG_OUT/run.json" <<'PY'
import json, sys
def side(path):
    try:
        m = json.load(open(path)).get("meta", {})
    except (OSError, ValueError):
        return "unknown"
    return ", ".join(str(m.get(k) or "?") for k in ("host", "cpu_model", "kernel", "start_time"))
print("> :warning: **The two sides come from different runners**: the baseline is a stored run "
      "(%s; %s), the change was recorded in this job (%s). A difference between the runners "
      "reads as a change of the code; the default flow (PG_BASELINE=merge-base) records both "
      "sides in one perfgate ab session on one runner." % (sys.argv[1], side(sys.argv[2]),
                                                         side(sys.argv[3])))
PY
}

# codequality_args SUBCOMMAND: a GitLab Code Quality report, when this perfgate writes one
codequality_args() {
	if perfgate "$1" --help 2>/dev/null | grep -q -- '--codequality'; then
		echo --codequality "$PG_OUT/codequality.json"
	fi
}

# The step outputs of a comparison that exited STATUS (its result in compare.json).
report_result() {
	local status=$1 result=error
	if [ -f "$PG_OUT/compare.json" ] && [ "$status" != 2 ]; then
		result=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["overall"])' \
			"$PG_OUT/compare.json")
	fi
	ci_output result "$result"
	ci_output exit-code "$status"
	ci_output summary "$PG_OUT/summary.md"
	say "result: $result (exit status $status)"
}

# The history database from the default branch's latest job (GitLab artifacts), if any.
history_from_gitlab() {
	local url
	[ -n "${GITLAB_CI:-}" ] && [ -n "${CI_API_V4_URL:-}" ] && [ -n "${CI_PROJECT_ID:-}" ] ||
		return 0
	url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/${CI_DEFAULT_BRANCH:-main}"
	url+="/raw/$PG_HISTORY?job=${PG_BASELINE_JOB:-${CI_JOB_NAME:-perfgate}}"
	if curl --fail --silent --location --header "JOB-TOKEN: ${CI_JOB_TOKEN:-}" \
		--output "$PG_HISTORY.tmp" "$url"; then
		mv "$PG_HISTORY.tmp" "$PG_HISTORY"
		say "history: $PG_HISTORY from ${CI_DEFAULT_BRANCH:-main}'s latest job"
	else
		rm -f "$PG_HISTORY.tmp"
	fi
}

# history_changes BRANCH: the change points of the history, in the job log (with a sparkline of
# each new one), the job summary (GitHub: Markdown with a trend chart of each new one) and
# history-changes.txt and .md; a regression change point that no earlier publish alerted on
# fails the job with PG_FAIL_ON_CHANGE=true, else is a warning.
history_changes() {
	local status=0 txt=$PG_OUT/history-changes.txt md=$PG_OUT/history-changes.md
	perfgate history changes --db "$PG_HISTORY" --branch "$1" --alert-new --markdown "$md" \
		--json "$PG_OUT/history-changes.json" >"$txt" || status=$?
	[ "$status" != 2 ] || return 2
	say "history changes on $1 (exit status $status):"
	cat "$txt" >&2
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		{ cat "$md" && echo; } >>"$GITHUB_STEP_SUMMARY"
	fi
	ci_output history-changes-exit-code "$status"
	[ "$status" = 1 ] || return 0
	if [ "$PG_FAIL_ON_CHANGE" = true ]; then
		say "error: a new regression change point (the trend above; fail-on-change is true)"
		return 1
	fi
	say "warning: a new regression change point (the trend above; set PG_FAIL_ON_CHANGE," \
		"the fail-on-change input, to true to fail the job on it)"
}

# history_file: is PG_HISTORY a file (copied between jobs), not a PostgreSQL URI?
history_file() {
	[[ $PG_HISTORY != postgres://* && $PG_HISTORY != postgresql://* ]]
}

# history_generation DB: the database's generation (perfgate history last), "none" when the
# file is missing.
history_generation() {
	local out
	if [[ $1 != postgres* ]] && [ ! -s "$1" ]; then
		echo none
		return
	fi
	out=$(perfgate history last --db "$1") || return 2
	sed -n 's/^generation=//p' <<<"$out"
}

# history_add GENERATION BRANCH: add the run of HEAD to PG_HISTORY if it is still at GENERATION
# ("none": a new file).
history_add() {
	local expect=()
	[ "$1" = none ] || expect=(--expect-generation "$1")
	perfgate history add "$PG_OUT/run.json" --db "$PG_HISTORY" --commit "$(git rev-parse HEAD)" \
		--branch "$2" "${expect[@]}"
}

# history_reconcile OURS BRANCH: PG_HISTORY is the newest published copy of the history, just
# restored again (missing: none), OURS this job's copy, restored at the generation in
# $PG_OUT/.history-generation and with the run added. When no other publisher saved since,
# OURS becomes PG_HISTORY; when one did, this job's run is added to that newer copy instead
# (once: the save follows at once) and its change points listed again; PG_HISTORY is what to
# save (the step output history-saved=true). Fails with one line (and PG_HISTORY removed, this
# job's copy kept as perfgate-history-not-saved.db) when the run cannot be added to it.
history_reconcile() {
	local ours=$1 branch=$2 base now
	base=$(cat "$PG_OUT/.history-generation" 2>/dev/null || echo none)
	now=$(history_generation "$PG_HISTORY") || now=unreadable
	if [ "$now" = "$base" ] || [ "$now" = none ]; then
		[ "$now" = "$base" ] || say "warning: no published history to check against (it" \
			"was removed since this job restored it): saving this job's"
		mv "$ours" "$PG_HISTORY"
		ci_output history-saved true
		return 0
	fi
	say "history: another publisher saved the history since this job restored it (generation" \
		"$base, now $now): adding this job's run to that copy instead"
	if [ "$now" = unreadable ] || ! history_add "$now" "$branch"; then
		rm -f "$PG_HISTORY"
		mv "$ours" "$PG_OUT/perfgate-history-not-saved.db"
		die "history: another publisher saved the history (generation $base, now $now) and" \
			"this job's run could not be added to that copy: nothing saved; re-run this job" \
			"to add its run"
	fi
	rm -f "$ours"
	echo "$now" >"$PG_OUT/.history-generation"
	ci_output history-saved true
	history_changes "$branch"
}

# Publish mode: add the run to the history (at the generation restored) and list its change
# points. Otherwise: perfgate history check of the run against the stored sessions. Under
# GitLab, a published copy is fetched again before the job's is kept (history_reconcile).
cmd_history() {
	local run=$PG_OUT/run.json status=0 args=() branch=${PG_BASE_REF:-main} gen
	[ -n "${PG_HISTORY:-}" ] || return 0
	rm -f "$PG_OUT/.history-added"
	[ -f "$run" ] || die "no run ($run): run the record step first"
	if history_file; then
		mkdir -p "$(dirname "$PG_HISTORY")"
		[ -e "$PG_HISTORY" ] || history_from_gitlab
	fi
	if [ "$PG_MODE" = publish ]; then
		gen=$(history_generation "$PG_HISTORY") || return 2
		echo "$gen" >"$PG_OUT/.history-generation"
		history_add "$gen" "$branch" || return 2
		touch "$PG_OUT/.history-added"
		history_changes "$branch" || status=$?
		if [ -n "${GITLAB_CI:-}" ] && history_file; then
			mv "$PG_HISTORY" "$PG_OUT/.history-ours.db"
			history_from_gitlab
			history_reconcile "$PG_OUT/.history-ours.db" "$branch" || return $?
		fi
		return "$status"
	fi
	if history_file && [ ! -s "$PG_HISTORY" ]; then
		say "history: none yet at $PG_HISTORY (publish on $branch adds runs)"
		return 0
	fi
	read -ra args <<<"$PG_COMPARE_ARGS"
	perfgate history check "$run" --db "$PG_HISTORY" --branch "$branch" \
		--min-effect "$PG_MIN_EFFECT" --alpha "$PG_ALPHA" --json "$PG_OUT/history-check.json" \
		--junit "$PG_OUT/history-junit.xml" --markdown "$PG_OUT/history-summary.md" \
		"${args[@]}" || status=$?
	ci_output history-exit-code "$status"
	say "history check: exit status $status"
	if [ "$status" = 1 ] && [ "${PG_HISTORY_GATE:-true}" != true ]; then
		status=0
	fi
	return "$status"
}

# GitHub, publish mode, after the history step: this job's history, when the run was added to
# it, set aside (the step output aside=true), so that the newest published copy can be
# restored again at its path (the Actions cache restores an entry only to the path it was
# saved from).
cmd_history_aside() {
	[ "$PG_MODE" = publish ] && [ -n "${PG_HISTORY:-}" ] && history_file || return 0
	if [ ! -f "$PG_OUT/.history-added" ] || [ ! -f "$PG_HISTORY" ]; then
		say "history: the run was not added (above): nothing to save"
		return 0
	fi
	mv "$PG_HISTORY" "$PG_OUT/.history-ours.db"
	ci_output aside true
}

# GitHub, publish mode, once the newest published copy is restored again: what to save
# (history_reconcile).
cmd_history_save() {
	[ "$PG_MODE" = publish ] && [ -n "${PG_HISTORY:-}" ] && history_file || return 0
	[ -f "$PG_OUT/.history-ours.db" ] || die "no history set aside (the history-aside step)"
	history_reconcile "$PG_OUT/.history-ours.db" "${PG_BASE_REF:-main}"
}

# The feedback of a comparison, for ci-templates/github/feedback.py in this job or in a later
# workflow (the fork recipe, docs/ci.md): check.json (perfgate vote --system github, with the
# pull request's head) and pr.json (the pull request, its head, the job's run). Never fails:
# the verdict is the compare step's.
cmd_report() {
	local name=${PG_CHECK_NAME:-perfgate}
	[ "$PG_MODE" = compare ] || return 0
	mkdir -p "$PG_OUT"
	perfgate vote "$PG_OUT/compare.json" --system github --missing-ok --label "$name" \
		-o "$PG_OUT/check.json" >&2 || say "warning: no check run (perfgate vote failed)"
	python3 - "$PG_OUT/pr.json" <<'PY' || say "warning: could not write pr.json"
import json, os, sys
e = os.environ.get
run = "%s/%s/actions/runs/%s" % (e("GITHUB_SERVER_URL", "https://github.com"),
                                 e("GITHUB_REPOSITORY", ""), e("GITHUB_RUN_ID", ""))
pr = {"number": e("PG_PR_NUMBER", ""), "head_sha": e("PG_HEAD_SHA", ""),
      "repository": e("GITHUB_REPOSITORY", ""), "check_name": e("PG_CHECK_NAME") or "perfgate",
      "run_url": run if e("GITHUB_RUN_ID") else ""}
with open(sys.argv[1] + ".tmp", "w") as f:
    json.dump(pr, f)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
PY
}

case "${1:-}" in
setup | baseline | record | compare | publish | history | report) "cmd_$1" ;;
history-aside | history-save) "cmd_${1//-/_}" ;;
cache-key) cmd_cache_key ;;
*) die "usage: $0 setup|baseline|record|compare|publish|history|history-aside|history-save|" \
	"report|cache-key" ;;
esac
