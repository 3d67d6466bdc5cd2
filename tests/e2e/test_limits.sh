# SPDX-License-Identifier: MIT
# Hostile run files from the command line: a file over the size limit, a limit that is not a
# number, counts that add up past 2^64, and the inputs the fuzzers once crashed on. Each gets
# one clear message and exit 2, or a correct report: never a crash.
source "$(dirname "$0")/lib.sh"
P=$PERFGATE
R=$PERFGATE_SRCDIR/tests/fuzz

# the size limit: default 64 MiB, PERFGATE_MAX_RUN_MB overrides it
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$TMP/big.json"
expect_exit 2 env PERFGATE_MAX_RUN_MB=1 "$P" report "$TMP/big.json"
has "larger than the limit of 1 MiB for run files (raise it with PERFGATE_MAX_RUN_MB)"
check_eq "one error line" 1 "$(wc -l <"$TMP/stderr")"
expect_exit 2 env PERFGATE_MAX_RUN_MB=1 "$P" compare "$R/corpus/runfile/calls.json" "$TMP/big.json"
has "big.json: larger than the limit"
expect_exit 2 env PERFGATE_MAX_RUN_MB=lots "$P" report "$TMP/big.json"
has "PERFGATE_MAX_RUN_MB='lots' is not a size in MiB"
has "not a perfgate run file (it is empty)"
# a small file is well within a small limit
expect_exit 0 "$P" record -q --no-sample -o "$TMP/ok.json" -r 1 -f count_a -- ./calls
expect_exit 0 env PERFGATE_MAX_RUN_MB=1 "$P" report "$TMP/ok.json" --format json

# a recording over the reading limit is still written, with a warning that says what to do
python3 - "$TMP/many.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("volatile unsigned long sink;\n")
    for i in range(2000):
        f.write("__attribute__((noinline)) void fn_%d(void) { sink += %d; }\n" % (i, i))
    f.write("int main(void) {\n" + "".join(" fn_%d();\n" % i for i in range(2000)) + " return 0;\n}\n")
PY
cc -O1 -o "$TMP/many" "$TMP/many.c"
# (24 repetitions: version 3 files are compact, 8 of them fit in 1 MiB)
expect_exit 0 env PERFGATE_MAX_RUN_MB=1 "$P" record --all-functions -q --no-sample \
	-o "$TMP/many.json" -r 24 \
	-- "$TMP/many"
has "over the limit of 1 MiB for reading run files: set PERFGATE_MAX_RUN_MB=[0-9]* to read it"
mb=$(sed -n 's/.*set PERFGATE_MAX_RUN_MB=\([0-9]*\) to read it/\1/p' "$TMP/stderr")
expect_exit 2 env PERFGATE_MAX_RUN_MB=1 "$P" report "$TMP/many.json"
expect_exit 0 env PERFGATE_MAX_RUN_MB="$mb" "$P" report "$TMP/many.json"

# every seed is a valid run; every regression input is refused with one line or reported
for f in "$R"/corpus/runfile/*; do
	expect_exit 0 "$P" report "$f"
done
for f in "$R"/regressions/runfile/*; do
	got=0
	"$P" report "$f" >"$TMP/stdout" 2>"$TMP/stderr" || got=$?
	case $got in
	0) ;;
	2) [ "$(wc -l <"$TMP/stderr")" = 1 ] || { cat "$TMP/stderr"; fail "$f: not one line"; } ;;
	*) cat "$TMP/stderr"; fail "$f: perfgate report exited $got" ;;
	esac
done
echo ok
