# SPDX-License-Identifier: MIT
# The layering of the sources (tests/check-layers.sh): the tree keeps it, and the checker
# names each include against it, on a small tree made to break every rule once.
source "$(dirname "$0")/lib.sh"
CL=$PERFGATE_SRCDIR/tests/check-layers.sh

expect_exit 0 "$CL" "$PERFGATE_SRCDIR"

# a tree that keeps the rules
T=$TMP/good
mkdir -p "$T"/{core,formats,diff,runner/{session,probes,budget},reporters,history,cli,bpf}
echo '#include <stdio.h>' >"$T/core/run.h"
printf '#include "run.h"\n#include "../core/run.h"\n' >"$T/core/run.c"
echo '#include "../core/run.h"' >"$T/formats/runfile.h"
echo '#include "../core/run.h"' >"$T/formats/merge.h"
printf '#include "../core/run.h"\nint f(char *b) { return snprintf(b, 2, "x"); }\n' \
	>"$T/diff/compare.c"
printf '#include "../../formats/runfile.h"\n#include "../../formats/merge.h"\n' \
	>"$T/runner/session/recorder.c"
printf '#include "../../bpf/perfgate.h"\n#include <bpf/libbpf.h>\n' \
	>>"$T/runner/session/recorder.c"
echo '#include "perfgate.skel.h"' >"$T/runner/probes/probes.c"
printf '#include "../../core/run.h"\n#include "../session/recorder.h"\n' \
	>"$T/runner/budget/choose.c"
printf '#include "../diff/compare.h"\n#include "../formats/merge.h"\n' >"$T/reporters/junit.c"
printf '#include "../runner/session/recorder.h"\n#include "../bpf/perfgate.h"\n' >"$T/cli/main.c"
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
echo '#include "../runner/session/recorder.h"' >>"$B/formats/merge.h"
echo '#include "../core/log.h"' >>"$B/diff/compare.c"
echo 'void g(void) { printf("x"); }' >>"$B/diff/compare.c"
echo 'void h(void) { pg_err("x"); }' >>"$B/diff/compare.c"
echo '#include "../../reporters/junit.h"' >>"$B/runner/session/recorder.c"
echo '#include "perfgate.skel.h"' >>"$B/runner/session/recorder.c"
echo '#include "../bpf/perfgate.h"' >>"$B/reporters/junit.c"
echo '#include <bpf/libbpf.h>' >>"$B/reporters/junit.c"
echo '#include "../cli/cli.h"' >>"$B/reporters/junit.c"
echo '#include "../reporters/fmt.h"' >>"$B/history/store.c"
echo '#include <sqlite3.h>' >>"$B/cli/main.c"
expect_exit 1 "$CL" "$B"
cat "$TMP/stdout"
REC=runner/session/recorder.c
for want in \
	'core/run.c:3: #include "../diff/compare.h": core may not include diff' \
	'formats/runfile.h:2: #include "../reporters/fmt.h": formats may not include reporters' \
	'formats/merge.h:2: #include "../runner/session/recorder.h": formats may not include runner' \
	'diff/compare.c:3: #include "../core/log.h": diff/ does no logging' \
	'diff/compare.c:4: void g(void) { printf("x"); }: diff/ does no I/O' \
	'diff/compare.c:5: void h(void) { pg_err("x"); }: diff/ does no I/O' \
	"$REC"':5: #include "../../reporters/junit.h": runner may not include reporters' \
	"$REC"':6: #include "perfgate.skel.h": only runner/probes/probes.c includes perfgate.skel.h' \
	'reporters/junit.c:3: #include "../bpf/perfgate.h": reporters may not include bpf' \
	'reporters/junit.c:4: #include <bpf/libbpf.h>: reporters may not include libbpf' \
	'reporters/junit.c:5: #include "../cli/cli.h": reporters may not include cli' \
	'history/store.c:4: #include "../reporters/fmt.h": history may not include reporters' \
	'cli/main.c:4: #include <sqlite3.h>: only history/ may include a database library'; do
	check "names: $want" grep -qF -- "$want" "$TMP/stdout"
done
check_eq "one line per violation" 13 "$(wc -l <"$TMP/stdout")"

# the runner's pure subsystems (runner/select/, runner/budget/): a copy of the real tree in
# which the budget's decisions include libbpf and bpf/ fails, naming the file and the rule
R=$TMP/real
mkdir -p "$R"
cp -r "$PERFGATE_SRCDIR"/{core,formats,diff,runner,reporters,history,cli,bpf} "$R"
check "the copy has the budget's decisions" test -f "$R/runner/budget/choose.c"
echo '#include <bpf/libbpf.h>' >>"$R/runner/budget/choose.c"
echo '#include "../../bpf/perfgate.h"' >>"$R/runner/select/select.h"
n=$(wc -l <"$R/runner/budget/choose.c")
m=$(wc -l <"$R/runner/select/select.h")
expect_exit 1 "$CL" "$R"
cat "$TMP/stdout"
check "names the pure file including libbpf" grep -qxF \
	"runner/budget/choose.c:$n: #include <bpf/libbpf.h>: runner/budget/ is pure: no libbpf" \
	"$TMP/stdout"
check "names the pure file including bpf/" grep -qxF \
	"runner/select/select.h:$m: #include \"../../bpf/perfgate.h\": runner/select/ is pure: no bpf/" \
	"$TMP/stdout"
check_eq "only the planted violations" 2 "$(wc -l <"$TMP/stdout")"
check "the real tree is untouched" not grep -q 'bpf/libbpf.h' \
	"$PERFGATE_SRCDIR/runner/budget/choose.c"
