/* SPDX-License-Identifier: MIT */
/*
 * cli/cli.h - perfgate's subcommands (bpftool style: each parses its own options).
 * Each returns the process exit code: 0 pass, 1 regression found, 2 perfgate could not do its
 * job (messages on stderr).
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#define PG_EXIT_OK 0
#define PG_EXIT_REGRESSION 1
#define PG_EXIT_ERROR 2

int do_record(int argc, char **argv);
int do_report(int argc, char **argv);
int do_compare(int argc, char **argv);
int do_vote(int argc, char **argv);
int do_merge(int argc, char **argv);
int do_folded(int argc, char **argv);
int do_flamegraph(int argc, char **argv);

/* Strict number parsing for options: 0, or -EINVAL after logging "invalid OPT 'TEXT': ...". */
int pg_parse_double(const char *opt, const char *text, double lo, double hi, double *out);
int pg_parse_u32(const char *opt, const char *text, unsigned int lo, unsigned int hi,
		 unsigned int *out);

#endif
