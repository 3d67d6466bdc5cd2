/* SPDX-License-Identifier: MIT */
/*
 * diff/waker.h - whom a blocked function waited on: the waker (core/woken.h) whose blocked
 * time under it moved most, for the off-CPU clause of its cause line (diff/cause.h). Pure
 * computation: no I/O, no logging. docs/statistics.md, "Cause lines", describes it.
 *
 * On each side, every repetition's off-CPU stacks that hold the function's frame (outside
 * perfgate's own frames) add their nanoseconds to the whole, and each of their wakers' to that
 * waker's; a waker's time a repetition is its mean over the side's repetitions. The waker whose
 * time moved most the function's way is named when that move is at least PG_WAKER_SHARE of
 * the whole's move (which goes that way too): "waiting on redis-server (another process), +3.1
 * ms a repetition". Nothing is named when a side recorded no wakers (no off-CPU stacks, or a
 * run file of an older perfgate).
 *
 *	struct pg_waker_move w;
 *
 *	if (pg_waker_top(base, new, frame, len, f->change > 0 ? 1 : -1, &w) == 1)
 *		pg_waker_words(&w, buf, size);
 */
#ifndef PG_DIFF_WAKER_H
#define PG_DIFF_WAKER_H

#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* Of the move of a function's blocked time under its frame, the share one waker must hold */
#define PG_WAKER_SHARE 0.5

/*
 * The waker of frame @frame[0..len) whose time moved most @sign's way (+1 longer, -1 shorter)
 * from @base to @new, as above, into @out. 1 when one is named, 0 when none is, -ENOMEM.
 */
int pg_waker_top(const struct pg_run *base, const struct pg_run *new, const char *frame,
		 size_t len, int sign, struct pg_waker_move *out);

/* "waiting on redis-server (another process), +3.1 ms a repetition" for @w into @buf. */
void pg_waker_words(const struct pg_waker_move *w, char *buf, size_t size);

#endif
