/* SPDX-License-Identifier: MIT */
/*
 * reporters/compare_out.h - what `perfgate compare` writes: the table on stdout and the JUnit
 * XML report (libxml2). The JSON result is a file format: formats/result.h (pg_result_write).
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
 * JUnit XML valid against the Ant JUnit schema (shared/schemas/JUnit.xsd): one <testsuite
 * name="perfgate"> with <properties> (alpha, min_effect, metric, base/new repetitions,
 * commits, hosts, commands), one <testcase classname=BINARY name=FUNCTION> per compared
 * function, a <failure type="regression"> with the change, interval and q for each regression,
 * <skipped/> for inconclusive ones.
 */
int pg_compare_write_junit(const struct pg_comparison *c, const struct pg_run *base,
			   const struct pg_run *new, const char *path);

#endif
