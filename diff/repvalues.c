// SPDX-License-Identifier: MIT
/*
 * diff/repvalues.c - functions matched across two runs and their per-repetition samples
 * (repvalues.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpusplit.h"
#include "repvalues.h"

static int cmp_key(const void *pa, const void *pb)
{
	const struct pg_fkey *a = pa, *b = pb;
	int d = strcmp(a->binary, b->binary);

	if (!d)
		d = strcmp(a->name, b->name);
	if (!d)
		d = strcmp(a->scope, b->scope);
	if (!d)
		d = a->side - b->side;
	if (!d)
		d = (a->id > b->id) - (a->id < b->id);
	return d;
}

/*
 * NEW's program's functions pair with BASE's program's when the two have different base names
 * (perfgate ab ./tool-old ./tool-new) and most of their functions' names are the same: the
 * name NEW's program's functions are keyed by, or NULL when they keep their own.
 */
static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The symbol names of @run's functions in files named @name but main, which every program
 * has, sorted (NULL: no memory)
 */
static const char **names_in(const struct pg_run *run, const char *name, size_t *n)
{
	const char **v = malloc((run->nfuncs ? run->nfuncs : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < run->nfuncs; i++)
		if (!strcmp(pg_basename(run->funcs[i].binary), name) &&
		    strcmp(run->funcs[i].name, "main"))
			v[(*n)++] = run->funcs[i].name;
	if (v && *n > 1)
		qsort(v, *n, sizeof(*v), cmp_strp);
	return v;
}

/* Do two runs' programs look like two builds of one: half the functions of the one with fewer
 * (by symbol name, main aside) in the other too? */
static bool same_program(const struct pg_run *base, const char *b, const struct pg_run *new,
			 const char *n)
{
	size_t nb, nn, common = 0;
	const char **x = names_in(base, b, &nb), **y = names_in(new, n, &nn);

	for (size_t i = 0, j = 0; x && y && i < nb && j < nn;) {
		int c = strcmp(x[i], y[j]);

		common += !c;
		i += c <= 0;
		j += c >= 0;
	}
	free(x);
	free(y);
	return common && 2 * common >= (nb < nn ? nb : nn);
}

static const char *program_alias(const struct pg_run *base, const struct pg_run *new)
{
	const char *b = base->meta.program, *n = new->meta.program;

	if (!b || !n || !strcmp(pg_basename(b), pg_basename(n)))
		return NULL;
	/* NEW has another file of that name: two of its files would share one key */
	for (size_t i = 0; i < new->nfuncs; i++)
		if (!strcmp(pg_basename(new->funcs[i].binary), pg_basename(b)))
			return NULL;
	/* two programs that only share main are not one program renamed */
	return same_program(base, pg_basename(b), new, pg_basename(n)) ? pg_basename(b) : NULL;
}

void pg_fkeys_fill(struct pg_fkey *keys, const struct pg_run *base, const struct pg_run *new)
{
	size_t nkeys = base->nfuncs + new->nfuncs;
	const char *alias = program_alias(base, new);

	for (size_t i = 0; i < nkeys; i++) {
		const struct pg_run *run = i < base->nfuncs ? base : new;
		const struct pg_func *fn = &run->funcs[i < base->nfuncs ? i : i - base->nfuncs];

		keys[i].binary = pg_basename(fn->binary);
		if (alias && run == new && !strcmp(keys[i].binary, pg_basename(new->meta.program)))
			keys[i].binary = alias;
		keys[i].name = fn->name;
		keys[i].scope = fn->scope ? fn->scope : "";
		keys[i].display = fn->display ? fn->display : fn->name;
		keys[i].src_file = fn->src_file;
		keys[i].src_line = fn->src_line;
		keys[i].side = i >= base->nfuncs;
		keys[i].id = fn->id;
		keys[i].code = fn->code;
	}
	qsort(keys, nkeys, sizeof(*keys), cmp_key);
}

bool pg_fkey_same(const struct pg_fkey *a, const struct pg_fkey *b)
{
	return !strcmp(a->binary, b->binary) && !strcmp(a->name, b->name) &&
	       !strcmp(a->scope, b->scope);
}

bool pg_fkeys_leaf(const struct pg_run *run, const struct pg_fkey *keys, size_t nk)
{
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t i = 0; i < nk; i++) {
			const struct pg_fstat *st = pg_rep_find(&run->reps[r], keys[i].id);

			for (int k = 0; st && k < PG_SITE_COUNT; k++)
				if (st->desc[k])
					return false;
		}
	}
	return true;
}

size_t pg_fkeys_group(const struct pg_fkey *keys, size_t nkeys, size_t i,
		      const struct pg_run *base, const struct pg_run *new, size_t *nb, bool *leaf)
{
	size_t j;

	*nb = 0;
	for (j = i; j < nkeys && pg_fkey_same(&keys[j], &keys[i]); j++)
		*nb += keys[j].side == 0;
	*leaf = pg_fkeys_leaf(base, keys + i, *nb) &&
		pg_fkeys_leaf(new, keys + i + *nb, j - i - *nb);
	return j;
}

int pg_sample_init(struct pg_sample *s, size_t cap)
{
	s->n = 0;
	s->raw = malloc((cap ? cap : 1) * sizeof(double));
	s->log = malloc((cap ? cap : 1) * sizeof(double));
	s->pair = malloc((cap ? cap : 1) * sizeof(uint32_t));
	return s->raw && s->log && s->pair ? 0 : -ENOMEM;
}

void pg_sample_release(struct pg_sample *s)
{
	free(s->raw);
	free(s->log);
	free(s->pair);
}

void pg_sample_push(struct pg_sample *s, double v, uint32_t pair)
{
	s->raw[s->n] = v;
	s->pair[s->n] = pair;
	s->log[s->n] = log(v > PG_MIN_NS ? v : PG_MIN_NS);
	s->n++;
}

/*
 * Take @st's waits for a CPU (runnable, not running) out of its time @raw and @comp of
 * @metric (self or total). A leaf whose slowest calls were left out (@top ns of them) is taken
 * to have waited in those first: the calls a neighbour preempted are its slowest, so only the
 * waits beyond @top are in the calls kept.
 */
static void less_runq(const struct pg_fstat *st, enum pg_metric metric, double top, double *raw,
		      double *comp)
{
	double q = (double)(metric == PG_METRIC_TOTAL ? st->runq_ns : st->self_runq_ns) - top;

	if (q <= 0)
		return;
	*raw = *raw > q ? *raw - q : 0;
	*comp = *comp > q ? *comp - q : 0;
}

/*
 * One repetition's measured and compensated time of @st, in ns, and the calls it covers. For
 * a leaf (its time is all its own) the slowest PG_LEAF_TRIM of its calls are left out, their
 * durations estimated from the latency histogram, so that a rare interrupted call (a
 * profiling sample, a timer tick, preemption) does not move the repetition's value; otherwise
 * the sums over every call. @run is the run @st is in: in compensated histograms a leaf's
 * durations lack its own calibrated in_ns, which is added back. @no_runq: less its waits for
 * a CPU (less_runq()).
 */
static void rep_time(const struct pg_run *run, const struct pg_calib *calib,
		     const struct pg_func *f, const struct pg_fstat *st, enum pg_metric metric,
		     bool leaf, bool no_runq, double *raw, double *comp, uint64_t *calls)
{
	double top = 0;

	*calls = st->calls;
	if (metric == PG_METRIC_CPU) {
		pg_cpusplit_cpu_time(calib, f, st, raw, comp);
		return;
	}
	if (metric == PG_METRIC_TOTAL) {
		*comp = pg_fstat_comp_total(calib, f, st);
		*raw = (double)st->total_ns;
	} else {
		*comp = pg_fstat_comp_self(calib, f, st);
		*raw = (double)st->self_ns;
	}
	if (leaf) {
		uint64_t n;

		top = pg_hist_top_sum(&st->hist, PG_LEAF_TRIM, &n);
		/* its own probes' in per call, as pg_fstat_comp_*() take it */
		double in = st->calls ? pg_fstat_own_in(calib, f, st) / (double)st->calls : 0;

		if (run->hist_compensated)
			top += (double)n * (double)llround(run->calib.in_ns[f->site]);

		if (n && n < st->calls && top < *raw) {
			*raw -= top;
			*comp = *raw - in * (double)(st->calls - n);
			*comp = *comp > 0 ? *comp : 0;
			*calls = st->calls - n;
		} else {
			top = 0;
		}
	}
	if (no_runq)
		less_runq(st, metric, top, raw, comp);
}

/*
 * Add what compensation takes out of @st's time as calibrated, by site kind, to @sub: its own
 * calls' in (pg_fstat_own_in()) and, per callee (every descendant for the total), the rest of
 * its cost in the caller (in + rest for a descendant), before the scale of nop5 sites.
 */
static void calibrated_sub(double *sub, const struct pg_calib *calib, const struct pg_func *f,
			   const struct pg_fstat *st, enum pg_metric metric)
{
	if (!calib->valid)
		return;
	sub[f->site] += pg_fstat_own_in(calib, f, st);
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		double d = pg_calib_desc_ns(calib, k);

		sub[k] += metric == PG_METRIC_TOTAL ? (double)st->desc[k] * d :
			  (double)st->kids[k] * (d - calib->in_ns[k]);
	}
}

/* Lower @shortest[site of @f] to @st's shortest call, if it has calls. */
static void shortest_call(double *shortest, const struct pg_func *f, const struct pg_fstat *st)
{
	double m = (double)st->min_ns;

	if (st->calls && m > 0 && (!(shortest[f->site] > 0) || m < shortest[f->site]))
		shortest[f->site] = m;
}

void pg_sample_gather(struct pg_sample *s, const struct pg_run *run, const struct pg_fkey *keys,
		      size_t nk, const struct pg_calib *calib, enum pg_metric metric, bool leaf)
{
	s->n = 0;
	s->measured = s->compensated = s->calls = s->callees = 0;
	memset(s->sub, 0, sizeof(s->sub));
	memset(s->shortest, 0, sizeof(s->shortest));
	s->floored = 0;
	for (size_t r = 0; r < run->nreps; r++) {
		uint64_t calls = 0, timed = 0, kept;
		double ns = 0, raw = 0;

		for (size_t i = 0; i < nk; i++) {
			const struct pg_fstat *st = pg_rep_find(&run->reps[r], keys[i].id);
			double rw, cp;

			if (!st)
				continue;
			calls += st->calls;
			for (int k = 0; k < PG_SITE_COUNT; k++)
				s->callees += (double)(metric == PG_METRIC_TOTAL ? st->desc[k] :
									     st->kids[k]);
			calibrated_sub(s->sub, calib, &run->funcs[keys[i].id], st, metric);
			shortest_call(s->shortest, &run->funcs[keys[i].id], st);
			rep_time(run, calib, &run->funcs[keys[i].id], st, metric, leaf, s->no_runq,
				 &rw, &cp, &kept);
			raw += rw;
			ns += cp;
			timed += kept;
		}
		if (!calls)
			continue;
		s->calls += (double)calls;
		s->measured += raw;
		s->compensated += ns;
		if (timed && ns / (double)timed <= PG_MIN_NS && raw / (double)timed > PG_MIN_NS)
			s->floored++;
		pg_sample_push(s, ns / (double)timed, pg_rep_tag(run, r));
	}
}

/* Add @run's time of @metric of keys[0..nk), and of it the time blocked, to *@all, *@blocked. */
static void blocked_time(const struct pg_run *run, const struct pg_fkey *keys, size_t nk,
			 enum pg_metric metric, double *all, double *blocked)
{
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t i = 0; i < nk; i++) {
			const struct pg_fstat *st = pg_rep_find(&run->reps[r], keys[i].id);

			if (!st)
				continue;
			if (metric == PG_METRIC_TOTAL) {
				*all += (double)st->total_ns;
				*blocked += (double)st->offcpu_ns - (double)st->runq_ns;
			} else {
				*all += (double)st->self_ns;
				*blocked += (double)st->self_offcpu_ns - (double)st->self_runq_ns;
			}
		}
	}
}

double pg_sample_unblocked(const struct pg_run *run, const struct pg_fkey *keys, size_t nk,
			   enum pg_metric metric)
{
	double all = 0, blocked = 0;

	if (!run->meta.offcpu || metric == PG_METRIC_CPU)
		return 1;
	blocked_time(run, keys, nk, metric, &all, &blocked);
	if (!(all > 0))
		return 1;
	blocked = blocked < 0 ? 0 : blocked > all ? all : blocked;
	return 1 - blocked / all;
}

double pg_sample_blocked_both(const struct pg_run *base, const struct pg_fkey *kb, size_t nb,
			      const struct pg_run *new, const struct pg_fkey *kn, size_t nn)
{
	double all = 0, blocked = 0;

	if (!base->meta.offcpu || !new->meta.offcpu)
		return 0;
	blocked_time(base, kb, nb, PG_METRIC_SELF, &all, &blocked);
	blocked_time(new, kn, nn, PG_METRIC_SELF, &all, &blocked);
	if (!(all > 0))
		return 0;
	return blocked < 0 ? 0 : blocked > all ? 1 : blocked / all;
}

void pg_joint_calib(const struct pg_run *base, const struct pg_run *new,
		    const struct pg_compare_opts *opts, struct pg_calib *out)
{
	memset(out, 0, sizeof(*out));
	if (opts->raw || !base->calib.valid || !new->calib.valid)
		return;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		out->in_ns[k] = (base->calib.in_ns[k] + new->calib.in_ns[k]) / 2;
		out->out_ns[k] = (base->calib.out_ns[k] + new->calib.out_ns[k]) / 2;
		out->measured_ns[k] = (base->calib.measured_ns[k] + new->calib.measured_ns[k]) / 2;
	}
	out->measured = base->calib.measured && new->calib.measured;
	out->valid = true;
}
