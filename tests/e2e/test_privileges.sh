# SPDX-License-Identifier: MIT
# Who the benchmark runs as: SUDO_UID/SUDO_GID under sudo, --user NAME, root (with a warning)
# otherwise. perfgate keeps only a few capabilities while the repetitions run; the benchmark's
# environment, stdin and stdout are its own.
source "$(dirname "$0")/lib.sh"
P=$PERFGATE
nobody_gid=$(id -g nobody)

# what the benchmark is, and perfgate's capabilities while it runs (sh's parent is perfgate)
probe='id -u; id -g; id -G; grep ^CapEff /proc/self/status | cut -f2;
       grep ^CapEff /proc/$PPID/status | cut -f2; grep ^CapBnd /proc/self/status | cut -f2'
cap() { python3 -c "import sys; print(int(sys.argv[1], 16))" "$1"; }
CAP_DAC_OVERRIDE=$((1 << 1)) CAP_KILL=$((1 << 5)) CAP_SETGID=$((1 << 6)) CAP_SETUID=$((1 << 7))

# root without sudo: the benchmark runs as root, with full capabilities, after one warning
env -u SUDO_UID -u SUDO_GID "$P" record -q --no-sample -o "$TMP/a.json" -r 1 \
	-f ./calls:count_a -- sh -c "$probe; ./calls" >"$TMP/out" 2>"$TMP/stderr"
has "runs as root: perfgate was started as root without sudo (--user NAME"
check_eq "the warning is one line" 1 "$(grep -c 'runs as root' "$TMP/stderr")"
mapfile -t v <"$TMP/out"
check_eq "root: ${v[*]}" 0 "${v[0]}"
check_eq "the root benchmark keeps its capabilities: ${v[3]} vs ${v[5]}" "${v[5]}" "${v[3]}"
# perfgate itself kept CAP_KILL and CAP_DAC_OVERRIDE only
[ "$(cap "${v[4]}")" = $((CAP_KILL | CAP_DAC_OVERRIDE)) ] || fail "perfgate kept ${v[4]}"
calls "$TMP/a.json" >"$TMP/actual"
echo "count_a 1000" >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/actual"

# under sudo: SUDO_UID and SUDO_GID, no capabilities
SUDO_UID=65534 SUDO_GID=$nobody_gid "$P" record -q --no-sample -o "$TMP/b.json" -r 1 \
	-f ./calls:count_a -- sh -c "$probe; ./calls" >"$TMP/out" 2>"$TMP/stderr"
check "no warning under sudo" not grep -q -- "runs as root" "$TMP/stderr"
mapfile -t v <"$TMP/out"
check_eq "sudo: ran as ${v[*]}" "65534 $nobody_gid $nobody_gid" "${v[0]} ${v[1]} ${v[2]}"
check_eq "the benchmark has no capabilities: ${v[3]}" 0 "$(cap "${v[3]}")"
[ "$(cap "${v[4]}")" = $((CAP_KILL | CAP_DAC_OVERRIDE | CAP_SETUID | CAP_SETGID)) ] ||
	fail "perfgate kept ${v[4]}"
calls "$TMP/b.json" >"$TMP/actual"
expect_same "$TMP/expected" "$TMP/actual"

# --user NAME, with the user's groups
"$P" record -q --no-sample -o "$TMP/c.json" -r 2 --user nobody -f ./calls:count_a \
	-- sh -c "$probe; ./calls" \
	>"$TMP/out" 2>"$TMP/stderr"
mapfile -t v <"$TMP/out"
check_eq "--user: ran as ${v[*]}" "65534 $nobody_gid $(id -G nobody)" "${v[0]} ${v[1]} ${v[2]}"
calls "$TMP/c.json" >"$TMP/actual"
expect_same "$TMP/expected" "$TMP/actual"
"$P" record -q --no-sample -o "$TMP/c.json" -r 1 --user root -f ./calls:count_a -- ./calls \
	2>"$TMP/stderr"
check "--user root: no warning" not grep -q -- "runs as root" "$TMP/stderr"

# the environment, stdin and stdout are the benchmark's own
echo "from stdin" | PG_TEST_VAR=kept "$P" record -q --no-sample -o "$TMP/d.json" -r 1 \
	--user nobody -f ./calls:count_a -- sh -c 'echo "$PG_TEST_VAR"; cat; pwd; ./calls' >"$TMP/out"
printf 'kept\nfrom stdin\n%s\n' "$PWD" >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/out"

# an LD_PRELOAD of the caller's stays, after perfgate's exception fix (docs/recording.md; on
# for C with --exception-fix); perfgate gets it too, which a sanitized build must be told to
# accept
asan=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
env "$asan" LD_PRELOAD=libm.so.6 "$P" record -q --no-sample -o "$TMP/e.json" -r 1 --user nobody \
	--exception-fix -f ./calls:count_a -- sh -c 'echo "$LD_PRELOAD"; ./calls' >"$TMP/out"
echo "$(dirname "$PROGS")/libperfgate-preload.so:libm.so.6" >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/out"
# tracing only C, the fix is off: the environment is the caller's
env "$asan" LD_PRELOAD=libm.so.6 "$P" record -q --no-sample -o "$TMP/e.json" -r 1 --user nobody \
	-f ./calls:count_a -- sh -c 'echo "$LD_PRELOAD $PERFGATE_RETS_FD"; ./calls' >"$TMP/out"
echo "libm.so.6 " >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/out"
env "$asan" LD_PRELOAD=libm.so.6 "$P" record -q --no-sample -o "$TMP/e.json" -r 1 \
	--no-exception-fix --user nobody -f ./calls:count_a \
	-- sh -c 'echo "$LD_PRELOAD $PERFGATE_RETS_FD"; ./calls' >"$TMP/out"
echo "libm.so.6 " >"$TMP/expected"
expect_same "$TMP/expected" "$TMP/out"

# errors: one line, exit 2
expect_exit 2 "$P" record -o "$TMP/x.json" --user no-such-user-xyz -- ./calls
has "no-such-user-xyz: no such user"
cp ./calls "$TMP/private-calls"	# $TMP is root's, mode 0700
expect_exit 2 "$P" record -q -o "$TMP/x.json" --user nobody -- "$TMP/private-calls"
has "cannot run .*private-calls as nobody: Permission denied"
expect_exit 2 env SUDO_UID=abc SUDO_GID=1 "$P" record -o "$TMP/x.json" -- ./calls
has "SUDO_UID 'abc'"
check "no run file" test ! -e "$TMP/x.json"
echo ok
