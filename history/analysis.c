// SPDX-License-Identifier: MIT
/*
 * history/analysis.c - matrices of session summaries, change points over them, and history
 * check's baseline (analysis.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/log.h"
#include "../core/strv.h"
#include "../diff/hcheck.h"
#include "../diff/repvalues.h"
#include "analysis.h"

#define MAX_THREADS 8

void pg_hmatrix_release(struct pg_hmatrix *m)
{
	pg_hsessions_free(m->sessions, m->nsessions);
	pg_hobjects_free(m->objects, m->ids, m->nobjects);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

struct id_index {
	int64_t id;
	size_t index;
};

static int cmp_id_index(const void *a, const void *b)
{
	int64_t x = ((const struct id_index *)a)->id, y = ((const struct id_index *)b)->id;

	return x < y ? -1 : x > y;
}

static struct id_index *find_id(struct id_index *v, size_t n, int64_t id)
{
	struct id_index key = { id, 0 };

	return bsearch(&key, v, n, sizeof(*v), cmp_id_index);
}

struct load_ctx {
	struct pg_hmatrix *m;
	struct id_index *cols, *rows;
};

static int load_summary(void *ctx, int64_t session, const int64_t *objects, const double *values,
			size_t n)
{
	struct load_ctx *c = ctx;
	struct id_index *col = find_id(c->cols, c->m->nsessions, session);

	if (!col)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct id_index *row = find_id(c->rows, c->m->nobjects, objects[i]);

		if (row)
			c->m->v[row->index * c->m->nsessions + col->index] = values[i];
	}
	return 0;
}

/* Keep sessions [from, to) of @m's. */
static void keep_sessions(struct pg_hmatrix *m, size_t from, size_t to)
{
	for (size_t i = 0; i < m->nsessions; i++) {
		struct pg_hsession *x = &m->sessions[i];

		if (i >= from && i < to)
			continue;
		free(x->commit);
		free(x->branch);
		free(x->time);
		free(x->host);
		free(x->command);
	}
	memmove(m->sessions, m->sessions + from, (to - from) * sizeof(*m->sessions));
	m->nsessions = to - from;
}

/* The end of the sessions to keep: after the newest one of commit @until (a prefix of it). */
static int until_end(const struct pg_hmatrix *m, const char *until, size_t *end)
{
	size_t len = until ? strlen(until) : 0;

	*end = m->nsessions;
	if (!until)
		return 0;
	for (size_t i = m->nsessions; len && i > 0; i--) {
		const char *c = m->sessions[i - 1].commit;

		if (c && !strncmp(c, until, len)) {
			*end = i;
			return 0;
		}
	}
	pg_err("history: no stored session of commit '%s'", until);
	return -ENOENT;
}

int pg_hmatrix_load(struct pg_hmatrix *m, struct pg_hstore *s, const char *branch, int metric,
		    const char *until, size_t max)
{
	struct load_ctx c = { m, NULL, NULL };
	size_t end;
	int err;

	memset(m, 0, sizeof(*m));
	m->metric = metric;
	err = pg_hstore_sessions(s, branch, &m->sessions, &m->nsessions);
	if (!err && !m->nsessions) {
		pg_err("history: no session stored%s%s", branch ? " on branch " : "",
		       branch ? branch : "");
		err = -ENOENT;
	}
	err = err ?: until_end(m, until, &end);
	if (err)
		goto fail;
	keep_sessions(m, max && end > max ? end - max : 0, end);
	err = pg_hstore_objects(s, &m->objects, &m->ids, &m->nobjects);
	if (err)
		goto fail;
	m->v = malloc((m->nobjects * m->nsessions + 1) * sizeof(*m->v));
	c.cols = malloc((m->nsessions + 1) * sizeof(*c.cols));
	c.rows = malloc((m->nobjects + 1) * sizeof(*c.rows));
	if (!m->v || !c.cols || !c.rows) {
		pg_err("history: out of memory for %zu objects x %zu sessions", m->nobjects,
		       m->nsessions);
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < m->nobjects * m->nsessions; i++)
		m->v[i] = NAN;
	for (size_t i = 0; i < m->nsessions; i++)
		c.cols[i] = (struct id_index){ m->sessions[i].id, i };
	for (size_t i = 0; i < m->nobjects; i++)
		c.rows[i] = (struct id_index){ m->ids[i], i };
	qsort(c.cols, m->nsessions, sizeof(*c.cols), cmp_id_index);
	qsort(c.rows, m->nobjects, sizeof(*c.rows), cmp_id_index);
	err = pg_hstore_summaries(s, metric, load_summary, &c);
	if (err)
		goto fail;
	free(c.cols);
	free(c.rows);
	return 0;
fail:
	free(c.cols);
	free(c.rows);
	pg_hmatrix_release(m);
	return err;
}

long pg_hmatrix_find(const struct pg_hmatrix *m, const char *binary, const char *name,
		     const char *scope)
{
	const struct pg_hobject key = { (char *)binary, (char *)name, (char *)(scope ? scope : ""),
					NULL };
	const struct pg_hobject *o = bsearch(&key, m->objects, m->nobjects, sizeof(*o),
					     pg_hobject_cmp);

	return o ? (long)(o - m->objects) : -1;
}

/*
 * Row @o's values over sessions [from, to) that are there into x[], their sessions into at[];
 * their count.
 */
static size_t row_values(const struct pg_hmatrix *m, size_t o, size_t from, size_t to,
			 double *x, size_t *at)
{
	size_t k = 0;

	for (size_t s = from; s < to; s++) {
		double v = m->v[o * m->nsessions + s];

		/* as compare takes them: a time under PG_MIN_NS is PG_MIN_NS */
		if (v >= 0 && isfinite(v)) {
			x[k] = v > PG_MIN_NS ? v : PG_MIN_NS;
			if (at)
				at[k] = s;
			k++;
		}
	}
	return k;
}

/* the change points of one object */
struct obj_cps {
	struct pg_cp *cps;
	size_t n;
	size_t *at;	/* the session of each */
};

struct scan {
	const struct pg_hmatrix *m;
	const struct pg_cp_opts *o;
	const char *glob;
	const struct pg_hcpcache *prev;
	struct pg_hcpcache *out;	/* this scan's weak change points, or NULL */
	struct obj_cps *res;
	size_t next;		/* the next object to take */
	pthread_mutex_t lock;
	int err;
};

/*
 * Object @obj's weak change points in sc->prev as indices into its values at[0..k), into
 * w[]; their count, and in *@n0 how many of its values the previous scan saw.
 */
static size_t prev_weak(const struct scan *sc, size_t obj, const size_t *at, size_t k,
			struct pg_cp *w, size_t *n0)
{
	const struct pg_hcpweak *p = sc->prev && sc->prev->nsessions ? &sc->prev->obj[obj] : NULL;
	size_t nw = 0, j = 0;

	*n0 = 0;
	if (!p)
		return 0;
	while (*n0 < k && at[*n0] < sc->prev->nsessions)
		(*n0)++;
	for (size_t i = 0; i < p->n; i++) {
		while (j < k && at[j] < p->cp[i].index)
			j++;
		if (j < k && at[j] == p->cp[i].index) {
			w[nw] = p->cp[i];
			w[nw++].index = j;
		}
	}
	return nw;
}

static int scan_object(struct scan *sc, size_t obj, double *x, size_t *at, struct pg_cp *w)
{
	const struct pg_hmatrix *m = sc->m;
	const struct pg_hobject *ob = &m->objects[obj];
	struct obj_cps *r = &sc->res[obj];
	struct pg_hcpweak *nw = sc->out ? &sc->out->obj[obj] : NULL;
	size_t k, np, n0;
	int err;

	if (sc->glob && fnmatch(sc->glob, ob->display, 0) && fnmatch(sc->glob, ob->name, 0))
		return 0;
	k = row_values(m, obj, 0, m->nsessions, x, at);
	if (k < PG_CP_MIN_POINTS)
		return 0;
	np = prev_weak(sc, obj, at, k, w, &n0);
	err = pg_changepoints_resume(x, k, sc->o, w, np, n0, nw ? &nw->cp : NULL,
				     nw ? &nw->n : NULL, &r->cps, &r->n);
	for (size_t i = 0; !err && nw && i < nw->n; i++)
		nw->cp[i].index = at[nw->cp[i].index];
	if (err || !r->n)
		return err;
	r->at = malloc(r->n * sizeof(*r->at));
	if (!r->at)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		r->at[i] = at[r->cps[i].index];
	return 0;
}

static void *scan_worker(void *arg)
{
	struct scan *sc = arg;
	double *x = malloc((sc->m->nsessions + 1) * sizeof(*x));
	size_t *at = malloc((sc->m->nsessions + 1) * sizeof(*at));
	struct pg_cp *w = malloc((sc->m->nsessions + 1) * sizeof(*w));
	int err = x && at && w ? 0 : -ENOMEM;

	for (;;) {
		size_t obj;

		pthread_mutex_lock(&sc->lock);
		if (err && !sc->err)
			sc->err = err;
		obj = sc->err ? sc->m->nobjects : sc->next++;
		pthread_mutex_unlock(&sc->lock);
		if (obj >= sc->m->nobjects)
			break;
		err = scan_object(sc, obj, x, at, w);
	}
	free(x);
	free(at);
	free(w);
	return NULL;
}

static int gather(struct scan *sc, struct pg_hchange **out, size_t *n)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < sc->m->nobjects; i++)
		total += sc->res[i].n;
	*out = malloc((total + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < sc->m->nobjects; i++)
		for (size_t j = 0; j < sc->res[i].n; j++)
			(*out)[k++] = (struct pg_hchange){ i, sc->res[i].at[j], sc->res[i].cps[j] };
	*n = total;
	return 0;
}

int pg_hmatrix_changes(const struct pg_hmatrix *m, const struct pg_cp_opts *o,
		       const char *glob, const struct pg_hcpcache *prev,
		       struct pg_hcpcache *next, struct pg_hchange **out, size_t *n)
{
	struct scan sc = { m, o, glob, prev, next, calloc(m->nobjects + 1, sizeof(*sc.res)), 0,
			   PTHREAD_MUTEX_INITIALIZER, 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[MAX_THREADS];
	size_t nth = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (size_t)cpus, started = 0;

	*out = NULL;
	*n = 0;
	if (next) {
		memset(next, 0, sizeof(*next));
		next->obj = calloc(m->nobjects + 1, sizeof(*next->obj));
		next->nobjects = m->nobjects;
		next->nsessions = m->nsessions;
	}
	if (!sc.res || (next && !next->obj)) {
		free(sc.res);
		pg_err("history: out of memory");
		return -ENOMEM;
	}
	for (; started < nth; started++)
		if (pthread_create(&th[started], NULL, scan_worker, &sc))
			break;
	if (!started)
		scan_worker(&sc);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (!sc.err)
		sc.err = gather(&sc, out, n);
	for (size_t i = 0; i < m->nobjects; i++) {
		free(sc.res[i].cps);
		free(sc.res[i].at);
	}
	free(sc.res);
	if (sc.err)
		pg_err("history: the change points could not be computed: %s", strerror(-sc.err));
	return sc.err;
}

/* buffers of one function's baseline, kept until the comparison is done */
struct hbuf {
	double *sessions;
	size_t *at;
};

/*
 * The baseline of object @row in @m, @calls: its sessions since its last change point, into
 * f->sessions (b->sessions, malloc'd) and their mean calls.
 */
static int baseline(const struct pg_hmatrix *m, const struct pg_hmatrix *calls, long row,
		    long crow, const struct pg_cp_opts *cpo, struct pg_hfunc *f, struct hbuf *b)
{
	size_t *at = malloc((m->nsessions + 1) * sizeof(*at)), k, from = 0, nc = 0;
	double *x = malloc((m->nsessions + 1) * sizeof(*x)), sum = 0;
	struct pg_cp *cps = NULL;
	size_t ncps = 0;
	int err = x && at ? 0 : -ENOMEM;

	b->sessions = x;
	b->at = at;
	k = err || row < 0 ? 0 : row_values(m, (size_t)row, 0, m->nsessions, x, at);
	if (!err && k >= PG_CP_MIN_POINTS)
		err = pg_changepoints(x, k, cpo, &cps, &ncps);
	if (ncps)
		from = cps[ncps - 1].index;
	if (!err) {
		memmove(x, x + from, (k - from) * sizeof(*x));
		memmove(at, at + from, (k - from) * sizeof(*at));
		f->sessions = x;
		f->nsessions = k - from;
		f->at = at;
		for (size_t i = 0; crow >= 0 && i < k - from; i++) {
			double c = calls->v[(size_t)crow * calls->nsessions + at[i]];

			if (isfinite(c)) {
				sum += c;
				nc++;
			}
		}
		f->base_calls = nc ? sum / (double)nc : 0;
	}
	free(cps);
	return err;
}

static void hfunc_names(struct pg_hfunc *f, const struct pg_hobject *o)
{
	f->binary = o->binary;
	f->name = o->name;
	f->scope = o->scope;
	f->display = o->display;
}

/* The functions stored in the newest baseline session that the new one lacks: removed. */
static int add_removed(const struct pg_hmatrix *m, const struct pg_hmatrix *calls,
		       const struct pg_hrecord *rec, const struct pg_cp_opts *cpo,
		       struct pg_hfunc *f, struct hbuf *b, size_t *n)
{
	size_t last = m->nsessions - 1;
	int err = 0;

	for (size_t o = 0; !err && o < m->nobjects; o++) {
		const struct pg_hobject *ob = &m->objects[o];
		const struct pg_hobject *in = bsearch(ob, rec->objects, rec->nobjects, sizeof(*ob),
						      pg_hobject_cmp);

		/* listed in the new run but not called there counts as missing */
		if (!(m->v[o * m->nsessions + last] >= 0) || !strcmp(ob->name, PG_HPROGRAM) ||
		    (in && pg_hrecord_find(rec, (uint32_t)(in - rec->objects), m->metric)))
			continue;
		memset(&f[*n], 0, sizeof(f[*n]));
		hfunc_names(&f[*n], ob);
		err = baseline(m, calls, (long)o, pg_hmatrix_find(calls, ob->binary, ob->name,
								  ob->scope), cpo, &f[*n], &b[*n]);
		(*n)++;
	}
	return err;
}

static int warn_command(struct pg_comparison *out, const struct pg_hmatrix *m,
			const struct pg_hrecord *rec)
{
	const char *cmd = m->sessions[m->nsessions - 1].command;
	char buf[8400];

	if (!strcmp(cmd, rec->command))
		return 0;
	snprintf(buf, sizeof(buf), "the new run's command differs from the history's: '%s' and "
		 "'%s'", cmd, rec->command);
	return pg_strv_push(&out->warnings, &out->nwarnings, buf);
}

/*
 * The references of the machine's speed: each function's on-CPU series in @rec against its
 * sessions in @cpu, into r[*nr..] (their buffers into rb[]), and r_of[object] its index
 * (SIZE_MAX: none).
 */
static int cpu_refs(const struct pg_hmatrix *cpu, const struct pg_hmatrix *calls,
		    const struct pg_hrecord *rec, const struct pg_cp_opts *cpo, struct pg_hfunc *r,
		    struct hbuf *rb, size_t *r_of, size_t *nr)
{
	int err = 0;

	for (size_t i = 0; i < rec->nobjects; i++)
		r_of[i] = SIZE_MAX;
	for (size_t i = 0; !err && i < rec->nseries; i++) {
		const struct pg_hseries *x = &rec->series[i];
		const struct pg_hobject *o = &rec->objects[x->object];

		if (x->metric != PG_HM_CPU)
			continue;
		hfunc_names(&r[*nr], o);
		r[*nr].reps = x->v;
		r[*nr].nreps = x->n;
		err = baseline(cpu, calls, pg_hmatrix_find(cpu, o->binary, o->name, o->scope),
			       pg_hmatrix_find(calls, o->binary, o->name, o->scope), cpo, &r[*nr],
			       &rb[*nr]);
		r_of[x->object] = (*nr)++;
	}
	return err;
}

static void hbufs_free(struct hbuf *b, size_t n)
{
	for (size_t i = 0; b && i < n; i++) {
		free(b[i].sessions);
		free(b[i].at);
	}
	free(b);
}

/*
 * The program's series of @metric in @rec against @m into @h (its buffers in @b); nothing
 * when the new session lacks it.
 */
static int program_series(const struct pg_hmatrix *m, const struct pg_hrecord *rec, int metric,
			  const char *name, const struct pg_cp_opts *cpo, struct pg_hfunc *h,
			  struct hbuf *b)
{
	for (size_t i = 0; i < rec->nobjects; i++) {
		const struct pg_hobject *o = &rec->objects[i];
		const struct pg_hseries *x = pg_hrecord_find(rec, (uint32_t)i, metric);

		if (strcmp(o->name, PG_HPROGRAM) || !x)
			continue;
		*h = (struct pg_hfunc){ name, name, "", name, NULL, 0, x->v, x->n, 1, 1, NULL,
					NULL };
		return baseline(m, NULL, pg_hmatrix_find(m, o->binary, o->name, o->scope), -1,
				cpo, h, b);
	}
	return 0;
}

int pg_hcheck(const struct pg_hbaseline *base, const struct pg_hrecord *rec, int metric,
	      const struct pg_cp_opts *cpo, const struct pg_compare_opts *opts,
	      struct pg_comparison *out)
{
	const struct pg_hmatrix *m = &base->m, *calls = &base->calls;
	size_t cap = rec->nseries + m->nobjects + 1, n = 0, nr = 0;
	bool self = metric == PG_HM_SELF;
	struct pg_hfunc *f = calloc(cap, sizeof(*f)), w = { 0 }, pc = { 0 };
	struct pg_hfunc *r = self ? calloc(rec->nseries + 1, sizeof(*r)) : NULL;
	struct hbuf *b = calloc(cap + 2, sizeof(*b));
	struct hbuf *rb = self ? calloc(rec->nseries + 1, sizeof(*rb)) : NULL;
	size_t *r_of = self ? malloc((rec->nobjects + 1) * sizeof(*r_of)) : NULL;
	int err = f && b && (!self || (r && rb && r_of)) ? 0 : -ENOMEM;

	/* self time is corrected for the speed the functions' on-CPU times show (hspeed.h) */
	err = err ?: self ? cpu_refs(&base->cpu, calls, rec, cpo, r, rb, r_of, &nr) : 0;
	for (size_t i = 0; !err && i < rec->nseries; i++) {
		const struct pg_hseries *x = &rec->series[i];
		const struct pg_hobject *o = &rec->objects[x->object];
		const struct pg_hseries *c = pg_hrecord_find(rec, x->object, PG_HM_CALLS);

		if (x->metric != metric)
			continue;
		hfunc_names(&f[n], o);
		f[n].reps = x->v;
		f[n].nreps = x->n;
		f[n].new_calls = c ? c->summary : 0;
		err = baseline(m, calls, pg_hmatrix_find(m, o->binary, o->name, o->scope),
			       pg_hmatrix_find(calls, o->binary, o->name, o->scope), cpo, &f[n],
			       &b[n]);
		/* inclusive times nest: not corrected */
		if (metric == PG_HM_CPU)
			f[n].speed = &f[n];
		else if (self && r_of[x->object] != SIZE_MAX)
			f[n].speed = &r[r_of[x->object]];
		n++;
	}
	err = err ?: add_removed(m, calls, rec, cpo, f, b, &n);
	err = err ?: program_series(&base->wall, rec, PG_HM_WALL, "[wall]", cpo, &w, &b[cap]);
	err = err ?: program_series(&base->pcpu, rec, PG_HM_PCPU, PG_PROGRAM_CPU, cpo, &pc,
				    &b[cap + 1]);
	if (!err) {
		const struct pg_hinput in = { f, n, self ? r : f, self ? nr : n, &w, &pc,
					      m->nsessions, rec->reps };

		if (pg_history_compare(&in, opts, out)) {
			pg_err("history check: %s", out->error[0] ? out->error : "failed");
			err = -EINVAL;
		}
	}
	err = err ?: warn_command(out, m, rec);
	if (err == -ENOMEM)
		pg_err("history check: out of memory");
	hbufs_free(b, cap + 2);
	hbufs_free(rb, nr);
	free(r_of);
	free(r);
	free(f);
	return err;
}

int pg_hbaseline_load(struct pg_hbaseline *b, struct pg_hstore *s, const char *branch,
		      int metric, const char *until)
{
	const int metrics[] = { metric, PG_HM_CALLS, PG_HM_WALL, PG_HM_CPU, PG_HM_PCPU };
	struct pg_hmatrix *mx[] = { &b->m, &b->calls, &b->wall, &b->cpu, &b->pcpu };
	int err = 0;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; !err && i < sizeof(mx) / sizeof(mx[0]); i++) {
		/* on-CPU time beside the metric only for self time's speed (pg_hcheck()) */
		if (mx[i] == &b->cpu && metric != PG_HM_SELF)
			continue;
		err = pg_hmatrix_load(mx[i], s, branch, metrics[i], until, PG_HCHECK_LOOKBACK);
	}
	if (err)
		pg_hbaseline_release(b);
	return err;
}

void pg_hbaseline_release(struct pg_hbaseline *b)
{
	pg_hmatrix_release(&b->m);
	pg_hmatrix_release(&b->calls);
	pg_hmatrix_release(&b->wall);
	pg_hmatrix_release(&b->cpu);
	pg_hmatrix_release(&b->pcpu);
}
