# SPDX-License-Identifier: MIT
# The whole process tree is followed: threads, a forked child, an orphaned grandchild, a shell
# that execs the program; other processes running the same binary are not counted.
source "$(dirname "$0")/lib.sh"

"$PERFGATE" record -q -o "$TMP/threads.json" -r 2 -f work -f main_only -- ./threads
calls "$TMP/threads.json" >"$TMP/actual"
printf 'main_only 1\nwork 1000\n' >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"

"$PERFGATE" record -q -o "$TMP/forks.json" -r 2 -f 'in_*' -- ./forks
calls "$TMP/forks.json" >"$TMP/actual"
printf 'in_child 25\nin_parent 10\n' >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"

# sh -c: the executable is sh, so the traced binary is named by path
"$PERFGATE" record -q -o "$TMP/sh.json" -r 2 -f './calls:count_*' -- sh -c './calls; ./calls'
calls "$TMP/sh.json" >"$TMP/actual"
printf 'count_a 2000\ncount_b 74\n' >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"

# a busy loop of the same binary outside the benchmark is not counted
( for i in $(seq 200); do ./calls; done ) &
bg=$!
"$PERFGATE" record -q -o "$TMP/iso.json" -r 3 -f 'count_*' -- ./calls
wait $bg
calls "$TMP/iso.json" >"$TMP/actual"
printf 'count_a 1000\ncount_b 37\n' >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"
