# SPDX-License-Identifier: MIT
# Bad input gets one clear message on stderr and exit 2, and never a half-written file.
source "$(dirname "$0")/lib.sh"
P=$PERFGATE

expect_exit 2 "$P"
expect_exit 2 "$P" frobnicate; has "unknown command"
expect_exit 2 "$P" record -- ./calls; has "-o RUN.json is required"
expect_exit 2 "$P" record -o "$TMP/x.json"; has "no command"
expect_exit 2 "$P" record -o "$TMP/x.json" -r 0 -- ./calls; has "invalid -r"
expect_exit 2 "$P" record -o "$TMP/x.json" -r abc -- ./calls; has "invalid -r"
expect_exit 2 "$P" record -o "$TMP/x.json" -- no-such-command-xyz; has "command not found"
printf '#!/bin/sh\ntrue\n' >"$TMP/script.sh"; chmod +x "$TMP/script.sh"
expect_exit 2 "$P" record -o "$TMP/x.json" -- "$TMP/script.sh"
# (what it ran, or that it took too few samples to tell: it runs for a millisecond)
has "script.sh is a script whose processes \(ran only the system's programs and libraries\|took too few samples\)"
check "a script of the system's programs: no run file" test ! -e "$TMP/x.json"
expect_exit 2 "$P" record -o "$TMP/x.json" -f 'no_such_fn*' -- ./calls; has "no function"
expect_exit 2 "$P" record -o "$TMP/x.json" -f 'libnosuch.so.9:f' -- ./calls
has "library libnosuch.so.9 not found"
expect_exit 2 "$P" record -o "$TMP/x.json" -f ':x' -- ./calls; has "expected \[BINARY:\]GLOB"
# a crashing or failing benchmark: exit 2 and no run file
expect_exit 2 "$P" record -q -o "$TMP/x.json" -r 2 -- ./crash 3; has "exited with status 3"
expect_exit 2 "$P" record -q -o "$TMP/x.json" -r 2 -- ./crash segv; has "signal 11"
check "a failed recording leaves no run file" test ! -e "$TMP/x.json"
ls -A "$TMP" >"$TMP/ls"
check "a failed recording leaves no temporary file" not grep -q '^\.x\.json' "$TMP/ls"
# ...unless failures are allowed
expect_exit 0 "$P" record -q --allow-failure -f main -o "$TMP/x.json" -r 2 -- ./crash 3
# without privileges
if command -v setpriv >/dev/null; then
	expect_exit 2 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$P" record -o /tmp/never.json -- ./calls
	has "needs root, or the CAP_BPF and CAP_PERFMON"
fi
# reading: missing, corrupt, truncated, other format, different commands
"$P" record -q -o "$TMP/a.json" -r 2 -f ./calls:count_a -- ./calls
"$P" record -q -o "$TMP/b.json" -r 2 -f ./calls:count_a -- ./calls x
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/missing.json"; has "missing.json"
echo '{"format": "perfgate-run", "version": 1' >"$TMP/trunc.json"
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/trunc.json"; has "trunc.json"
head -c 300 "$TMP/a.json" >"$TMP/cut.json"
expect_exit 2 "$P" report "$TMP/cut.json"; has "cut.json"
echo '{"format": "something-else", "version": 1}' >"$TMP/other.json"
expect_exit 2 "$P" report "$TMP/other.json"; has "other.json"
expect_exit 2 "$P" report "$TMP"
# different commands are compared (as two binaries) with a warning naming both; --strict: exit 2
expect_exit 0 "$P" compare "$TMP/a.json" "$TMP/b.json"
has "warning: the runs are of different commands: '[^']*calls' and '[^']*calls x'"
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/b.json" --strict; has "different commands (--strict)"
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/a.json" --alpha 2; has "invalid --alpha"
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/a.json" --min-effect x; has "invalid --min-effect"
expect_exit 2 "$P" compare "$TMP/a.json" "$TMP/a.json" --junit /nonexistent/dir/j.xml
expect_exit 2 "$P" report "$TMP/a.json" --format yaml; has "invalid --format"
# the error message is a single line
check "the error message is at most two lines" test "$(wc -l <"$TMP/stderr")" -le 2
