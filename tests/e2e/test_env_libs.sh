# SPDX-License-Identifier: MIT
# The shared libraries a run's processes loaded, in its environment (core/env.h): libpgtest.so
# built a second time with another build-id, found through LD_LIBRARY_PATH ahead of the
# program's runpath, is named by compare's header, its --markdown and --json (environment),
# by perfgate vote, and between the two sides of perfgate ab; an A/A comparison against the
# same library names none. Libraries are the objects the sampler saw mapped: uses_lib_spin
# spins in the library long enough to be sampled. The verdicts are not checked (the same code
# on both sides): --raw with a 50% minimum effect keeps compare from failing on a busy
# machine.
source "$(dirname "$0")/lib.sh"
C=(--raw --min-effect 50)
V2_ID=0123456789abcdef0123456789abcdef01234567

mkdir "$TMP/v2"
cc -O1 -g -fno-inline -fPIC -shared -Wl,--build-id=0x$V2_ID -o "$TMP/v2/libpgtest.so" \
	"${PGTEST%/*}/../progs/lib/pgtest.c"
"$PERFGATE" record -q -o "$TMP/a.json" -r 3 -f call_lib -- ./uses_lib_spin
"$PERFGATE" record -q -o "$TMP/a2.json" -r 3 -f call_lib -- ./uses_lib_spin
LD_LIBRARY_PATH="$TMP/v2" "$PERFGATE" record -q -o "$TMP/b.json" -r 3 -f call_lib -- \
	./uses_lib_spin

# the run file: each library's package, version, build-id and path
python3 - "$TMP/a.json" "$TMP/b.json" "$TMP/v2" "$V2_ID" "$TMP/a2.json" <<'PY'
import os, sys, pgtest
a, b, a2 = (pgtest.load(p)["meta"]["environment"] for p in sys.argv[1:3] + sys.argv[5:6])
assert a2["lib.libpgtest.so"] == a["lib.libpgtest.so"], (a, a2)	# A/A: the same library
pkg, ver, bid, path = a["lib.libpgtest.so"].split(" ", 3)
assert (pkg, ver) == ("-", "-"), a["lib.libpgtest.so"]	# a build tree's: no package
assert path == os.path.realpath("libpgtest.so"), path
assert b["lib.libpgtest.so"] == "- - %s %s/libpgtest.so" % (sys.argv[4], sys.argv[3]), b
assert bid != sys.argv[4]
libc = a.get("lib.libc.so.6", "").split(" ")
if os.path.isdir("/var/lib/dpkg/info"):		# Debian: libc6 owns the C library
	assert libc[0].startswith("libc6") and libc[1] != "-", libc
PY
check "report lists the libraries" grep -q "^  libpgtest.so  build-id" \
	<("$PERFGATE" report "$TMP/b.json")

# A/B: the library's build-id differs
rc=0
"$PERFGATE" compare "${C[@]}" "$TMP/a.json" "$TMP/b.json" --json "$TMP/ab.json" \
	--markdown "$TMP/ab.md" >"$TMP/ab.txt" || rc=$?
check "A/B: compare did its job" test "$rc" -le 1
check_contains "A/B: header names the library" "$TMP/ab.txt" \
	"the two sides differ: .*libpgtest.so build-id [0-9a-f]\{12\} -> ${V2_ID:0:12}"
check_contains "A/B: markdown names the library" "$TMP/ab.md" \
	"libpgtest.so build-id [0-9a-f]\{12\} -&gt; ${V2_ID:0:12}"
python3 - "$TMP/ab.json" "$V2_ID" <<'PY'
import sys, pgtest
env = pgtest.load(sys.argv[1])["environment"]
d = [x for x in env["differences"] if x.startswith("libpgtest.so ")]
assert d == ["libpgtest.so build-id %s -> %s" % (
	env["base"]["lib.libpgtest.so"].split(" ")[2][:12], sys.argv[2][:12])], env["differences"]
assert env["new"]["lib.libpgtest.so"].split(" ")[2] == sys.argv[2], env["new"]
assert env["base"]["kernel"] == env["new"]["kernel"]
assert not any(x.startswith("libc.so.6 ") for x in env["differences"]), env["differences"]
PY
"$PERFGATE" vote "$TMP/ab.json" --system gerrit >"$TMP/ab.gerrit"
"$PERFGATE" vote "$TMP/ab.json" --system github -o "$TMP/ab.github"
check_eq "A/B: gerrit message names the library" 1 "$(python3 -c '
import sys, pgtest
m = pgtest.load(sys.argv[1])["message"]
print(sum(l.startswith("environment: the two sides differ: ") and "libpgtest.so build-id" in l
	  for l in m.splitlines()))' "$TMP/ab.gerrit")"
check "A/B: check run summary names the library" python3 -c '
import sys, pgtest
assert "libpgtest.so build-id" in pgtest.load(sys.argv[1])["output"]["summary"]' "$TMP/ab.github"

# A/A: the same library, nothing listed
rc=0
"$PERFGATE" compare "${C[@]}" "$TMP/a.json" "$TMP/a2.json" --json "$TMP/aa.json" \
	>"$TMP/aa.txt" || rc=$?
check "A/A: compare did its job" test "$rc" -le 1
check "A/A: no difference in the header" not grep -q "the two sides differ" "$TMP/aa.txt"
check_eq "A/A: no differences in the result" "[]" \
	"$(pgtest get "$TMP/aa.json" environment.differences)"
"$PERFGATE" vote "$TMP/aa.json" --system gerrit >"$TMP/aa.gerrit"
check "A/A: gerrit message without environment" not grep -q "environment:" "$TMP/aa.gerrit"

# perfgate ab: each side's own libraries, from the one sampled session
rc=0
"$PERFGATE" ab -q -o "$TMP/abdir" -r 3 --max-reps 3 -f call_lib './uses_lib_spin' \
	"env LD_LIBRARY_PATH=$TMP/v2 ./uses_lib_spin" >"$TMP/abs.txt" || rc=$?
check "ab: did its job" test "$rc" -le 1
check_contains "ab: header names the library" "$TMP/abs.txt" \
	"the two sides differ: .*libpgtest.so build-id [0-9a-f]\{12\} -> ${V2_ID:0:12}"
check_eq "ab: each side its own build" "$V2_ID $TMP/v2/libpgtest.so" "$(python3 -c '
import sys, pgtest
b, n = (pgtest.load(p)["meta"]["environment"]["lib.libpgtest.so"] for p in sys.argv[1:])
assert b.split(" ")[2] != n.split(" ")[2], (b, n)
print(n.split(" ", 2)[2])' "$TMP/abdir/base.json" "$TMP/abdir/new.json")"
