/* SPDX-License-Identifier: MIT */
/*
 * core/woken.h - who woke the threads of a repetition's off-CPU stacks (struct pg_rep woken):
 * the blocked time of each off-CPU stack by the waker that ended it (docs/sampling.md,
 * "Off-CPU stacks", who woke them; docs/run-format.md, "offcpu_wakers").
 *
 * A waker is the task that ran the wakeup, named by its process (its thread group leader's
 * comm), and of what kind: a thread of the sleeper's own process, another process, a kernel
 * thread, or an interrupt (a wakeup from interrupt or softirq context, where the running task
 * is only whoever was interrupted: I/O, a timer). Kernel and interrupt wakers have no name.
 *
 * Invariants of a repetition's list (pg_rep_check_woken()): sorted by (stack, kind, comm)
 * (pg_woken_cmp()), unique; each stack an index in the repetition's offcpu, each ns >= 1, and
 * per stack their sum at most that stack's nanoseconds (the rest: intervals whose wakeup was
 * not seen); comm non-empty for PG_WOKEN_SAME and PG_WOKEN_OTHER, "" for the others. An empty
 * list (a run file of an older perfgate) says nothing of the wakers.
 */
#ifndef PG_WOKEN_H
#define PG_WOKEN_H

#include <stddef.h>
#include <stdint.h>

enum pg_woken_kind {
	PG_WOKEN_SAME = 1,	/* a thread of the sleeper's own process */
	PG_WOKEN_OTHER,		/* another process */
	PG_WOKEN_KERNEL,	/* a kernel thread */
	PG_WOKEN_IRQ,		/* an interrupt or softirq (I/O, a timer), or the idle task */
	PG_WOKEN_KINDS
};

struct pg_woken {
	uint32_t stack;		/* index in pg_rep.offcpu */
	enum pg_woken_kind kind;
	char *comm;		/* the waker's process name ("" for kernel, interrupt); not NULL */
	uint64_t ns;		/* >= 1 */
};

/* "same", "other", "kernel", "irq" (the run file's names); NULL for anything else. */
const char *pg_woken_kind_name(enum pg_woken_kind kind);
/* The kind named @s: 0, or -EINVAL. */
int pg_woken_kind_parse(const char *s, enum pg_woken_kind *kind);

/* The order of the list (qsort): stack, kind, then comm (strcmp). */
int pg_woken_cmp(const void *a, const void *b);

/* Do v[0..n) keep the invariants above for off-CPU stacks @off[0..noff)? 0, or -EINVAL with
 * the reason (about repetition @r) in @why. */
struct pg_stack;
int pg_woken_check(const struct pg_woken *v, size_t n, const struct pg_stack *off, size_t noff,
		   size_t r, char *why, size_t whylen);

/* Free v[0..n)'s names and v itself. */
void pg_woken_free(struct pg_woken *v, size_t n);

#endif
