#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The subcommands of perfgate and their options, read from the C sources (cli/*.c, cli/cli.h),
as bpftool's test_bpftool_synctypes.py reads bpftool's: what the help texts and the
documentation are checked against (tests/e2e/test_help_sync.sh), and what the bash completion
is generated from (tools/gen-completion.py).

  cli_tables.py SRCDIR      print "SUBCOMMAND --long[=-s]" lines, one per option

A subcommand is an entry { "name", do_name } of main.c's cmds[] (help and version aside). Its
options are the entries { "long", ARG, NULL, VAL } of the `longopts[]` tables in its do_name()
and in the cli/ functions it calls (pg_profile_args_parse() for folded, flamegraph, pprof),
and, for a subcommand with subcommands of its own (history), in the other functions of its
cmd_*.c file and of the NAME_*.c files beside it; with the PG_*_LONGOPTS macros of cli.h expanded; VAL 'c' is the option's short form -c when
the getopt string of that function (PG_*_SHORTOPTS expanded) has c.
"""
import os
import re
import sys

ENTRY = re.compile(r'\{\s*"([a-z0-9-]+)"\s*,\s*\w+\s*,\s*NULL\s*,\s*(\'.\'|\w+)\s*\}')
FUNC = re.compile(r"^(?:static\s+)?int\s+(\w+)\(([^)]*)\)\s*\n\{\n(.*?)^\}", re.S | re.M)
NOT_COMMANDS = {"help", "--help", "-h", "version", "--version"}


def macros(src):
    """#define NAME \\ ... lines of cli/cli.h: NAME -> text."""
    text = open(os.path.join(src, "cli", "cli.h")).read().replace("\\\n", " ")
    return dict(re.findall(r"^#define\s+(PG_\w+)\s+(.*)$", text, re.M))


def expand(text, defs):
    for _ in range(3):
        text = re.sub(r"\bPG_\w+(?:LONGOPTS|SHORTOPTS)\b",
                      lambda m: defs.get(m.group(0), m.group(0)), text)
    return text


def getopt_string(body, defs):
    m = re.search(r"getopt_long\([^,]+,[^,]+,\s*((?:\"[^\"]*\"\s*|PG_\w+\s*)+),",
                  expand(body, defs))
    return "".join(re.findall(r'"([^"]*)"', m.group(1))) if m else ""


def functions(src, defs):
    """cli/*.c functions with a longopts[] table: name -> [(long, short or None)]; and every
    function's body. A table handed to a parser (a function that takes longopts) has the
    parser's getopt string."""
    out = {}
    bodies = {}
    parsers = ""
    found = []
    files = {}
    cli = os.path.join(src, "cli")
    for f in sorted(os.listdir(cli)):
        if not f.endswith(".c"):
            continue
        for name, params, body in FUNC.findall(open(os.path.join(cli, f)).read()):
            bodies[name] = body
            if "longopts" in params:
                parsers += getopt_string(body, defs)
            found.append((name, body))
            files[name] = f
    for name, body in found:
        table = re.search(r"longopts\[\]\s*=\s*\{(.*?)\n\t\};", body, re.S)
        if table:
            shorts = getopt_string(body, defs) or parsers
            opts = []
            for lng, val in ENTRY.findall(expand(table.group(1), defs)):
                c = val[1] if val.startswith("'") else None
                opts.append((lng, c if c and c in shorts.replace(":", "") else None))
            out[name] = opts
    return out, bodies, files


def commands(src):
    """main.c's cmds[]: [(name, function)] in the table's order, help and version aside."""
    text = open(os.path.join(src, "cli", "main.c")).read()
    table = re.search(r"cmds\[\]\s*=\s*\{(.*?)\n\};", text, re.S).group(1)
    return [(n, f) for n, f in re.findall(r'\{\s*"([^"]+)"\s*,\s*(\w+)\s*\}', table)
            if n not in NOT_COMMANDS]


def options(src):
    """{subcommand: [(long, short or None)]}, the options of each, "help" left out."""
    defs = macros(src)
    tables, bodies, files = functions(src, defs)
    out = {}
    for name, fn in commands(src):
        opts = list(tables.get(fn, []))
        for callee in re.findall(r"\b(\w+)\(", bodies.get(fn, "")):
            if callee != fn and callee in tables:
                opts += tables[callee]
        # a command with subcommands of its own (a local table of handlers, as bpftool's):
        # the handlers' tables, in the command's file
        for other in tables:
            if other != fn and (files.get(other) == files.get(fn) or
                                files.get(other, "").startswith(name + "_")):
                opts += tables[other]
        seen = set()
        out[name] = [o for o in opts if o[0] != "help" and not (o[0] in seen or seen.add(o[0]))]
    return out


if __name__ == "__main__":
    for cmd, opts in options(sys.argv[1] if len(sys.argv) > 1 else ".").items():
        for lng, c in opts:
            print("%s --%s%s" % (cmd, lng, "=-" + c if c else ""))
