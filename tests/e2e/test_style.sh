# SPDX-License-Identifier: MIT
# The style's mechanical rules (tests/check-style.sh): the tree keeps them, and the checker
# names each planted violation, in a copy of the tree, with its file and line, and nothing
# that only looks like one.
source "$(dirname "$0")/lib.sh"
CS=$PERFGATE_SRCDIR/tests/check-style.sh

expect_exit 0 "$CS" "$PERFGATE_SRCDIR"
check_eq "the real tree: no violation" "" "$(cat "$TMP/stdout")"

# a copy of the source files (what git lists, or the tree without its builds); not a git
# checkout, so the checker lists its files itself
T=$TMP/tree
mkdir -p "$T"
if git -C "$PERFGATE_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$PERFGATE_SRCDIR" ls-files -z --cached --others --exclude-standard |
		(cd "$PERFGATE_SRCDIR" && xargs -0 cp --parents -t "$T" 2>/dev/null || true)
else
	rsync -a --exclude='/build' --exclude='/build-*' --exclude=.git "$PERFGATE_SRCDIR/" "$T/"
fi
check "the copy has the sources" test -f "$T/core/run.c" -a -f "$T/Makefile"
expect_exit 0 "$CS" "$T"
check_eq "the copy: no violation" "" "$(cat "$TMP/stdout")"

# text that only looks like a violation: exactly 100 columns with tabs, perfgate's own
# sessions and steps, '#' in strings, names and shell expansions, CSS colours, a build file
c100=$(printf '\t\t/* %s */' "$(printf 'x%.0s' $(seq 78))")	# 16 + 84 = 100 columns
{
	echo "$c100"
	echo '/* the change point at session 12, (step 3), round 2: NAME#2, "#2", &#39; */'
	echo 'static const char *s = "see issue 5 and #37"; // tissue 5, #x1'
} >>"$T/core/run.c"
echo 'n=${#arr[@]}; echo "issue 7, #8" # $# arguments' >>"$T/tests/run.sh"
echo '.x { fill: #000; }' >>"$T/reporters/flamegraph.css"
mkdir -p "$T/build"
printf '%0200d\n' 0 >"$T/build/gen.c"
expect_exit 0 "$CS" "$T"
check_eq "look-alikes: no violation" "" "$(cat "$TMP/stdout")"

# one violation of each kind
run_c=$(wc -l <"$T/core/run.c")
printf '\t\t/* %s */\n' "$(printf 'y%.0s' $(seq 79))" >>"$T/core/run.c"	# 101 columns
printf '%s\n' "$(printf 'z%.0s' $(seq 101))" >>"$T/core/run.c"		# 101, no tab
printf 'int a;\t/* %s */\n' "$(printf 'é%.0s' $(seq 87))" >>"$T/core/run.c"	# 8 + 93
echo '/* see issue 12 */' >>"$T/core/run.c"
echo 'int b; // fixed in #37' >>"$T/core/run.c"
printf '/*\n * the fix of Task 5, (session 19)\n */\n' >>"$T/core/run.c"
sed -i 1d "$T/diff/stats.h"						# its SPDX line
printf '#!/bin/sh\necho\n# SPDX-License-Identifier: MIT\n' >"$T/tests/e2e/test_new.sh"
sed -i 1d "$T/Makefile"
n_py=$(wc -l <"$T/tools/gen-man.py")
printf 'def f():\n    """What session #19 left."""\n' >>"$T/tools/gen-man.py"
echo '# bug 3' >>"$T/tests/run.sh"
run_sh=$(wc -l <"$T/tests/run.sh")
expect_exit 1 "$CS" "$T"
cat "$TMP/stdout"
for want in \
	"core/run.c:$((run_c + 1)): 101 columns, more than 100" \
	"core/run.c:$((run_c + 2)): 101 columns, more than 100" \
	"core/run.c:$((run_c + 3)): 101 columns, more than 100" \
	"core/run.c:$((run_c + 4)): a tracker number in a comment: \"issue 12\"" \
	"core/run.c:$((run_c + 5)): a tracker number in a comment: \"#37\"" \
	"core/run.c:$((run_c + 7)): a tracker number in a comment: \"task 5\"" \
	"diff/stats.h:1: no SPDX-License-Identifier line in the first two lines" \
	"tests/e2e/test_new.sh:1: no SPDX-License-Identifier line in the first two lines" \
	"Makefile:1: no SPDX-License-Identifier line in the first two lines" \
	"tools/gen-man.py:$((n_py + 2)): a tracker number in a comment: \"session #19\"" \
	"tests/run.sh:$run_sh: a tracker number in a comment: \"bug 3\""; do
	check "names: $want" grep -qxF -- "$want" "$TMP/stdout"
done
check_eq "one line per violation" 11 "$(wc -l <"$TMP/stdout")"

# the session in parentheses, once the line names no task (one line, one report)
sed -i "$((run_c + 7))s/Task 5, //" "$T/core/run.c"
expect_exit 1 "$CS" "$T"
check "names (session 19)" grep -qxF \
	"core/run.c:$((run_c + 7)): a tracker number in a comment: \"session 19\"" "$TMP/stdout"

# in a git checkout the same files are checked: tracked, and new ones not ignored
git -C "$T" init -q
git -C "$T" add -A
git -C "$T" rm -q --cached tests/e2e/test_new.sh
cp "$TMP/stdout" "$TMP/plain"
expect_exit 1 "$CS" "$T"
check "git lists the same files (build/ ignored, new ones checked)" \
	cmp -s "$TMP/plain" "$TMP/stdout"
check "the real tree is untouched" grep -q SPDX "$PERFGATE_SRCDIR/diff/stats.h"
