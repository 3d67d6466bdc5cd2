# SPDX-License-Identifier: MIT
# perfgate pprof: a run's sampled profile as a gzipped pprof profile.proto that go tool pprof
# (Debian's golang-go) decodes offline; its functions' sample counts (flat and cum) and totals
# equal those of `perfgate folded` of the same run, for all repetitions and for --rep 1; traced
# functions sit in a mapping of their binary with file:line; cpu/nanoseconds is samples x the
# period of -F. Bad input: one clear message, exit 2, no file written.
source "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is not installed (make deps installs golang-go)"
# go writes a build cache and may want a home; never the network
export HOME=$TMP GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS= GOPROXY=off \
	GOTOOLCHAIN=local PPROF_TMPDIR=$TMP

"$PERFGATE" record -q -r 2 -F 999 -f main -f c -o "$TMP/run.json" -- ./sample_chain 60000000
"$PERFGATE" pprof "$TMP/run.json" -o "$TMP/run.pb.gz"
check "gzip magic" python3 -c '
import gzip, sys
assert open(sys.argv[1], "rb").read(2) == b"\x1f\x8b"
assert len(gzip.open(sys.argv[1]).read()) > 0' "$TMP/run.pb.gz"

# compare FOLDED PB.GZ: go tool pprof -top (samples) against the folded stacks: the total and,
# for every function with at least 1% of the samples, flat (leaf) and cum (in any stack)
compare() {
	go tool pprof -sample_index=samples -top -nodecount=100000 -nodefraction=0 \
		-edgefraction=0 "$2" >"$TMP/top" 2>"$TMP/top.err" ||
		{ cat "$TMP/top.err" >&2; fail "go tool pprof -top $2 failed"; }
	python3 - "$1" "$TMP/top" <<'PY'
import re, sys
flat, cum, total = {}, {}, 0
for line in open(sys.argv[1]):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    frames, n = stack.split(";"), int(n)
    total += n
    flat[frames[-1]] = flat.get(frames[-1], 0) + n
    for f in set(frames):
        cum[f] = cum.get(f, 0) + n
top, got_total = {}, None
for line in open(sys.argv[2]):
    m = re.search(r"Total samples = (\d+)", line)
    if m:
        got_total = int(m.group(1))
    m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", line)
    if m:
        top[m.group(3)] = (int(m.group(1)), int(m.group(2)))
assert got_total == total, (got_total, total)
hot = [f for f in cum if cum[f] * 100 >= total]
assert hot, cum
for f in hot:
    assert top.get(f) == (flat.get(f, 0), cum[f]), (f, top.get(f), flat.get(f, 0), cum[f])
leaf = max(flat, key=flat.get)
print("total %d, hottest leaf %s: %d samples, %d functions checked" % (total, leaf, flat[leaf],
                                                                      len(hot)))
PY
}

"$PERFGATE" folded "$TMP/run.json" -o "$TMP/run.folded"
check "pprof -top = folded (all repetitions)" compare "$TMP/run.folded" "$TMP/run.pb.gz"
check_contains "c is the hottest function" "$TMP/top" '^ *[0-9]* *[0-9.]*% *[0-9.]*% .* c$'

"$PERFGATE" pprof "$TMP/run.json" --rep 1 -o "$TMP/rep1.pb.gz"
"$PERFGATE" folded "$TMP/run.json" --rep 1 -o "$TMP/rep1.folded"
check "pprof -top = folded (--rep 1)" compare "$TMP/rep1.folded" "$TMP/rep1.pb.gz"
"$PERFGATE" pprof "$TMP/run.json" --keep-probe-frames -o "$TMP/kept.pb.gz"
"$PERFGATE" folded "$TMP/run.json" --keep-probe-frames -o "$TMP/kept.folded"
check "pprof -top = folded (--keep-probe-frames)" compare "$TMP/kept.folded" "$TMP/kept.pb.gz"

# the raw profile: the traced function in a mapping of its binary, with its file:line; the
# period of -F 999; cpu = samples x period
go tool pprof -raw "$TMP/run.pb.gz" >"$TMP/raw" 2>"$TMP/raw.err" ||
	{ cat "$TMP/raw.err" >&2; fail "go tool pprof -raw failed"; }
check_contains "period type cpu/nanoseconds" "$TMP/raw" '^PeriodType: cpu nanoseconds'
check_contains "period of -F 999" "$TMP/raw" '^Period: 1001001$'
check_contains "c has its file:line and a mapping" "$TMP/raw" \
	'^ *[0-9]*: 0x0 M=[0-9]* c .*sample_chain\.c:[0-9]'
check_contains "a mapping of the binary" "$TMP/raw" '/progs/sample_chain'
check "cpu = samples x period" python3 - "$TMP/raw" <<'PY'
import re, sys
rows = 0
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\d+)\s+(\d+): [\d ]+$", line)
    if m:
        rows += 1
        assert int(m.group(2)) == int(m.group(1)) * 1001001, line
assert rows > 0
PY

# bad input: one message, exit 2, nothing written
expect_exit 2 "$PERFGATE" pprof "$TMP/missing.json" -o "$TMP/x.pb.gz"
has "missing.json"
check "no file for a missing run" test ! -e "$TMP/x.pb.gz"
"$PERFGATE" record -q -r 1 --no-sample -f main -o "$TMP/nosample.json" -- ./sample_chain 1000
expect_exit 2 "$PERFGATE" pprof "$TMP/nosample.json" -o "$TMP/x.pb.gz"
has "no sampled stacks"
check "no file for a run without samples" test ! -e "$TMP/x.pb.gz"
check_eq "one line on stderr" 1 "$(wc -l <"$TMP/stderr")"
expect_exit 2 "$PERFGATE" pprof "$TMP/run.json"
has "-o FILE.pb.gz is required"
expect_exit 2 "$PERFGATE" pprof "$TMP/run.json" --rep 9 -o "$TMP/x.pb.gz"
has "no repetition 9"
expect_exit 2 "$PERFGATE" pprof "$TMP/run.json" -o "$TMP/nodir/x.pb.gz"
check "nothing in an unwritable place" test ! -e "$TMP/nodir"
