# The layering of the sources (tests/check-layers.sh): the tree keeps it, and the checker
# names each include against it, on a small tree made to break every rule once.
source "$(dirname "$0")/lib.sh"
CL=$PERFGATE_SRCDIR/tests/check-layers.sh

expect_exit 0 "$CL" "$PERFGATE_SRCDIR"

# a tree that keeps the rules
T=$TMP/good
mkdir -p "$T"/{core,formats,diff,runner,reporters,history,cli,bpf}
echo '#include <stdio.h>' >"$T/core/run.h"
printf '#include "run.h"\n#include "../core/run.h"\n' >"$T/core/run.c"
echo '#include "../core/run.h"' >"$T/formats/runfile.h"
echo '#include "../core/run.h"' >"$T/formats/merge.h"
printf '#include "../core/run.h"\nint f(char *b) { return snprintf(b, 2, "x"); }\n' \
	>"$T/diff/compare.c"
printf '#include "../formats/runfile.h"\n#include "../formats/merge.h"\n' >"$T/runner/record.c"
printf '#include "../bpf/perfgate.h"\n#include <bpf/libbpf.h>\n' >>"$T/runner/record.c"
echo '#include "perfgate.skel.h"' >"$T/runner/probes.c"
printf '#include "../diff/compare.h"\n#include "../formats/merge.h"\n' >"$T/reporters/junit.c"
printf '#include "../runner/record.h"\n#include "../bpf/perfgate.h"\n' >"$T/cli/main.c"
echo '#include "../core/hist_bucket.h"' >"$T/bpf/perfgate.bpf.c"
printf '#include "../diff/compare.h"\n#include <sqlite3.h>\n#include <libpq-fe.h>\n' \
	>"$T/history/store.c"
echo '#include "../history/store.h"' >>"$T/cli/main.c"
expect_exit 0 "$CL" "$T"

# one violation of each rule: each named with its file, line and include
B=$TMP/bad
cp -r "$T" "$B"
echo '#include "../diff/compare.h"' >>"$B/core/run.c"
echo '#include "../reporters/fmt.h"' >>"$B/formats/runfile.h"
echo '#include "../runner/record.h"' >>"$B/formats/merge.h"
echo '#include "../core/log.h"' >>"$B/diff/compare.c"
echo 'void g(void) { printf("x"); }' >>"$B/diff/compare.c"
echo 'void h(void) { pg_err("x"); }' >>"$B/diff/compare.c"
echo '#include "../reporters/junit.h"' >>"$B/runner/record.c"
echo '#include "perfgate.skel.h"' >>"$B/runner/record.c"
echo '#include "../bpf/perfgate.h"' >>"$B/reporters/junit.c"
echo '#include <bpf/libbpf.h>' >>"$B/reporters/junit.c"
echo '#include "../cli/cli.h"' >>"$B/reporters/junit.c"
echo '#include "../reporters/fmt.h"' >>"$B/history/store.c"
echo '#include <sqlite3.h>' >>"$B/cli/main.c"
expect_exit 1 "$CL" "$B"
cat "$TMP/stdout"
for want in \
	'core/run.c:3: #include "../diff/compare.h": core may not include diff' \
	'formats/runfile.h:2: #include "../reporters/fmt.h": formats may not include reporters' \
	'formats/merge.h:2: #include "../runner/record.h": formats may not include runner' \
	'diff/compare.c:3: #include "../core/log.h": diff/ does no logging' \
	'diff/compare.c:4: void g(void) { printf("x"); }: diff/ does no I/O' \
	'diff/compare.c:5: void h(void) { pg_err("x"); }: diff/ does no I/O' \
	'runner/record.c:5: #include "../reporters/junit.h": runner may not include reporters' \
	'runner/record.c:6: #include "perfgate.skel.h": only runner/probes.c includes perfgate.skel.h' \
	'reporters/junit.c:3: #include "../bpf/perfgate.h": reporters may not include bpf' \
	'reporters/junit.c:4: #include <bpf/libbpf.h>: reporters may not include libbpf' \
	'reporters/junit.c:5: #include "../cli/cli.h": reporters may not include cli' \
	'history/store.c:4: #include "../reporters/fmt.h": history may not include reporters' \
	'cli/main.c:4: #include <sqlite3.h>: only history/ may include a database library'; do
	check "names: $want" grep -qF -- "$want" "$TMP/stdout"
done
check_eq "one line per violation" 13 "$(wc -l <"$TMP/stdout")"
