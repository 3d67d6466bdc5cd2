# SPDX-License-Identifier: MIT
# Help text, documentation and option tables agree, as bpftool's test_bpftool_synctypes.py keeps
# bpftool's: every long option of each subcommand's getopt table (tools/cli_tables.py reads
# them from cli/*.c) is listed by `perfgate SUBCOMMAND --help` (as --long, or its short form),
# and is named in README.md or docs/; every option line of a --help (one that starts with -x or
# --long) names an option of the table; every subcommand is in `perfgate --help` and README.
# The installed man page and bash completion come from the same help texts
# (tests/e2e/test_install.sh).
source "$(dirname "$0")/lib.sh"
SRC=$PERFGATE_SRCDIR

python3 - "$SRC" "$PERFGATE" <<'PY'
import glob, os, re, subprocess, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tools"))
import cli_tables

src, perfgate = sys.argv[1], sys.argv[2]
docs = open(os.path.join(src, "README.md")).read()
for f in sorted(glob.glob(os.path.join(src, "docs", "*.md"))):
    docs += open(f).read()
problems = []


def has(text, lng, short):
    if re.search(r"--%s(?![a-z0-9-])" % re.escape(lng), text):
        return True
    return bool(short) and re.search(r"(?<![\w-])-%s(?![\w-])" % re.escape(short), text)


top = subprocess.run([perfgate, "--help"], capture_output=True, text=True).stdout
tables = cli_tables.options(src)
assert len(tables) >= 9, tables
for cmd, opts in tables.items():
    assert opts or cmd in ("version",), cmd
    if not re.search(r"^  %s " % re.escape(cmd), top, re.M):
        problems.append("perfgate --help does not list the subcommand %s" % cmd)
    if not re.search(r"`%s[ `]" % re.escape(cmd), docs):
        problems.append("README.md and docs/ do not name the subcommand %s" % cmd)
    r = subprocess.run([perfgate, cmd, "--help"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.startswith("usage: perfgate %s" % cmd):
        problems.append("perfgate %s --help: exit %d, %r" % (cmd, r.returncode, r.stdout[:60]))
    text = r.stdout
    # a subcommand with commands of its own (history): their help texts too
    if re.match(r"usage: perfgate %s COMMAND" % re.escape(cmd), text):
        for sub in re.findall(r"^  ([a-z]+) ", r.stdout, re.M):
            s = subprocess.run([perfgate, cmd, sub, "--help"], capture_output=True, text=True)
            if s.returncode != 0 or not s.stdout.startswith("usage: perfgate %s %s" % (cmd, sub)):
                problems.append("perfgate %s %s --help: exit %d" % (cmd, sub, s.returncode))
            text += s.stdout
    for lng, short in opts:
        if not has(text, lng, short):
            problems.append("perfgate %s --help does not list --%s" % (cmd, lng))
        if not has(docs, lng, short):
            problems.append("README.md and docs/ do not mention %s's --%s" % (cmd, lng))
    # the other way: an option line of the help text names an option of the table
    longs = {lng for lng, _ in opts} | {"help"}
    shorts = {s for _, s in opts if s} | {"h"}
    for line in text.splitlines():
        m = re.match(r"^\s+(?:-(\w)(?:,\s+|\s))?\s*(?:--([a-z0-9-]+))?", line)
        # (an option line is indented by at most 8 spaces; its description goes on deeper)
        if not m or not (m.group(1) or m.group(2)) or not re.match(r"^ {1,8}-", line):
            continue
        if m.group(2) and m.group(2) not in longs:
            problems.append("perfgate %s --help lists --%s, which it does not take"
                            % (cmd, m.group(2)))
        if m.group(1) and not m.group(2) and m.group(1) not in shorts:
            problems.append("perfgate %s --help lists -%s, which it does not take"
                            % (cmd, m.group(1)))
for p in problems:
    print("FAIL: " + p)
print("%d subcommands, %d options checked" % (len(tables), sum(map(len, tables.values()))))
sys.exit(1 if problems else 0)
PY

# the checker finds drift: a table with an option no help text or document names
T=$TMP/src
mkdir -p "$T/cli"
cp "$SRC"/cli/*.c "$SRC"/cli/*.h "$T/cli/"
sed -i 's/{ "system", required_argument, NULL, .s. },/&\n\t\t{ "no-such-option", no_argument, NULL, 0x777 },/' \
	"$T/cli/cmd_vote.c"
check_eq "the checker does not see an option added to a table" "vote --no-such-option" \
	"$(python3 "$SRC/tools/cli_tables.py" "$T" | grep -- --no-such-option)"
