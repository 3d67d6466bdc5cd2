#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the manual page perfgate(1) to stdout, generated from the help texts of a perfgate
binary: `perfgate --help` for the synopsis and the list of commands, `perfgate COMMAND --help`
for each command's section, as the program prints them (tests/e2e/test_help_sync.sh keeps them
in step with the option tables).

  gen-man.py PERFGATE > perfgate.1

`make install` installs it as $(PREFIX)/share/man/man1/perfgate.1.
"""
import re
import subprocess
import sys


def roff(text):
    """Text for a no-fill block: backslashes and dashes escaped, no line read as a request."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main(perfgate):
    def run(*args):
        return subprocess.run([perfgate, *args], capture_output=True, text=True,
                              check=True).stdout

    top = run("--help")
    version = run("version").split()[-1]
    commands = [c for c in re.findall(r"^  ([a-z]+)\b", top, re.M) if c != "version"]
    usage, rest = top.split("\n\n", 1)
    page = [
        '.TH PERFGATE 1 "" "perfgate %s" "User Commands"' % version,
        ".SH NAME",
        "perfgate \\- did this change make my program slower, and where?",
        ".SH SYNOPSIS",
        ".nf",
        roff(usage.replace("usage: ", "")),
        ".fi",
        ".SH DESCRIPTION",
        "perfgate records a program under exact per-function eBPF uprobe tracing and a sampled",
        "CPU profile, compares two such recordings function by function with statistics that",
        "treat each run of the program as one observation, and reports regressions for",
        "continuous integration (JUnit, Markdown, review votes, flame graphs).",
        "The commands, as \\fBperfgate \\-\\-help\\fR lists them:",
        ".PP",
        ".nf",
        roff(rest),
        ".fi",
        ".SH COMMANDS",
        "Each command's options, as \\fBperfgate\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR prints them.",
    ]
    for cmd in commands:
        page += [".SS " + cmd, ".nf", roff(run(cmd, "--help")), ".fi"]
    page += [
        ".SH EXIT STATUS",
        "0: no regression; 1: a regression was found; 2: perfgate could not do its job",
        "(a message on standard error says why).",
        ".SH FILES",
        ".TP",
        ".I libperfgate\\-preload.so",
        "the library preloaded into the benchmark so that C++ exceptions pass traced",
        "functions: looked for at \\fB$PERFGATE_PRELOAD\\fR, next to the executable, in",
        "\\fI../lib/perfgate/\\fR from it, and where \\fBmake install\\fR put it.",
        ".SH SEE ALSO",
        ".BR bpftool (8),",
        ".BR perf (1);",
        "the documentation in the source tree: README.md and docs/.",
    ]
    print("\n".join(page))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "perfgate")
