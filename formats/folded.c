// SPDX-License-Identifier: MIT
/* formats/folded.c - folded stacks (formats/folded.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "folded.h"

#define WHY(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); } while (0)

void pg_stacks_free(struct pg_stack *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].folded);
	free(v);
}

static int cmp_stack(const void *a, const void *b)
{
	const struct pg_stack *x = a, *y = b;

	return strcmp(x->folded, y->folded);
}

/* Sort @v and merge equal stacks (adding counts). -EOVERFLOW if a sum overflows. */
static int sort_unique(struct pg_stack *v, size_t *n)
{
	size_t k = 0;

	if (*n > 1)	/* qsort() wants a non-NULL array even when empty */
		qsort(v, *n, sizeof(*v), cmp_stack);
	for (size_t i = 0; i < *n; i++) {
		if (k && !strcmp(v[k - 1].folded, v[i].folded)) {
			if (v[i].count > UINT64_MAX - v[k - 1].count)
				return -EOVERFLOW;
			v[k - 1].count += v[i].count;
			free(v[i].folded);
			v[i].folded = NULL;
			continue;
		}
		v[k++] = v[i];
		if (k - 1 != i)
			v[i].folded = NULL;	/* moved: one owner, also when we stop early */
	}
	*n = k;
	return 0;
}

static int push(struct pg_stack **v, size_t *n, size_t *cap, const char *s, size_t len,
		uint64_t count)
{
	if (PG_ALLOC_GROW(*v, *n + 1, *cap))
		return -ENOMEM;
	(*v)[*n].folded = strndup(s, len);
	if (!(*v)[*n].folded)
		return -ENOMEM;
	(*v)[*n].count = count;
	(*n)++;
	return 0;
}

/* The count of a line: decimal digits only, >= 1, no overflow. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned int)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return v >= 1;
}

int pg_folded_parse(const char *text, size_t len, struct pg_stack **out, size_t *n, char *why,
		    size_t whylen)
{
	struct pg_stack *v = NULL;
	size_t nv = 0, cap = 0, pos = 0, lineno = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	while (pos < len && !err) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos, sp;
		uint64_t count;
		char *frames;

		pos += ll + (nl ? 1 : 0);
		lineno++;
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (!ll)
			continue;
		for (sp = ll; sp > 0 && line[sp - 1] != ' '; sp--)
			;
		if (!sp || sp == 1) {
			WHY("line %zu: expected \"frame;frame;... COUNT\"", lineno);
			err = -EINVAL;
			break;
		}
		if (!parse_count(line + sp, ll - sp, &count)) {
			WHY("line %zu: the count must be a whole number from 1 to 2^64 - 1",
			    lineno);
			err = -EINVAL;
			break;
		}
		if (memchr(line, '\0', sp - 1)) {
			WHY("line %zu: NUL byte in the stack", lineno);
			err = -EINVAL;
			break;
		}
		err = push(&v, &nv, &cap, line, sp - 1, count);
		if (err)
			break;
		frames = v[nv - 1].folded;
		if (!pg_folded_valid(frames)) {
			WHY("line %zu: not a folded stack (an empty frame or a control character)",
			    lineno);
			err = -EINVAL;
		}
	}
	if (!err) {
		err = sort_unique(v, &nv);
		if (err) {
			WHY("the counts of one stack add up to more than 2^64 - 1");
			err = -EINVAL;
		}
	}
	if (err) {
		pg_stacks_free(v, nv);
		return err;
	}
	*out = v;
	*n = nv;
	return 0;
}

int pg_stacks_merge(const struct pg_run *run, long rep, struct pg_stack **out, size_t *n)
{
	struct pg_stack *v = NULL;
	size_t nv = 0, cap = 0;
	size_t r0 = rep < 0 ? 0 : (size_t)rep, r1 = rep < 0 ? run->nreps : (size_t)rep + 1;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (rep >= 0 && (size_t)rep >= run->nreps)
		return -EINVAL;
	for (size_t r = r0; r < r1 && !err; r++)
		for (size_t i = 0; i < run->reps[r].nstacks && !err; i++)
			err = push(&v, &nv, &cap, run->reps[r].stacks[i].folded,
				   strlen(run->reps[r].stacks[i].folded),
				   run->reps[r].stacks[i].count);
	if (!err)
		err = sort_unique(v, &nv) ? -EOVERFLOW : 0;
	if (err) {
		pg_stacks_free(v, nv);
		return err;
	}
	*out = v;
	*n = nv;
	return 0;
}

int pg_folded_write(FILE *f, const struct pg_stack *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fprintf(f, "%s %llu\n", v[i].folded, (unsigned long long)v[i].count) < 0)
			return -EIO;
	return 0;
}

size_t pg_run_noffcpu(const struct pg_run *run)
{
	size_t n = 0;

	for (size_t r = 0; r < run->nreps; r++)
		n += run->reps[r].noffcpu;
	return n;
}

int pg_run_offcpu_as_stacks(struct pg_run *run)
{
	pg_run_own_release(run);	/* on-CPU samples by function: not the new stacks' */
	for (size_t r = 0; r < run->nreps; r++) {
		struct pg_rep *rep = &run->reps[r];
		uint64_t sum = 0;

		for (size_t i = 0; i < rep->noffcpu; i++) {
			if (rep->offcpu[i].count > UINT64_MAX - sum)
				return -EOVERFLOW;
			sum += rep->offcpu[i].count;
		}
		for (size_t i = 0; i < rep->nstacks; i++)
			free(rep->stacks[i].folded);
		free(rep->stacks);
		rep->stacks = rep->offcpu;
		rep->nstacks = rep->noffcpu;
		rep->offcpu = NULL;
		rep->noffcpu = 0;
		pg_woken_free(rep->woken, rep->nwoken);	/* they indexed offcpu */
		rep->woken = NULL;
		rep->nwoken = 0;
		rep->samples = sum;
		rep->samples_lost = 0;
		rep->samples_truncated = 0;
	}
	return 0;
}
