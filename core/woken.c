// SPDX-License-Identifier: MIT
/*
 * core/woken.c - who woke the threads of off-CPU stacks (woken.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "woken.h"

static const char *const kind_names[PG_WOKEN_KINDS] = {
	[PG_WOKEN_SAME] = "same",
	[PG_WOKEN_OTHER] = "other",
	[PG_WOKEN_KERNEL] = "kernel",
	[PG_WOKEN_IRQ] = "irq",
};

const char *pg_woken_kind_name(enum pg_woken_kind kind)
{
	return kind > 0 && kind < PG_WOKEN_KINDS ? kind_names[kind] : NULL;
}

int pg_woken_kind_parse(const char *s, enum pg_woken_kind *kind)
{
	for (int k = 1; k < PG_WOKEN_KINDS; k++)
		if (!strcmp(s, kind_names[k])) {
			*kind = (enum pg_woken_kind)k;
			return 0;
		}
	return -EINVAL;
}

int pg_woken_cmp(const void *pa, const void *pb)
{
	const struct pg_woken *a = pa, *b = pb;

	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->comm, b->comm);
}

#define WHY(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); } while (0)

int pg_woken_check(const struct pg_woken *v, size_t n, const struct pg_stack *off, size_t noff,
		   size_t r, char *why, size_t whylen)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pg_woken *w = &v[i];
		bool named = w->kind == PG_WOKEN_SAME || w->kind == PG_WOKEN_OTHER;

		if (w->stack >= noff || !pg_woken_kind_name(w->kind) || !w->comm || !w->ns ||
		    named != !!w->comm[0]) {
			WHY("repetition %zu, off-CPU waker %zu: bad stack, kind, name or time", r,
			    i);
			return -EINVAL;
		}
		if (i && pg_woken_cmp(&v[i - 1], w) >= 0) {
			WHY("repetition %zu: off-CPU wakers out of order or repeated", r);
			return -EINVAL;
		}
		sum = i && v[i - 1].stack == w->stack ? sum : 0;
		if (w->ns > off[w->stack].count - sum) {
			WHY("repetition %zu: off-CPU wakers of stack %u hold more than its time", r,
			    w->stack);
			return -EINVAL;
		}
		sum += w->ns;
	}
	return 0;
}

void pg_woken_free(struct pg_woken *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].comm);
	free(v);
}
