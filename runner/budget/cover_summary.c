// SPDX-License-Identifier: MIT
/*
 * runner/budget/cover_summary.c - what a choice of functions covers of the sampled first pass's CPU
 * time, said in one block (cover_summary.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../core/sort.h"
#include "cover_summary.h"

int pg_covered_count(const struct pg_cov_map *m, const bool *keep, struct pg_covered *c)
{
	memset(c, 0, sizeof(*c));
	c->leaf = calloc(m->nfuncs ? m->nfuncs : 1, sizeof(*c->leaf));
	if (!c->leaf)
		return -ENOMEM;
	c->nfuncs = m->nfuncs;
	for (size_t k = 0; k < m->nstacks; k++) {
		size_t b = m->start[k], e = m->start[k + 1];

		c->samples += m->count[k];
		if (b == e) {
			c->elsewhere += m->count[k];
			continue;
		}
		c->leaf[m->ids[e - 1]] += m->count[k];
		if (keep[m->ids[e - 1]])
			c->exact += m->count[k];
		else
			c->unprobed += m->count[k];
	}
	return 0;
}

void pg_covered_release(struct pg_covered *c)
{
	free(c->leaf);
	memset(c, 0, sizeof(*c));
}

/* @name for a line of its own: whole, or cut at the end with "..." past @max characters. */
static void say_name(double pct, const char *name, size_t max)
{
	size_t n = strlen(name);

	if (n <= max)
		pg_info("    %5.1f%%  %s", pct, name);
	else
		pg_info("    %5.1f%%  %.*s...", pct, (int)(max - 3), name);
}

void pg_covered_say(const struct pg_covered *c, const struct pg_run *run, const bool *keep,
		    size_t nkept)
{
	double all = c->samples ? (double)c->samples : 1;
	uint32_t *order = calloc(c->nfuncs ? c->nfuncs : 1, sizeof(*order));
	double *leaf = malloc((c->nfuncs ? c->nfuncs : 1) * sizeof(*leaf));
	size_t n = 0;

	if (!c->samples)
		goto out;
	pg_info("what the exact probes cover, of the first pass's %llu samples of CPU time:",
		(unsigned long long)c->samples);
	pg_info("  %5.1f%% in the self time of the %zu traced function%s", 100 * c->exact / all,
		nkept, nkept == 1 ? "" : "s");
	if (c->unprobed && order && leaf) {
		pg_info("  %5.1f%% in functions left out (too costly to probe, or too little time "
			"of their own), most:", 100 * c->unprobed / all);
		for (uint32_t i = 0; i < c->nfuncs; i++) {
			leaf[i] = (double)c->leaf[i];
			if (!keep[i] && c->leaf[i])
				order[n++] = i;
		}
		pg_sort_idx32_desc(leaf, order, n);
		for (size_t k = 0; k < n && k < PG_COVERED_NAMES; k++)
			say_name(100 * (double)c->leaf[order[k]] / all,
				 run->funcs[order[k]].display, PG_COVERED_NAME_MAX);
	}
	pg_info("  %5.1f%% elsewhere (code that was not a candidate: the system's libraries, "
		"the kernel, unsymbolized)", 100 * c->elsewhere / all);
out:
	free(order);
	free(leaf);
}
