// SPDX-License-Identifier: MIT
/*
 * diff/cpusplit.c - the on-CPU and off-CPU parts of a function's change (cpusplit.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/numfmt.h"
#include "cpusplit.h"
#include "stats.h"

/* Per-call medians of one side: on-CPU, off-CPU and runnable time of the metric. */
struct side {
	double on, off, runq;
};

static int side_medians(const struct pg_run *run, const uint32_t *ids, size_t n,
			const struct pg_calib *calib, enum pg_metric metric, struct side *out)
{
	double *v = malloc(3 * (run->nreps ? run->nreps : 1) * sizeof(*v));
	double *on = v, *off = v ? v + run->nreps : NULL, *rq = v ? v + 2 * run->nreps : NULL;
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t r = 0; r < run->nreps; r++) {
		double calls = 0, t = 0, o = 0, q = 0;

		for (size_t i = 0; i < n; i++) {
			const struct pg_fstat *st = pg_rep_find(&run->reps[r], ids[i]);
			const struct pg_func *fn = &run->funcs[ids[i]];

			if (!st)
				continue;
			calls += (double)st->calls;
			if (metric == PG_METRIC_TOTAL) {
				t += pg_fstat_comp_total(calib, fn, st);
				o += (double)st->offcpu_ns;
				q += (double)st->runq_ns;
			} else {
				t += pg_fstat_comp_self(calib, fn, st);
				o += (double)st->self_offcpu_ns;
				q += (double)st->self_runq_ns;
			}
		}
		if (!calls)
			continue;
		on[k] = (t > o ? t - o : 0) / calls;
		off[k] = o / calls;
		rq[k++] = q / calls;
	}
	out->on = k ? pg_median(on, k) : NAN;
	out->off = k ? pg_median(off, k) : NAN;
	out->runq = k ? pg_median(rq, k) : NAN;
	free(v);
	return 0;
}

int pg_cpusplit(struct pg_fcmp *f, const struct pg_run *base, const uint32_t *bids, size_t nb,
		const struct pg_run *new, const uint32_t *nids, size_t nn,
		const struct pg_calib *calib, enum pg_metric metric, bool no_runq)
{
	struct side b, n;
	int err;

	/* --metric cpu: the change judged is on-CPU by definition */
	if (metric == PG_METRIC_CPU || !base->meta.offcpu || !new->meta.offcpu ||
	    !(f->base_ns > 0))
		return 0;
	err = side_medians(base, bids, nb, calib, metric, &b);
	err = err ?: side_medians(new, nids, nn, calib, metric, &n);
	if (err || isnan(b.on) || isnan(n.on))
		return err;
	if (no_runq) {	/* judged without its waits for a CPU: what is left off-CPU is blocked */
		n.off -= n.runq;
		b.off -= b.runq;
		n.runq = b.runq = 0;
	}
	f->change_cpu = (n.on - b.on) / f->base_ns;
	f->change_offcpu = (n.off - b.off) / f->base_ns;
	f->change_runq = (n.runq - b.runq) / f->base_ns;
	if (b.on + b.off + n.on + n.off > 0)
		f->blocked_share = (b.off - b.runq + n.off - n.runq) /
				   (b.on + b.off + n.on + n.off);
	return 0;
}

/* Is @x at most PG_SPLIT_MINOR (a tenth) of |x| + |y|? */
static bool minor(double x, double y)
{
	return fabs(x) <= PG_SPLIT_MINOR * (fabs(x) + fabs(y));
}

const char *pg_cpusplit_words(const struct pg_fcmp *f, char *buf, size_t size)
{
	double c = f->change_cpu, o = f->change_offcpu, q = f->change_runq, bl = o - q;
	char a[PG_FMT_LEN], b[PG_FMT_LEN];
	const char *kind;

	if (!size)
		return buf;
	buf[0] = 0;
	if (isnan(c) || isnan(o) || isnan(q) || (c == 0 && o == 0))
		return buf;
	kind = minor(q, bl) ? "blocked" : minor(bl, q) ? "waiting for a CPU" :
	       "blocked and waiting for a CPU";
	if (minor(o, c))
		snprintf(buf, size, "all of it on-CPU");
	else if (minor(c, o))
		snprintf(buf, size, "all of it off-CPU, %s", kind);
	else
		snprintf(buf, size, "%s on-CPU, %s off-CPU (%s)", pg_fmt_pct(a, sizeof(a), c),
			 pg_fmt_pct(b, sizeof(b), o), kind);
	return buf;
}

void pg_cpusplit_cpu_time(const struct pg_calib *calib, const struct pg_func *f,
			  const struct pg_fstat *st, double *raw, double *comp)
{
	double off = (double)st->self_offcpu_ns;

	*raw = (double)st->self_ns - off;
	*comp = pg_fstat_comp_self(calib, f, st) - off;
	*comp = *comp > 0 ? *comp : 0;
}

void pg_cpusplit_reason(struct pg_fcmp *f)
{
	size_t len = strnlen(f->reason, sizeof(f->reason));
	char w[96];

	if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT &&
	    f->verdict != PG_VERDICT_NOTABLE)
		return;
	if (*pg_cpusplit_words(f, w, sizeof(w)) && len + 1 < sizeof(f->reason))
		snprintf(f->reason + len, sizeof(f->reason) - len, "%s%s", len ? "; " : "", w);
}
