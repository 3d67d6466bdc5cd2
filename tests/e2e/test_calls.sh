# SPDX-License-Identifier: MIT
# Exact call counts; a function never called is absent; the default selection skips the C
# runtime helpers.
source "$(dirname "$0")/lib.sh"
"$PERFGATE" record --all-functions -q -o "$TMP/run.json" -r 3 -- ./calls
calls "$TMP/run.json" >"$TMP/actual"
cat >"$TMP/expected" <<'OUT'
count_a 1000
count_b 37
main 1
OUT
expect_same "$TMP/expected" "$TMP/actual"
# the same through one link per probe (the path for kernels before 6.6)
"$PERFGATE" record --all-functions -q --single-attach -o "$TMP/single.json" -r 2 -- ./calls
calls "$TMP/single.json" >"$TMP/actual"
expect_same "$TMP/expected" "$TMP/actual"
