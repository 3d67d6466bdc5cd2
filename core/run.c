// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "run.h"
#include "strv.h"

void pg_run_init(struct pg_run *run)
{
	memset(run, 0, sizeof(*run));
}

static void func_release(struct pg_func *f)
{
	free(f->name);
	free(f->display);
	free(f->binary);
	free(f->src_file);
	free(f->scope);
}

void pg_rep_release(struct pg_rep *rep)
{
	for (size_t i = 0; i < rep->nstats; i++)
		pg_hist_release(&rep->stats[i].hist);
	free(rep->stats);
	for (size_t i = 0; i < rep->nstacks; i++)
		free(rep->stacks[i].folded);
	free(rep->stacks);
	pg_rep_own_release(rep);
	for (size_t i = 0; i < rep->noffcpu; i++)
		free(rep->offcpu[i].folded);
	free(rep->offcpu);
	pg_woken_free(rep->woken, rep->nwoken);
	rep->woken = NULL;
	rep->nwoken = 0;
	for (size_t i = 0; i < rep->nthreads; i++)
		free(rep->threads[i].comm);
	free(rep->threads);
	pg_gb_values_free(rep->bench, rep->nbench);
	rep->bench = NULL;
	rep->nbench = 0;
	rep->stats = NULL;
	rep->nstats = rep->astats = 0;
	rep->stacks = NULL;
	rep->nstacks = 0;
	rep->offcpu = NULL;
	rep->noffcpu = 0;
	rep->threads = NULL;
	rep->nthreads = 0;
}

void pg_budget_out_release(struct pg_budget_out *o)
{
	free(o->name);
	free(o->binary);
	memset(o, 0, sizeof(*o));
}

void pg_budget_out_say(const struct pg_budget_out *o, double budget_pct, char *buf, size_t size)
{
	const char *there = o->ref_cost_pct <= budget_pct ? ", within the budget" : "";

	snprintf(buf, size, "--budget left out %s (%.1f%% of the CPU time): its ~%.0f calls a run "
		 "would cost ~%.1f%% of it here, at %.2f us a traced call (%s site, calibrated); "
		 "~%.1f%% at the reference %.2f us%s. %s (~%.0f a repetition)", o->name,
		 100 * o->share, o->calls, o->cost_pct, o->call_ns / 1e3, pg_site_name(o->site),
		 o->ref_cost_pct, o->ref_call_ns / 1e3, there, o->judged ? "Its samples judge it" :
		 "Too few of its samples to judge it: raise -F or run longer",
		 o->samples);
}

void pg_run_release(struct pg_run *run)
{
	struct pg_meta *m = &run->meta;

	free(m->perfgate_version);
	pg_strv_free(m->argv, m->argc);
	free(m->start_time);
	free(m->host);
	free(m->kernel);
	free(m->cpu_model);
	free(m->git_commit);
	free(m->cwd);
	free(m->program);
	free(m->functions_of);
	free(m->ab_session);
	for (size_t i = 0; i < m->nleft_out; i++)
		pg_budget_out_release(&m->left_out[i]);
	free(m->left_out);
	pg_strv_free(m->filters, m->nfilters);
	pg_strv_free(m->excludes, m->nexcludes);
	pg_strv_free(m->env, m->nenv);
	free(m->spin_workload);
	free(m->spin);
	for (size_t i = 0; i < run->nfuncs; i++)
		func_release(&run->funcs[i]);
	free(run->funcs);
	for (size_t r = 0; r < run->nreps; r++)
		pg_rep_release(&run->reps[r]);
	free(run->reps);
	for (size_t i = 0; i < run->nsources; i++) {
		free(run->sources[i].frame);
		free(run->sources[i].file);
	}
	free(run->sources);
	pg_run_codes_release(run);
	pg_strv_free(run->objects, run->nobjects);
	pg_run_init(run);
}

struct pg_run *pg_run_new(void)
{
	return calloc(1, sizeof(struct pg_run));
}

void pg_run_free(struct pg_run *run)
{
	if (!run)
		return;
	pg_run_release(run);
	free(run);
}

int pg_run_add_func(struct pg_run *run, const char *binary, const char *name,
		    const char *display, uint64_t addr, uint64_t offset, enum pg_site site,
		    bool endbr, uint32_t *id)
{
	struct pg_func *f;

	if (PG_ALLOC_GROW_POW2(run->funcs, run->nfuncs))
		return -ENOMEM;
	f = &run->funcs[run->nfuncs];
	memset(f, 0, sizeof(*f));
	f->id = (uint32_t)run->nfuncs;
	f->name = strdup(name);
	f->display = strdup(display ? display : name);
	f->binary = strdup(binary);
	if (!f->name || !f->display || !f->binary) {
		free(f->name);
		free(f->display);
		free(f->binary);
		return -ENOMEM;
	}
	f->addr = addr;
	f->offset = offset;
	f->site = site;
	f->endbr = endbr;
	run->nfuncs++;
	if (id)
		*id = f->id;
	return 0;
}

int pg_func_set_src(struct pg_func *f, const char *file, uint32_t line)
{
	char *copy = NULL;

	if (file && *file && line) {
		copy = strdup(file);
		if (!copy)
			return -ENOMEM;
	}
	free(f->src_file);
	f->src_file = copy;
	f->src_line = copy ? line : 0;
	return 0;
}

int pg_func_set_scope(struct pg_func *f, const char *scope)
{
	char *copy, *display;

	if (!scope || !*scope) {
		free(f->scope);
		f->scope = NULL;
		return 0;
	}
	copy = strdup(scope);
	if (!copy || asprintf(&display, "%s [%s]", f->display, scope) < 0) {
		free(copy);
		return -ENOMEM;
	}
	free(f->scope);
	free(f->display);
	f->scope = copy;
	f->display = display;
	return 0;
}

int pg_run_retain_funcs(struct pg_run *run, const bool *keep)
{
	size_t n = 0;

	if (run->nreps)
		return -EINVAL;
	for (size_t i = 0; i < run->nfuncs; i++) {
		if (!keep[i]) {
			func_release(&run->funcs[i]);
			continue;
		}
		run->funcs[n] = run->funcs[i];
		run->funcs[n].id = (uint32_t)n;
		n++;
	}
	run->nfuncs = n;
	return 0;
}

struct pg_rep *pg_run_add_rep(struct pg_run *run)
{
	struct pg_rep *rep;

	if (PG_ALLOC_GROW_POW2(run->reps, run->nreps))
		return NULL;
	rep = &run->reps[run->nreps++];
	memset(rep, 0, sizeof(*rep));
	rep->exit_code = -1;
	return rep;
}

int pg_rep_reserve_stats(struct pg_rep *rep, size_t n)
{
	struct pg_fstat *v;

	if (n <= rep->astats)
		return 0;
	if (n > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = realloc(rep->stats, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	rep->stats = v;
	rep->astats = n;
	return 0;
}

struct pg_fstat *pg_rep_add_stat(struct pg_rep *rep, uint32_t func)
{
	struct pg_fstat *s;

	if (PG_ALLOC_GROW(rep->stats, rep->nstats + 1, rep->astats))
		return NULL;
	s = &rep->stats[rep->nstats++];
	memset(s, 0, sizeof(*s));
	s->func = func;
	return s;
}

const struct pg_fstat *pg_rep_find(const struct pg_rep *rep, uint32_t func)
{
	/* the ids are sorted and unique: stat k's is k or more, and func's stat at most func */
	size_t lo = 0, hi = rep->nstats < (size_t)func + 1 ? rep->nstats : (size_t)func + 1;

	if (hi && rep->stats[hi - 1].func == func)
		return &rep->stats[hi - 1];	/* every function before it called too */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rep->stats[mid].func == func)
			return &rep->stats[mid];
		if (rep->stats[mid].func < func)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct pg_func *pg_run_find_func(const struct pg_run *run, const char *binary,
				       const char *name)
{
	for (size_t i = 0; i < run->nfuncs; i++) {
		if (!strcmp(run->funcs[i].name, name) && !strcmp(run->funcs[i].binary, binary))
			return &run->funcs[i];
	}
	return NULL;
}

#define WHY(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); } while (0)

/* @v[0..n) sorted by folded, unique, valid folded stacks, counts >= 1 adding up without
 * overflow into *sum; @what names them. */
static int validate_stack_list(const struct pg_stack *v, size_t n, const char *what, size_t r,
			       uint64_t *sum, char *why, size_t whylen)
{
	*sum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pg_stack *st = &v[i];

		if (!pg_folded_valid(st->folded)) {
			WHY("repetition %zu, %s %zu: not a valid folded stack", r, what, i);
			return -EINVAL;
		}
		if (i && strcmp(v[i - 1].folded, st->folded) >= 0) {
			WHY("repetition %zu: %ss out of order or repeated", r, what);
			return -EINVAL;
		}
		if (!st->count || st->count > UINT64_MAX - *sum) {
			WHY("repetition %zu, %s %zu: bad count", r, what, i);
			return -EINVAL;
		}
		*sum += st->count;
	}
	return 0;
}

static int validate_stacks(const struct pg_rep *rep, size_t r, char *why, size_t whylen)
{
	uint64_t sum = 0;

	if (rep->samples_lost > rep->samples) {
		WHY("repetition %zu: more samples lost than taken", r);
		return -EINVAL;
	}
	if (validate_stack_list(rep->offcpu, rep->noffcpu, "off-CPU stack", r, &sum, why,
				whylen) ||
	    pg_woken_check(rep->woken, rep->nwoken, rep->offcpu, rep->noffcpu, r, why, whylen) ||
	    validate_stack_list(rep->stacks, rep->nstacks, "stack", r, &sum, why, whylen))
		return -EINVAL;
	if (sum > rep->samples - rep->samples_lost) {
		WHY("repetition %zu: stacks hold %llu samples, more than the %llu kept", r,
		    (unsigned long long)sum,
		    (unsigned long long)(rep->samples - rep->samples_lost));
		return -EINVAL;
	}
	return 0;
}

int pg_own_cmp(const void *pa, const void *pb)
{
	const struct pg_own *a = pa, *b = pb;

	if (a->object != b->object)
		return a->object < b->object ? -1 : 1;
	if (a->exe != b->exe)
		return a->exe < b->exe ? -1 : 1;
	return strcmp(a->frame, b->frame);
}

/*
 * Are v[0..n) sorted, unique, each with valid indices, frame and count? -EINVAL if not; their
 * counts' sum (saturated at UINT64_MAX) into *@sum.
 */
static int validate_owns(const struct pg_run *run, const struct pg_own *v, size_t n,
			 uint64_t *sum)
{
	*sum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pg_own *o = &v[i];

		if (o->object >= run->nobjects || o->exe >= run->nobjects || !o->frame ||
		    !pg_folded_valid(o->frame) || strchr(o->frame, ';') || !o->count ||
		    (i && pg_own_cmp(&v[i - 1], o) >= 0))
			return -EINVAL;
		*sum = o->count > UINT64_MAX - *sum ? UINT64_MAX : *sum + o->count;
	}
	return 0;
}

/* Repetition @r's own samples, and (for the first) the objects they index. */
static int validate_own(const struct pg_run *run, size_t r, char *why, size_t whylen)
{
	const struct pg_rep *rep = &run->reps[r];
	uint64_t sum = 0, stacked = 0;
	bool over = false;

	for (size_t i = 0; !r && i < run->nobjects; i++) {
		if (!run->objects[i] || !run->objects[i][0]) {
			WHY("object %zu is empty", i);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(run->objects[j], run->objects[i])) {
				WHY("object %zu is repeated", i);
				return -EINVAL;
			}
	}
	for (size_t i = 0; i < rep->nstacks; i++)
		stacked += rep->stacks[i].count;
	if (validate_owns(run, rep->own, rep->nown, &sum) || sum > stacked) {
		WHY("repetition %zu, own samples: malformed, out of order, repeated or more than "
		    "its stacks'", r);
		return -EINVAL;
	}
	for (size_t i = 0; i < rep->nincl; i++)
		over |= rep->incl[i].count > stacked;
	if (validate_owns(run, rep->incl, rep->nincl, &sum) || over) {
		WHY("repetition %zu, inclusive samples: malformed, out of order, repeated or more "
		    "than its stacks'", r);
		return -EINVAL;
	}
	return 0;
}

int pg_fstat_check_offcpu(const struct pg_fstat *s, char *why, size_t whylen)
{
	if (s->runq_ns > s->offcpu_ns || s->offcpu_ns > s->total_ns) {
		WHY("\"runq_ns\" <= \"offcpu_ns\" <= \"total_ns\" does not hold");
		return -EINVAL;
	}
	if (s->self_runq_ns > s->self_offcpu_ns || s->self_offcpu_ns > s->self_ns) {
		WHY("\"self_runq_ns\" <= \"self_offcpu_ns\" <= \"self_ns\" does not hold");
		return -EINVAL;
	}
	if (s->self_offcpu_ns > s->offcpu_ns || s->self_runq_ns > s->runq_ns) {
		WHY("more off-CPU or runnable self time than in all");
		return -EINVAL;
	}
	return 0;
}

static int validate_threads(const struct pg_rep *rep, size_t r, char *why, size_t whylen)
{
	for (size_t i = 0; i < rep->nthreads; i++) {
		const struct pg_thread *t = &rep->threads[i];

		if (!t->comm) {
			WHY("repetition %zu, thread %u: no name", r, t->tid);
			return -EINVAL;
		}
		if (i && rep->threads[i - 1].tid >= t->tid) {
			WHY("repetition %zu: threads out of order or repeated", r);
			return -EINVAL;
		}
	}
	return 0;
}

static uint64_t sum_sites(const uint64_t v[PG_SITE_COUNT])
{
	uint64_t n = 0;

	for (int k = 0; k < PG_SITE_COUNT; k++)
		n += v[k];
	return n;
}

static int cmp_binary_name(const struct pg_func *a, const struct pg_func *b)
{
	return strcmp(a->binary, b->binary) ?: strcmp(a->name, b->name) ?:
	       strcmp(a->scope ? a->scope : "", b->scope ? b->scope : "");
}

/* qsort: by (binary, name, scope), then id, so that a repeated key's ids come in order */
static int cmp_func_ptr(const void *a, const void *b)
{
	const struct pg_func *fa = *(const struct pg_func *const *)a;
	const struct pg_func *fb = *(const struct pg_func *const *)b;
	int c = cmp_binary_name(fa, fb);

	return c ? c : (fa->id > fb->id) - (fa->id < fb->id);
}

/* No two functions share (binary, name, scope); @run's strings are known to be there. */
static int validate_unique_funcs(const struct pg_run *run, char *why, size_t whylen)
{
	const struct pg_func **v;
	int err = 0;

	if (run->nfuncs < 2)
		return 0;
	v = malloc(run->nfuncs * sizeof(*v));
	if (!v) {
		WHY("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < run->nfuncs; i++)
		v[i] = &run->funcs[i];
	qsort(v, run->nfuncs, sizeof(*v), cmp_func_ptr);
	for (size_t i = 1; i < run->nfuncs; i++) {
		if (!cmp_binary_name(v[i - 1], v[i])) {
			WHY("functions %u and %u are both %s%s%s%s in %s", v[i - 1]->id, v[i]->id,
			    v[i]->name, v[i]->scope ? " [" : "", v[i]->scope ? v[i]->scope : "",
			    v[i]->scope ? "]" : "", v[i]->binary);
			err = -EINVAL;
			break;
		}
	}
	free(v);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Is any value of the @n in @v repeated? (sorts @v) */
static bool u32_repeated(uint32_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] == v[i])
			return true;
	return false;
}

/* perfgate ab: a side iff a session; then pairs and running positions unique */
static int validate_ab(const struct pg_run *run, char *why, size_t whylen)
{
	const struct pg_meta *m = &run->meta;
	uint32_t *v;
	int err = 0;

	if (!m->ab_session != (m->ab_side == PG_AB_NONE) || (unsigned int)m->ab_side > PG_AB_NEW ||
	    (m->ab_session && !*m->ab_session)) {
		WHY("an ab session id needs a side (base or new) and a side a session id");
		return -EINVAL;
	}
	if (!m->ab_session || run->nreps < 2)
		return 0;
	v = malloc(run->nreps * sizeof(*v));
	if (!v) {
		WHY("out of memory");
		return -ENOMEM;
	}
	for (size_t r = 0; r < run->nreps; r++)
		v[r] = run->reps[r].pair;
	if (u32_repeated(v, run->nreps)) {
		WHY("two repetitions of one ab side have the same pair index");
		err = -EINVAL;
	}
	for (size_t r = 0; !err && r < run->nreps; r++)
		v[r] = run->reps[r].seq;
	if (!err && u32_repeated(v, run->nreps)) {
		WHY("two repetitions of one ab side have the same running position (seq)");
		err = -EINVAL;
	}
	free(v);
	return err;
}

uint64_t pg_spin_samples(const struct pg_spin *s)
{
	uint64_t n = 0;

	for (uint32_t c = 0; c < s->ncpu; c++)
		n += s->cpus[c].samples;
	return n;
}

void pg_spin_combine(struct pg_spin *s)
{
	double w = 0, cpu = 0, q = 0, total = (double)pg_spin_samples(s);

	if (!s->ncpu)
		return;
	for (uint32_t c = 0; c < s->ncpu; c++) {
		const struct pg_spin_cpu *p = &s->cpus[c];
		double k = total > 0 ? (double)p->samples / total : 1.0 / s->ncpu;

		w += k * (double)p->wall_ns;
		cpu += k * (double)p->cpu_ns;
		q += k * (double)p->runq_ns;
	}
	s->wall_ns = w >= 1 ? (uint64_t)w : 1;
	s->cpu_ns = cpu >= 1 ? (uint64_t)cpu : 1;
	s->runq_ns = (uint64_t)q < s->wall_ns ? (uint64_t)q : s->wall_ns - 1;
}

/* one spin's per-CPU part: at most PG_SPIN_MAX_CPUS, each CPU once, as a spin's times */
static int validate_spin_cpus(const struct pg_spin *s, size_t i, char *why, size_t whylen)
{
	if (s->ncpu > PG_SPIN_MAX_CPUS) {
		WHY("reference spin %zu ran on %u CPUs, more than %d", i, s->ncpu,
		    PG_SPIN_MAX_CPUS);
		return -EINVAL;
	}
	for (uint32_t c = 0; c < s->ncpu; c++) {
		const struct pg_spin_cpu *p = &s->cpus[c];

		if (!p->wall_ns || !p->cpu_ns || p->runq_ns >= p->wall_ns) {
			WHY("reference spin %zu on CPU %u has a time of 0, or waited its whole "
			    "time", i, p->cpu);
			return -EINVAL;
		}
		for (uint32_t d = 0; d < c; d++) {
			if (s->cpus[d].cpu == p->cpu) {
				WHY("reference spin %zu names CPU %u twice", i, p->cpu);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* the reference spin: one per repetition, named, every time > 0 */
static int validate_spin(const struct pg_meta *m, size_t nreps, char *why, size_t whylen)
{
	if (!m->nspin && !m->spin_workload)
		return 0;
	if (m->nspin != nreps || !m->spin || !m->spin_workload || !*m->spin_workload) {
		WHY("the reference spin needs a workload and one value per repetition");
		return -EINVAL;
	}
	for (size_t i = 0; i < m->nspin; i++) {
		if (!m->spin[i].wall_ns || !m->spin[i].cpu_ns ||
		    m->spin[i].runq_ns >= m->spin[i].wall_ns) {
			WHY("reference spin %zu has a time of 0, or waited its whole time", i);
			return -EINVAL;
		}
		if (validate_spin_cpus(&m->spin[i], i, why, whylen))
			return -EINVAL;
	}
	return 0;
}

int pg_run_validate(const struct pg_run *run, char *why, size_t whylen)
{
	int err;

	if (!run->meta.argc || !run->meta.argv) {
		WHY("the run has no command");
		return -EINVAL;
	}
	if (run->hist_compensated && !(run->calib.valid && run->calib.measured)) {
		WHY("compensated histograms without a calibration with measured probe times");
		return -EINVAL;
	}
	for (int k = 0; run->calib.valid && k < PG_SITE_COUNT; k++) {
		const double in = run->calib.in_ns[k], out = run->calib.out_ns[k];
		const double spread = run->calib.spread_ns[k];

		/* a probe pair costs at most a few ms, even single-stepped on a slow machine */
		if (!(in >= 0 && in < 1e7) || !(out >= 0 && out < 1e7) ||
		    !(spread >= 0 && spread < 1e7)) {
			WHY("calibration of %s sites out of range", pg_site_name((enum pg_site)k));
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < run->nfuncs; i++) {
		const struct pg_func *f = &run->funcs[i];

		if (f->id != i || !f->name || !f->display || !f->binary ||
		    (unsigned int)f->site >= PG_SITE_COUNT) {
			WHY("function %zu is malformed", i);
			return -EINVAL;
		}
	}
	err = validate_unique_funcs(run, why, whylen);
	err = err ?: validate_ab(run, why, whylen);
	if (err)
		return err;
	if (!pg_env_valid(run->meta.env, run->meta.nenv)) {
		WHY("the environment's entries are not KEY=VALUE sorted by unique keys");
		return -EINVAL;
	}
	err = validate_spin(&run->meta, run->nreps, why, whylen);
	if (err)
		return err;
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t i = 0; i < rep->nstats; i++) {
			const struct pg_fstat *s = &rep->stats[i];

			if (s->func >= run->nfuncs) {
				WHY("repetition %zu refers to function %u of %zu", r, s->func,
				    run->nfuncs);
				return -EINVAL;
			}
			if (i && rep->stats[i - 1].func >= s->func) {
				WHY("repetition %zu: functions out of order or repeated", r);
				return -EINVAL;
			}
			if (!s->calls || s->min_ns > s->max_ns || s->self_ns > s->total_ns) {
				WHY("repetition %zu, function %s: inconsistent counts", r,
				    run->funcs[s->func].name);
				return -EINVAL;
			}
			for (int k = 0; k < PG_SITE_COUNT; k++) {
				if (s->kids[k] > s->desc[k] || s->tails[k] > s->kids[k] ||
				    s->desc_tails[k] > s->desc[k]) {
					WHY("repetition %zu, function %s: more direct children "
					    "than descendants, or tail calls than calls", r,
					    run->funcs[s->func].name);
					return -EINVAL;
				}
			}
			if (s->kids_probe_ns > s->desc_probe_ns ||
			    (s->desc_probe_ns && !sum_sites(s->desc))) {
				WHY("repetition %zu, function %s: inconsistent probe times", r,
				    run->funcs[s->func].name);
				return -EINVAL;
			}
			if (pg_fstat_check_offcpu(s, NULL, 0)) {
				WHY("repetition %zu, function %s: inconsistent off-CPU times", r,
				    run->funcs[s->func].name);
				return -EINVAL;
			}
			if (pg_hist_total(&s->hist) != s->calls) {
				WHY("repetition %zu, function %s: histogram holds %llu calls, "
				    "not %llu", r, run->funcs[s->func].name,
				    (unsigned long long)pg_hist_total(&s->hist),
				    (unsigned long long)s->calls);
				return -EINVAL;
			}
		}
		if (validate_stacks(rep, r, why, whylen) || validate_own(run, r, why, whylen) ||
		    validate_threads(rep, r, why, whylen) ||
		    pg_gb_check(rep->bench, rep->nbench, why, whylen))
			return -EINVAL;
	}
	for (size_t i = 0; i < run->nsources; i++) {
		const struct pg_source *src = &run->sources[i];

		if (!src->frame || !src->file || !pg_folded_valid(src->frame) ||
		    strchr(src->frame, ';') ||
		    (i && strcmp(run->sources[i - 1].frame, src->frame) >= 0)) {
			WHY("frame source %zu is malformed, out of order or repeated", i);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < run->ncodes; i++) {
		const struct pg_code *c = &run->codes[i];

		if (!c->frame || !pg_folded_valid(c->frame) || strchr(c->frame, ';') ||
		    !c->digest || (i && strcmp(run->codes[i - 1].frame, c->frame) >= 0)) {
			WHY("frame code %zu is malformed, out of order or repeated", i);
			return -EINVAL;
		}
	}
	return 0;
}

/* Does frame @f[0..len) end in @mark after a name? */
static bool frame_marked(const char *f, size_t len, const char *mark)
{
	size_t m = strlen(mark);

	return len > m && !memcmp(f + len - m, mark, m);
}

bool pg_frame_inlined(const char *f, size_t len)
{
	return frame_marked(f, len, PG_INLINED_MARK);
}

bool pg_frame_kernel(const char *f, size_t len)
{
	return frame_marked(f, len, PG_KERNEL_MARK);
}

static void owns_free(struct pg_own **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i].frame);
	free(*v);
	*v = NULL;
	*n = 0;
}

bool pg_run_has_incl(const struct pg_run *run)
{
	for (size_t r = 0; r < run->nreps; r++)
		if (run->reps[r].nincl)
			return true;
	return false;
}

void pg_rep_own_release(struct pg_rep *rep)
{
	owns_free(&rep->own, &rep->nown);
	owns_free(&rep->incl, &rep->nincl);
}

void pg_run_own_release(struct pg_run *run)
{
	for (size_t r = 0; r < run->nreps; r++)
		pg_rep_own_release(&run->reps[r]);
	pg_strv_free(run->objects, run->nobjects);
	run->objects = NULL;
	run->nobjects = 0;
}

void pg_run_codes_release(struct pg_run *run)
{
	for (size_t i = 0; i < run->ncodes; i++)
		free(run->codes[i].frame);
	free(run->codes);
	run->codes = NULL;
	run->ncodes = 0;
}

static int cmp_code_key(const void *k, const void *e)
{
	return strcmp(k, ((const struct pg_code *)e)->frame);
}

uint64_t pg_run_code(const struct pg_run *run, const char *frame)
{
	const struct pg_code *c = run->ncodes ? bsearch(frame, run->codes, run->ncodes,
							  sizeof(*run->codes), cmp_code_key) : NULL;

	return c ? c->digest : 0;
}

bool pg_folded_valid(const char *s)
{
	bool empty = true;	/* the current frame is empty so far */

	if (!s)
		return false;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
		if (*s == ';') {
			if (empty)
				return false;
			empty = true;
		} else {
			empty = false;
		}
	}
	return !empty;
}

const char *pg_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int pg_func_key_cmp(const struct pg_func *a, const struct pg_func *b)
{
	return strcmp(pg_basename(a->binary), pg_basename(b->binary)) ?: strcmp(a->name, b->name) ?:
	       strcmp(a->scope ? a->scope : "", b->scope ? b->scope : "");
}

static int cmp_ids_by_key(const void *a, const void *b, void *funcs)
{
	const struct pg_func *f = funcs;

	return pg_func_key_cmp(&f[*(const uint32_t *)a], &f[*(const uint32_t *)b]);
}

uint32_t *pg_run_ids_by_key(const struct pg_run *run)
{
	uint32_t *ids = malloc((run->nfuncs ? run->nfuncs : 1) * sizeof(*ids));

	if (!ids)
		return NULL;
	for (uint32_t i = 0; i < run->nfuncs; i++)
		ids[i] = i;
	qsort_r(ids, run->nfuncs, sizeof(*ids), cmp_ids_by_key, run->funcs);
	return ids;
}

static int cmp_by_display(const void *a, const void *b)
{
	const struct pg_func *x = *(const struct pg_func *const *)a;
	const struct pg_func *y = *(const struct pg_func *const *)b;
	int c = strcmp(x->display, y->display);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

const struct pg_func **pg_run_by_display(const struct pg_run *run)
{
	const struct pg_func **v = malloc((run->nfuncs ? run->nfuncs : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < run->nfuncs; i++)
		v[i] = &run->funcs[i];
	qsort(v, run->nfuncs, sizeof(*v), cmp_by_display);
	return v;
}

const struct pg_func *pg_func_by_display(const struct pg_func *const *v, size_t n,
					 const char *display)
{
	size_t lo = 0, hi = n;

	/* the first of equal names: the lowest bound */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid]->display, display) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo]->display, display) ? v[lo] : NULL;
}

const char *pg_ab_side_name(enum pg_ab_side side)
{
	return side == PG_AB_BASE ? "base" : side == PG_AB_NEW ? "new" : "none";
}

int pg_ab_side_parse(const char *s, enum pg_ab_side *side)
{
	if (!strcmp(s, "base"))
		*side = PG_AB_BASE;
	else if (!strcmp(s, "new"))
		*side = PG_AB_NEW;
	else
		return -EINVAL;
	return 0;
}

/* strcmp of the keys of two "KEY=VALUE" strings */
static int env_key_cmp(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");
	int c = strncmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

const char *pg_env_get(const struct pg_meta *m, const char *key)
{
	for (size_t i = 0; i < m->nenv; i++)
		if (!env_key_cmp(m->env[i], key))
			return m->env[i] + strlen(key) + 1;
	return NULL;
}

int pg_env_set(struct pg_meta *m, const char *key, const char *value)
{
	char *s = NULL;
	size_t i = 0;

	if (asprintf(&s, "%s=%s", key, value) < 0)
		return -ENOMEM;
	while (i < m->nenv && env_key_cmp(m->env[i], key) < 0)
		i++;
	if (i < m->nenv && !env_key_cmp(m->env[i], key)) {
		free(m->env[i]);
		m->env[i] = s;
		return 0;
	}
	if (pg_strv_push(&m->env, &m->nenv, s)) {
		free(s);
		return -ENOMEM;
	}
	free(m->env[m->nenv - 1]);	/* the copy pushed: @s goes in its place */
	memmove(&m->env[i + 1], &m->env[i], (m->nenv - 1 - i) * sizeof(char *));
	m->env[i] = s;
	return 0;
}

bool pg_env_valid(char *const *env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(env[i], '=');

		if (!eq || eq == env[i] || (i && env_key_cmp(env[i - 1], env[i]) >= 0))
			return false;
	}
	return true;
}
