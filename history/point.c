// SPDX-License-Identifier: MIT
/*
 * history/point.c - the point table's rows: each metric's median and its interval as plain
 * columns (point.h).
 */
#include <errno.h>
#include <math.h>

#include "../diff/hcheck.h"
#include "../diff/stats.h"
#include "point.h"

void pg_hpoint_init(struct pg_hpoint *p)
{
	for (int m = 0; m <= PG_HM_MAX; m++)
		p->v[m][0] = p->v[m][1] = p->v[m][2] = NAN;
}

int pg_hpoint_set(struct pg_hpoint *p, int metric, const double *v, size_t n, uint32_t reps)
{
	double *x = p->v[metric], sum = 0;

	if (metric == PG_HM_CALLS) {
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		x[0] = sum / (reps > n ? reps : n);
		return 0;
	}
	x[0] = pg_median(v, n);
	if (isnan(x[0]) || pg_median_interval(v, n, PG_MEDIAN_INTERVAL_ALPHA, &x[1], &x[2]))
		return -ENOMEM;
	return 0;
}

int pg_hpoint_put(struct hrows *w, int64_t session, int64_t object, const struct pg_hpoint *p)
{
	/* the columns' metrics in the table's order; calls has its median only */
	static const int order[] = { PG_HM_SELF, PG_HM_TOTAL, PG_HM_CPU, PG_HM_CALLS, PG_HM_WALL,
				     PG_HM_PCPU };
	int col = 3, err = hrows_int(w, 1, session) ?: hrows_int(w, 2, object);

	for (size_t i = 0; !err && i < sizeof(order) / sizeof(order[0]); i++) {
		const double *x = p->v[order[i]];

		err = hrows_double(w, col++, x[0]);
		if (!err && order[i] != PG_HM_CALLS)
			err = hrows_double(w, col++, x[1]) ?: hrows_double(w, col++, x[2]);
	}
	return err ?: hrows_put(w);
}
