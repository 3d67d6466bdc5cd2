// SPDX-License-Identifier: MIT
/*
 * formats/runfile.c - run files (formats/runfile.h): the checks the reader and the writer share
 * and the size limit. The writer is runfile_write.c, the reader runfile_read.c; the format is
 * described field by field in docs/run-format.md: keep the three in step.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "runfile.h"

static int check_strv(char *const *v, size_t n, const char *what, char *why, size_t whylen)
{
	if (n && !v) {
		snprintf(why, whylen, "%s is missing", what);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i]) {
			snprintf(why, whylen, "%s[%zu] is missing", what, i);
			return -EINVAL;
		}
	}
	return 0;
}

/* pg_run_validate() plus what the file format adds to it. */
int pg_runfile_check(const struct pg_run *run, char *why, size_t whylen)
{
	const struct pg_meta *m = &run->meta;
	int err = pg_run_validate(run, why, whylen);

	if (!err)
		err = check_strv(m->argv, m->argc, "command", why, whylen);
	if (!err)
		err = check_strv(m->filters, m->nfilters, "options.functions", why, whylen);
	if (!err)
		err = check_strv(m->excludes, m->nexcludes, "options.exclude", why, whylen);
	if (err)
		return err;
	for (size_t i = 0; i < run->nfuncs; i++) {
		if (!*run->funcs[i].name || !*run->funcs[i].binary) {
			snprintf(why, whylen, "function %zu has an empty name or binary", i);
			return -EINVAL;
		}
	}
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t k = 0; k < run->reps[r].nstats; k++) {
			const struct pg_fstat *st = &run->reps[r].stats[k];
			unsigned __int128 lo = (unsigned __int128)st->min_ns * st->calls;
			unsigned __int128 hi = (unsigned __int128)st->max_ns * st->calls;

			/* every call lasted min_ns..max_ns (a 0 ns call is kept as min 1 ns) */
			if (st->total_ns > hi || (unsigned __int128)st->total_ns + st->calls < lo) {
				snprintf(why, whylen, "repetition %zu, function %u: \"total_ns\" %"
					 PRIu64 " is not between calls x min_ns and calls x max_ns",
					 r, st->func, st->total_ns);
				return -EINVAL;
			}
		}
	}
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		if (rep->exit_code < PG_RUNFILE_EXIT_CODE_MIN ||
		    rep->exit_code > PG_RUNFILE_EXIT_CODE_MAX ||
		    rep->signal < 0 || rep->signal > PG_RUNFILE_SIGNAL_MAX) {
			snprintf(why, whylen, "repetition %zu: exit code %d or signal %d is out of "
				 "range", r, rep->exit_code, rep->signal);
			return -EINVAL;
		}
	}
	return 0;
}

long long pg_runfile_max_bytes(void)
{
	static bool warned;

	return pg_jr_limit_env(PG_RUNFILE_MAX_MB_ENV, PG_RUNFILE_DEFAULT_MAX_MB, &warned);
}
