// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the compare path. The input is two run files separated by a NUL byte;
 * when both parse, they are compared (pg_compare) and the table, JUnit, Code Quality and JSON
 * writers run.
 * Whatever the runs hold, nothing crashes, leaks or divides by zero, and the verdicts are
 * consistent with the counts.
 */
#include "../../formats/runfile.h"
#include "../../diff/compare.h"
#include "../../reporters/compare_out.h"
#include "fuzz.h"

static char junit[128], json[128], cq[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the file writers are atomic (temporary file and rename): give them a directory */
	const char *dir = fuzz_tmp("compare", true);

	snprintf(junit, sizeof(junit), "%s/junit.xml", dir);
	snprintf(json, sizeof(json), "%s/result.json", dir);
	snprintf(cq, sizeof(cq), "%s/codequality.json", dir);
	return 0;
}

static void check_counts(const struct pg_comparison *c)
{
	size_t by_verdict = c->nregressions + c->nimprovements + c->nunchanged +
			    c->ninconclusive + c->nadded + c->nremoved;

	if (by_verdict != c->n)
		abort();
	if ((c->overall == PG_OVERALL_REGRESSION) != (c->nregressions > 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	struct pg_compare_opts opts = PG_COMPARE_OPTS_DEFAULT;
	size_t na = nul ? (size_t)(nul - data) : size;
	char *a = fuzz_text(data, na);
	char *b = fuzz_text(nul ? nul + 1 : data, nul ? size - na - 1 : 0);
	struct pg_run base, new;
	struct pg_comparison cmp;

	fuzz_quiet();
	pg_run_init(&base);
	pg_run_init(&new);
	pg_comparison_init(&cmp);
	if (!pg_runfile_parse(a, na, "base", &base) &&
	    !pg_runfile_parse(b, nul ? size - na - 1 : 0, "new", &new)) {
		/* the input's size picks the options, so that all of them get exercised */
		opts.metric = size & 1 ? PG_METRIC_TOTAL : PG_METRIC_SELF;
		opts.min_reps = size & 2 ? 2 : 5;
		if (!pg_compare(&base, &new, &opts, &cmp)) {
			check_counts(&cmp);
			pg_compare_write_text(&cmp, &base, &new, 1, fuzz_null());
			pg_compare_write_junit(&cmp, &base, &new, "/", junit);
			pg_compare_write_codequality(&cmp, "/", cq);
			pg_result_write(&cmp, &base, &new, json);
		}
	}
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
	free(a);
	free(b);
	return 0;
}
