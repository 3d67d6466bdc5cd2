#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/check-style.sh - the mechanical part of the project's style, checked on every source
# file (`make check-style`; tests/e2e/test_style.sh runs it in `make check`).
#
# The files: those git tracks or would track (not ignored) under ROOT, or, outside a git
# checkout (a release tarball), every file under it but the build directories. Of them:
#   sources   *.c *.h *.cc (C, C++, the BPF program), *.sh *.py *.js *.cjs *.css, the Makefile
#             and any other file that starts with "#!" (.ci/run); not the test data, the fuzz
#             inputs and dictionaries, YAML, JSON or Markdown
#   C         *.c *.h *.cc
# The rules:
#   - a C line is at most 100 columns, a tab counting to the next multiple of 8 (the kernel's
#     checkpatch rule; a UTF-8 character is one column)
#   - a source file has an SPDX-License-Identifier line in its first two lines (the second
#     when the first is "#!")
#   - a comment cites no tracker: a comment explains the code, it does not point at an issue
#     that is not in the repository. Matched case-insensitively in the text of comments (C and
#     JS: /* */ and //; the others: # outside quotes, and Python's docstrings), with string
#     literals left out:
#       issue|ticket|task|bug, singular or plural, then a number, '#' or a space between
#                             ("issue N", "Issues #N", "taskN" for a number N)
#       #N on its own         after a space, '(' '[' ',' ';' or the comment's start ("#N",
#                             "(#N)"); not NAME#N, "#N" in quotes, or &#N;
#       session #N            with the '#', or "(session N)" alone in parentheses: the word is
#                             perfgate's own (history and ab sessions), and "at session N" is
#                             text; so are "round N" and "step N" (tests/flaky.sh's rounds,
#                             the recorder's steps: runner/session/recorder.h)
# Prints one line per violation, "FILE:LINE: what", and exits 1 if there is any, 0 otherwise,
# 2 on bad usage.
# Usage: tests/check-style.sh [ROOT]   (ROOT: the source tree, default the repository)
set -u
[ $# -le 1 ] || { echo "usage: $0 [ROOT]" >&2; exit 2; }
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
export LC_ALL=C

list_files() {
	if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
		git ls-files --cached --others --exclude-standard
	else
		find . \( -name .git -o -name 'build' -o -name 'build-*' \) -prune -o -type f -print |
			sed 's|^\./||'
	fi
}

is_source() { # PATH -> 0 when PATH is a source file (above)
	case $1 in
	tests/data/* | tests/fuzz/regressions/* | tests/fuzz/corpus/*) return 1 ;;
	*.c | *.h | *.cc | *.sh | *.py | *.js | *.cjs | *.css | Makefile) return 0 ;;
	esac
	[ "$(head -c 2 "$1" 2>/dev/null)" = '#!' ]
}

sources=()
while IFS= read -r f; do
	[ -f "$f" ] && is_source "$f" && sources+=("$f")
done < <(list_files | sort -u)
[ ${#sources[@]} -gt 0 ] || { echo "$0: no source files under $root" >&2; exit 2; }

# one awk over all the files (xargs may split them: any run that fails fails the check), the
# violations sorted by file and line
printf '%s\n' "${sources[@]}" | xargs -d '\n' awk '
function kind(f) {
	if (f ~ /\.(c|h|cc)$/) return "c"
	if (f ~ /\.(js|cjs|css)$/) return "js"
	if (f ~ /\.py$/) return "py"
	return "sh"
}
function columns(s,    i, n, c, col) {
	gsub(/[\200-\277]/, "", s)	# UTF-8 continuation bytes: one column a character
	if (index(s, "\t") == 0) return length(s)
	n = length(s); col = 0
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		col = c == "\t" ? int(col / 8) * 8 + 8 : col + 1
	}
	return col
}
# the comment text of a C or JS line, string literals blanked; block comments carry over
function c_comment(s,    i, n, c, out, q) {
	n = length(s); out = ""; q = ""
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (inblock) {
			if (c == "*" && substr(s, i + 1, 1) == "/") { inblock = 0; i++; out = out " "; continue }
			out = out c
		} else if (q != "") {
			if (c == "\\") i++
			else if (c == q) q = ""
		} else if (c == "\"" || c == "\047" || c == "`") {
			q = c
		} else if (c == "/" && substr(s, i + 1, 1) == "*") {
			inblock = 1; i++; out = out " "
		} else if (c == "/" && substr(s, i + 1, 1) == "/") {
			return out " " substr(s, i + 2)
		}
	}
	return out
}
# the comment text of a shell, Makefile or Python line: after a # outside quotes that starts
# a word (shell: not $# or ${#x}); Python docstrings whole
function hash_comment(s, py,    i, n, c, q, t) {
	if (py) {
		t = s; sub(/^[ \t]+/, "", t)
		if (indoc) {
			if (index(t, "\"\"\"")) indoc = 0
			return s
		}
		if (t ~ /^[rRuU]?"""/) {
			if (index(substr(t, 4), "\"\"\"") == 0) indoc = 1
			return s
		}
	}
	n = length(s); q = ""
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (q != "") {
			if (c == "\\" && q == "\"") i++
			else if (c == q) q = ""
		} else if (c == "\"" || c == "\047") {
			q = c
		} else if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t;(]/ || py)) {
			return substr(s, i + 1)
		}
	}
	return ""
}
function tracker(t,    m) {
	t = " " tolower(t) " "
	if (match(t, /[^a-z0-9_](issue|ticket|task|bug)s? ?#?[0-9]+[^a-z0-9_]/) ||
	    match(t, /[^a-z0-9_]sessions? #[0-9]+[^a-z0-9_]/) ||
	    match(t, /[ \t(\[,;]#[0-9]+[^a-z0-9_]/) ||
	    match(t, /\(sessions? [0-9]+\)/)) {
		m = substr(t, RSTART + 1, RLENGTH - 2)
		sub(/^[ \t(\[,;]+/, "", m)
		return m
	}
	return ""
}
FNR == 1 {
	k = kind(FILENAME); inblock = 0; indoc = 0
	spdx = 0
}
FNR <= 2 && /SPDX-License-Identifier:/ { spdx = 1 }
FNR == 2 && !spdx {
	print FILENAME ":1: no SPDX-License-Identifier line in the first two lines"; bad = 1
}
{
	sub(/\r$/, "")
	if (k == "c" && (w = columns($0)) > 100) {
		print FILENAME ":" FNR ": " w " columns, more than 100"; bad = 1
	}
	text = k == "c" || k == "js" ? c_comment($0) : hash_comment($0, k == "py")
	if (text != "" && (m = tracker(text)) != "") {
		print FILENAME ":" FNR ": a tracker number in a comment: \"" m "\""; bad = 1
	}
	lines[FILENAME] = FNR
	if (FNR == 1) spdx1[FILENAME] = spdx
}
END {
	# files of one line: their first line is all there is
	for (f in lines)
		if (lines[f] == 1 && !spdx1[f]) {
			print f ":1: no SPDX-License-Identifier line in the first two lines"; bad = 1
		}
	exit bad
}' | sort -t: -k1,1 -k2,2n -s
rcs=("${PIPESTATUS[@]}")
[ "${rcs[1]}" -eq 0 ] || exit 1
