// SPDX-License-Identifier: MIT
/* core/comparison.c - the data model of a comparison (core/comparison.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison.h"
#include "strv.h"

static const char *const verdict_names[] = {
	[PG_VERDICT_UNCHANGED] = "unchanged",
	[PG_VERDICT_REGRESSION] = "regression",
	[PG_VERDICT_IMPROVEMENT] = "improvement",
	[PG_VERDICT_INCONCLUSIVE] = "inconclusive",
	[PG_VERDICT_ADDED] = "added",
	[PG_VERDICT_REMOVED] = "removed",
	[PG_VERDICT_NOTABLE] = "notable",
};

static const char *const cause_names[] = {
	[PG_CAUSE_NONE] = "",
	[PG_CAUSE_REPS] = "repetitions",
	[PG_CAUSE_PROBES] = "probe-share",
	[PG_CAUSE_CALLEE_TIME] = "callee-time",
	[PG_CAUSE_CALLEES] = "callees-differ",
	[PG_CAUSE_ONE_SIDE] = "one-side",
	[PG_CAUSE_WIDE] = "wide-interval",
	[PG_CAUSE_NOT_SIG] = "not-significant",
	[PG_CAUSE_NOT_SURELY] = "not-surely",
	[PG_CAUSE_DRIFT] = "drift",
};

static const char *const cause_words[] = {
	[PG_CAUSE_NONE] = "",
	[PG_CAUSE_REPS] = "too few repetitions with calls",
	[PG_CAUSE_PROBES] = "mostly probe overhead",
	[PG_CAUSE_CALLEE_TIME] = "little own time per traced call inside it",
	[PG_CAUSE_CALLEES] = "its traced callees differ between the runs",
	[PG_CAUSE_ONE_SIDE] = "traced in one run only",
	[PG_CAUSE_WIDE] = "interval too wide to decide",
	[PG_CAUSE_NOT_SIG] = "not significant after correction",
	[PG_CAUSE_NOT_SURELY] = "slower, not surely by the minimum effect",
	[PG_CAUSE_DRIFT] = "two recordings apart: the machine's drift",
};

const char *pg_verdict_name(enum pg_verdict v)
{
	if ((unsigned int)v >= sizeof(verdict_names) / sizeof(verdict_names[0]))
		return "unknown";
	return verdict_names[v];
}

const char *pg_cause_name(enum pg_cause c)
{
	if ((unsigned int)c >= PG_CAUSE_COUNT)
		return "unknown";
	return cause_names[c];
}

const char *pg_cause_words(enum pg_cause c)
{
	if ((unsigned int)c >= PG_CAUSE_COUNT)
		return "unknown";
	return cause_words[c];
}

const char *pg_overall_name(enum pg_overall v)
{
	switch (v) {
	case PG_OVERALL_PASS:
		return "pass";
	case PG_OVERALL_REGRESSION:
		return "regression";
	case PG_OVERALL_INCONCLUSIVE:
		return "inconclusive";
	}
	return "unknown";
}

static const char *const origin_names[] = {
	[PG_ORIGIN_EXACT] = "exact",
	[PG_ORIGIN_SAMPLED] = "sampled",
	[PG_ORIGIN_PROGRAM] = "program",
};

enum pg_code_cmp pg_code_cmp(uint64_t base, uint64_t new)
{
	if (!base || !new)
		return PG_CODE_UNKNOWN;
	return base == new ? PG_CODE_SAME : PG_CODE_CHANGED;
}

const char *pg_code_cmp_name(enum pg_code_cmp c)
{
	return c == PG_CODE_SAME ? "same" : c == PG_CODE_CHANGED ? "changed" : NULL;
}

int pg_code_cmp_parse(const char *s, enum pg_code_cmp *out)
{
	if (!strcmp(s, "same"))
		*out = PG_CODE_SAME;
	else if (!strcmp(s, "changed"))
		*out = PG_CODE_CHANGED;
	else
		return -EINVAL;
	return 0;
}

const char *pg_origin_name(enum pg_origin s)
{
	if ((unsigned int)s >= sizeof(origin_names) / sizeof(origin_names[0]))
		return "unknown";
	return origin_names[s];
}

int pg_origin_parse(const char *s, enum pg_origin *out)
{
	for (size_t i = 0; i < sizeof(origin_names) / sizeof(origin_names[0]); i++) {
		if (!strcmp(s, origin_names[i])) {
			*out = (enum pg_origin)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pg_metric_name(enum pg_metric m)
{
	switch (m) {
	case PG_METRIC_SELF:
		return "self";
	case PG_METRIC_TOTAL:
		return "total";
	case PG_METRIC_CPU:
		return "cpu";
	}
	return "unknown";
}

void pg_fcmp_init(struct pg_fcmp *f)
{
	memset(f, 0, sizeof(*f));
	f->base_ns = f->new_ns = NAN;
	f->change = f->ci_lo = f->ci_hi = NAN;
	f->p = f->q = NAN;
	f->probe_share = NAN;
	f->impact_ns = f->impact = NAN;
	f->change_cpu = f->change_offcpu = f->change_runq = NAN;
	f->blocked_share = f->kernel_share = NAN;
	f->verdict = PG_VERDICT_INCONCLUSIVE;
}

void pg_fcmp_release(struct pg_fcmp *f)
{
	free(f->binary);
	free(f->name);
	free(f->display);
	free(f->scope);
	free(f->src_file);
	pg_fcmp_init(f);
}

void pg_comparison_init(struct pg_comparison *c)
{
	const struct pg_compare_opts def = PG_COMPARE_OPTS_DEFAULT;

	memset(c, 0, sizeof(*c));
	c->opts = def;
	c->speed_spread = c->speed_shift = c->speed_p = NAN;
	c->speed_spin = c->speed_spin_se = c->program_spin = NAN;
	c->judged_share = NAN;
	pg_fcmp_init(&c->wall);
}

void pg_comparison_release(struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n; i++)
		pg_fcmp_release(&c->f[i]);
	free(c->f);
	pg_fcmp_release(&c->wall);
	for (size_t i = 0; i < c->nunjudged; i++) {
		free(c->unjudged[i].binary);
		free(c->unjudged[i].name);
	}
	pg_strv_free(c->warnings, c->nwarnings);
	pg_comparison_init(c);
}

/* Is @a to be named before @b: the larger share, then binary, then name? */
static bool unjudged_before(const struct pg_unjudged *a, const struct pg_unjudged *b)
{
	int d;

	if (a->share != b->share)
		return a->share > b->share;
	d = strcmp(a->binary, b->binary);
	return d ? d < 0 : strcmp(a->name, b->name) < 0;
}

int pg_comparison_add_unjudged(struct pg_comparison *c, const char *binary, const char *name,
			       size_t len, double share, double per_rep)
{
	struct pg_unjudged u = { strdup(binary), strndup(name, len), share, per_rep };
	size_t i;

	if (!u.binary || !u.name) {
		free(u.binary);
		free(u.name);
		return -ENOMEM;
	}
	if (c->nunjudged == PG_UNJUDGED_MAX &&
	    !unjudged_before(&u, &c->unjudged[PG_UNJUDGED_MAX - 1])) {
		free(u.binary);
		free(u.name);
		return 0;
	}
	if (c->nunjudged == PG_UNJUDGED_MAX) {	/* the smallest makes room */
		c->nunjudged--;
		free(c->unjudged[c->nunjudged].binary);
		free(c->unjudged[c->nunjudged].name);
	}
	for (i = c->nunjudged; i > 0 && unjudged_before(&u, &c->unjudged[i - 1]); i--)
		c->unjudged[i] = c->unjudged[i - 1];
	c->unjudged[i] = u;
	c->nunjudged++;
	return 0;
}

struct pg_fcmp *pg_comparison_add(struct pg_comparison *c)
{
	if (c->n >= c->falloc) {
		size_t cap = c->n < 8 ? 16 : 2 * c->n;
		struct pg_fcmp *f = realloc(c->f, cap * sizeof(*f));

		if (!f)
			return NULL;
		c->f = f;
		c->falloc = cap;
	}
	pg_fcmp_init(&c->f[c->n]);
	return &c->f[c->n++];
}

int pg_comparison_reserve(struct pg_comparison *c, size_t n)
{
	struct pg_fcmp *f;

	if (n <= c->falloc || n <= c->n)
		return 0;
	f = realloc(c->f, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	c->f = f;
	c->falloc = n;
	return 0;
}

size_t pg_comparison_matched(const struct pg_comparison *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin == PG_ORIGIN_EXACT && c->f[i].n_base && c->f[i].n_new)
			n++;
	return n;
}

bool pg_meta_same_benchmark(const struct pg_meta *a, const struct pg_meta *b)
{
	if (a->argc != b->argc)
		return false;
	for (size_t i = 0; i < a->argc; i++) {
		const char *x = a->argv[i], *y = b->argv[i];

		if (!x || !y) {
			if (x != y)
				return false;
			continue;
		}
		/* the program may be built in another directory: compare argv[0] by basename */
		if (i == 0 ? strcmp(pg_basename(x), pg_basename(y)) : strcmp(x, y))
			return false;
	}
	return true;
}

void pg_meta_command_words(char *buf, size_t size, const struct pg_meta *m)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < m->argc && len + 1 < size; i++) {
		int k = snprintf(buf + len, size - len, "%s%s", i ? " " : "",
				 m->argv[i] ? m->argv[i] : "");

		if (k < 0)
			break;
		len += (size_t)k;
	}
	if (len + 1 >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

static const char *const src_names[] = {
	[PG_SRC_NONE] = "none",
	[PG_SRC_REFS] = "references",
	[PG_SRC_SPIN] = "spin",
	[PG_SRC_UNKNOWN] = "unknown",
};

const char *pg_speed_src_name(enum pg_speed_src s)
{
	return (unsigned int)s <= PG_SRC_UNKNOWN ? src_names[s] : "none";
}

int pg_speed_src_parse(const char *name, enum pg_speed_src *s)
{
	for (unsigned int i = 0; i <= PG_SRC_UNKNOWN; i++) {
		if (!strcmp(name, src_names[i])) {
			*s = (enum pg_speed_src)i;
			return 0;
		}
	}
	return -EINVAL;
}
