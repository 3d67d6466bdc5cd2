# SPDX-License-Identifier: MIT
# A function in a shared library, named by its soname and resolved as the loader does.
source "$(dirname "$0")/lib.sh"
"$PERFGATE" record -q -o "$TMP/run.json" -r 2 -f 'libpgtest.so:pgtest_*' -f main -- ./uses_lib
calls "$TMP/run.json" >"$TMP/actual"
printf 'main 1\npgtest_lib_func 50\n' >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"
python3 - "$TMP/run.json" "$PROGS/libpgtest.so" <<'PY'
import os, sys, pgtest
f = pgtest.func(pgtest.load(sys.argv[1]), "pgtest_lib_func")
assert f["binary"] == os.path.realpath(sys.argv[2]), f["binary"]
PY
# the version-less prefix of a soname works too
"$PERFGATE" record -q -o "$TMP/run2.json" -r 1 -f 'libpgtest:pgtest_lib_func' -- ./uses_lib
