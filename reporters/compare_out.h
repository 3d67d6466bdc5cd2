/* SPDX-License-Identifier: MIT */
/*
 * reporters/compare_out.h - what `perfgate compare` writes: the table on stdout, the JUnit
 * XML report (libxml2) and GitLab's Code Quality report (reporters/codequality.c). The JSON
 * result is a file format: formats/result.h (pg_result_write).
 *
 * The file writers are atomic (temporary file + rename; nothing is left behind on failure) and
 * return 0 or a negative errno after logging one line (core/log.h).
 */
#ifndef PG_COMPARE_OUT_H
#define PG_COMPARE_OUT_H

#include <stdio.h>

#include "../core/run.h"
#include "../diff/compare.h"
#include "../formats/result.h"

/*
 * Human table: one line per function that is not unchanged (all of them with @verbose),
 * columns function, base, new, change, interval, verdict (with q and calls changes), then the
 * wall-time line, warnings, and a final verdict line: "perfgate: PASS ...",
 * "perfgate: REGRESSION in N functions" ("of the whole program", "in B benchmarks" when a
 * Google Benchmark program's benchmarks regressed, which lead the table:
 * reporters/gbench_text.h) or "perfgate: INCONCLUSIVE: reason".
 */
int pg_compare_write_text(const struct pg_comparison *c, const struct pg_run *base,
			  const struct pg_run *new, int verbose, FILE *out);

/*
 * JUnit XML valid against the Ant JUnit schema with GitLab's file and line attributes
 * (tests/data/JUnit.xsd): one <testsuite name="perfgate"> with <properties> (alpha,
 * min_effect, metric, base/new repetitions, commits, hosts, commands), one <testcase
 * classname=BINARY name=FUNCTION file=PATH line=N> per compared function (file and line where
 * its declaration is known: PATH relative to the directory @root when under it, see
 * pg_fmt_relative(); NULL @root: as the run has it), a <failure type="regression"> with the
 * change, interval and q for each regression, <skipped/> for inconclusive ones.
 */
int pg_compare_write_junit(const struct pg_comparison *c, const struct pg_run *base,
			   const struct pg_run *new, const char *root, const char *path);

/*
 * GitLab's Code Quality report (artifacts:reports:codequality): a JSON array with one finding
 * per regressed function (severity "major", check_name "perfgate-regression") and per notable
 * one ("minor", "perfgate-notable"), regressions first, each at the function's declaration:
 * location.path relative to the repository root @root, location.lines.begin its line. A
 * function without a known declaration, or declared outside @root, has none (the JUnit report
 * and the summary name it); no finding is "[]". The fingerprint is the same for the same
 * check of the same function in the same file, whatever its numbers and line.
 * pg_compare_codequality() returns the text in *@out (malloc'd, ends in a newline): 0 or
 * -ENOMEM; pg_compare_write_codequality() writes it to @path atomically.
 */
int pg_compare_codequality(const struct pg_comparison *c, const char *root, char **out);
int pg_compare_write_codequality(const struct pg_comparison *c, const char *root,
				 const char *path);

#endif
