#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write perfgate's bash completion to stdout, generated from the option tables of the sources
(tools/cli_tables.py): the subcommands of cli/main.c, and each one's long and short options.

  gen-completion.py SRCDIR > perfgate.bash

`make install` installs it as $(PREFIX)/share/bash-completion/completions/perfgate. After a
subcommand, a word that starts with '-' completes to its options, the value of an option that
takes a fixed set of words to one of them, anything else to file names.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_tables  # noqa: E402

def choices(src):
    """The options that take one of a few words, as their usage texts in cli/ write them:
    "--metric self|total|cpu" -> {"--metric": "self total cpu"} (the rest take files, numbers
    or text)."""
    out = {}
    cli = os.path.join(src, "cli")
    for f in sorted(os.listdir(cli)):
        if f.endswith(".c"):
            for opt, words in re.findall(r"(--[a-z][a-z0-9-]*)[ =]([a-z]+(?:\|[a-z]+)+)",
                                         open(os.path.join(cli, f)).read()):
                out[opt] = words.replace("|", " ")
    return out


def main(src):
    opts = cli_tables.options(src)
    out = ["# bash completion for perfgate, generated from cli/ by tools/gen-completion.py:",
           "# do not edit",
           "_perfgate()",
           "{",
           "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
           "\tlocal cmd='' i words",
           "\tfor ((i = 1; i < COMP_CWORD; i++)); do",
           "\t\tcase ${COMP_WORDS[i]} in",
           "\t\t-*) ;;",
           "\t\t*) cmd=${COMP_WORDS[i]}; break ;;",
           "\t\tesac",
           "\tdone",
           "\tcase $prev in"]
    for opt, words in sorted(choices(src).items()):
        out.append("\t%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;" % (opt, words))
    out += ["\tesac",
            "\tcase $cmd in",
            "\t'') words='%s -v --verbose -q --quiet --help --version' ;;"
            % " ".join(list(opts) + ["version", "help"])]
    for cmd, o in opts.items():
        words = ["--" + lng for lng, _ in o] + ["-" + c for _, c in o if c] + ["--help"]
        out.append("\t%s) words='%s' ;;" % (cmd, " ".join(words)))
    out += ["\t*) words='' ;;",
            "\tesac",
            "\tif [ -z \"$cmd\" ] || [[ $cur == -* ]]; then",
            "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))",
            "\telse",
            "\t\tcompopt -o filenames 2>/dev/null",
            "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))",
            "\tfi",
            "}",
            "complete -F _perfgate perfgate"]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
