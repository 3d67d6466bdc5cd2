// SPDX-License-Identifier: MIT
/*
 * diff/waker.c - whom a blocked function waited on (waker.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "cause.h"
#include "waker.h"

/* A waker's nanoseconds under the frame, summed over each side's repetitions. */
struct wsum {
	enum pg_woken_kind kind;
	const char *comm;	/* borrowed from a run */
	double ns[2];
};

struct wtab {
	struct wsum *v;
	size_t n, cap;
	double all[2];		/* every stack under the frame, wakers known or not */
};

static struct wsum *wtab_get(struct wtab *t, enum pg_woken_kind kind, const char *comm)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].kind == kind && !strcmp(t->v[i].comm, comm))
			return &t->v[i];
	if (PG_ALLOC_GROW(t->v, t->n + 1, t->cap))
		return NULL;
	t->v[t->n] = (struct wsum){ kind, comm, { 0, 0 } };
	return &t->v[t->n++];
}

/* Add @run's (side @side) stacks holding @frame and their wakers to @t. 0 or -ENOMEM. */
static int gather(struct wtab *t, const struct pg_run *run, int side, const char *frame,
		  size_t len)
{
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];
		size_t w = 0;

		for (size_t k = 0; k < rep->noffcpu; k++) {
			bool under = pg_stack_find_frame(rep->offcpu[k].folded, frame, len);

			t->all[side] += under ? (double)rep->offcpu[k].count : 0;
			for (; w < rep->nwoken && rep->woken[w].stack <= k; w++) {
				const struct pg_woken *o = &rep->woken[w];
				struct wsum *e;

				if (o->stack < k || !under)
					continue;
				e = wtab_get(t, o->kind, o->comm);
				if (!e)
					return -ENOMEM;
				e->ns[side] += (double)o->ns;
			}
		}
	}
	return 0;
}

static bool has_wakers(const struct pg_run *run)
{
	for (size_t r = 0; r < run->nreps; r++)
		if (run->reps[r].nwoken)
			return true;
	return false;
}

int pg_waker_top(const struct pg_run *base, const struct pg_run *new, const char *frame,
		 size_t len, int sign, struct pg_waker_move *out)
{
	struct wtab t = { 0 };
	double nb = base->nreps ? (double)base->nreps : 1, nn = new->nreps ? (double)new->nreps : 1;
	double all, best_d = 0;
	const struct wsum *best = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (!has_wakers(base) || !has_wakers(new))
		return 0;
	err = gather(&t, base, 0, frame, len) ?: gather(&t, new, 1, frame, len);
	all = sign * (t.all[1] / nn - t.all[0] / nb);
	for (size_t i = 0; !err && i < t.n; i++) {
		const struct wsum *e = &t.v[i];
		double d = sign * (e->ns[1] / nn - e->ns[0] / nb);

		/* ties: the lower kind, then the name first in byte order */
		if (d > best_d || (best && d == best_d && (e->kind < best->kind ||
				   (e->kind == best->kind && strcmp(e->comm, best->comm) < 0)))) {
			best = e;
			best_d = d;
		}
	}
	if (!err && best && all > 0 && best_d >= PG_WAKER_SHARE * all) {
		out->kind = best->kind;
		snprintf(out->comm, sizeof(out->comm), "%s", best->comm);
		out->base_ns = best->ns[0] / nb;
		out->new_ns = best->ns[1] / nn;
	}
	free(t.v);
	return err ? err : out->kind ? 1 : 0;
}

void pg_waker_words(const struct pg_waker_move *w, char *buf, size_t size)
{
	double d = w->new_ns - w->base_ns;
	char amount[32];

	if (fabs(d) >= 1e5)
		snprintf(amount, sizeof(amount), "%+.1f ms", d / 1e6);
	else
		snprintf(amount, sizeof(amount), "%+.0f us", d / 1e3);
	switch (w->kind) {
	case PG_WOKEN_SAME:
		snprintf(buf, size, "waiting on its own threads (%s), %s a repetition", w->comm,
			 amount);
		break;
	case PG_WOKEN_OTHER:
		snprintf(buf, size, "waiting on %s (another process), %s a repetition", w->comm,
			 amount);
		break;
	case PG_WOKEN_KERNEL:
		snprintf(buf, size, "waiting on the kernel (woken by a kernel thread), %s a "
			 "repetition", amount);
		break;
	case PG_WOKEN_IRQ:
		snprintf(buf, size, "waiting on I/O or a timer (woken from an interrupt), %s a "
			 "repetition", amount);
		break;
	default:
		snprintf(buf, size, "waiting on another process or I/O");
	}
}
