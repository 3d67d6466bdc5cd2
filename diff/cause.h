/* SPDX-License-Identifier: MIT */
/*
 * diff/cause.h - through what a function whose own machine code did not change came to be
 * slower (or faster): its cause line (struct pg_fcmp why). Pure computation: no I/O, no
 * logging. docs/statistics.md, "Cause lines", says why these kinds of evidence.
 *
 * For every exact or sampled entry whose change counts (regression, improvement, notable) and
 * whose digests are equal on both sides (PG_CODE_SAME; nothing when a side has none), when the
 * builds differ (some entry's code is PG_CODE_CHANGED: two runs of one build get none, as they
 * get no code notes), from the data the two runs hold, these clauses:
 *  - callee (traced entries): the untraced function its time holds (of the sampled functions
 *    that own the new run's stacks under it, no traced frame between, in its process, and
 *    changed its way, the one with the most samples there): "its time holds tone_px (changed,
 *    not traced): +43.7% a repetition". Explains when that callee's code changed.
 *  - caller: on the sampled stacks, the frame that called it (its nearest caller that is not
 *    an inlined frame) under which its time moved most the way it changed, when that move is
 *    at least PG_CAUSE_CALLER_SHARE of its move under every caller: "called from parse
 *    (changed): its time under parse +42%". A caller is matched to the comparison's entries by
 *    (object, name): the entry of that name in the function's object or its process's
 *    program; its code is that entry's, else the frame's digests (pg_run_code()). A function
 *    whose frame name another object also holds (a client and a server that each have an
 *    event_loop; pg_name_shared()) has no caller clause: stacks name frames, not objects. A
 *    sampled function has no call counts: the same code under a changed caller is said to
 *    run there "more often or on more data", which samples cannot tell apart. Explains when
 *    the caller's code changed.
 *  - changed ancestors (when the caller clause does not explain): each sampled stack of the
 *    function walked up from its frame to the nearest frame, not inlined (an inlined frame
 *    "name [i]" is part of the function it was inlined into), whose code changed (matched as
 *    the caller is), the function's samples summed per such ancestor on each side per
 *    repetition as above; the ancestors of largest move its way, until they hold
 *    PG_CAUSE_CALLER_SHARE of its move under all (stacks no changed code reaches count in
 *    that whole) and at most PG_CAUSE_MAX_ANCESTORS, each with the frame it called on the
 *    way (of its paths, the one with most samples in the new run) unless that is the
 *    function itself: "reached from changed code: jq_next (via jv_copy) +26%, stack_restore
 *    (via jv_free) new". Explains when they hold that share; nothing otherwise.
 *  - call counts (traced entries): "called 38% more often, each call +12%" when the calls a
 *    repetition moved by PG_CAUSE_MIN_CALLS or more (explains when they moved its way), else
 *    "as often, each call +12%".
 *  - off-CPU (both runs measured it): "its extra time is blocked (off-CPU +8.7%, on-CPU
 *    +0.4%): waiting on another process or I/O" when the blocked part (change_offcpu less
 *    change_runq) is at least half the change and goes its way (explains). When both runs
 *    recorded who woke their off-CPU stacks' threads, the waker whose time under it moved most
 *    its way (diff/waker.h; f->waker) in place of the last words: "waiting on redis-server
 *    (another process), +3.1 ms a repetition", "waiting on its own threads (zstd), ...",
 *    "waiting on I/O or a timer (woken from an interrupt), ...".
 * The line is the clauses that explain, at most two in the order above; when none does, the
 * first clause of calls, callee or caller found, then "its code did not change and no changed
 * caller or callee, call count or wait explains it: a candidate for noise", naming the share
 * of its time that is the kernel's when that is most of it (diff/kshare.h).
 *
 *	pg_cause_explain(c, base, new);		// after the verdicts, before the sort
 */
#ifndef PG_DIFF_CAUSE_H
#define PG_DIFF_CAUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"

/* Of a function's move of time under all its callers, the share one caller must hold */
#define PG_CAUSE_CALLER_SHARE 0.5
/* The most changed ancestors an ancestor clause names */
#define PG_CAUSE_MAX_ANCESTORS 3
/* The relative change of calls a repetition that counts as "more often" or "less often" */
#define PG_CAUSE_MIN_CALLS 0.05

/* Fill the cause line (f->why) of the entries of @c as above. 0 or -ENOMEM. */
int pg_cause_explain(struct pg_comparison *c, const struct pg_run *base,
		     const struct pg_run *new);

/* The first frame @fr[0..frlen) of folded stack @s outside perfgate's own frames, or NULL. */
const char *pg_stack_find_frame(const char *s, const char *fr, size_t frlen);

/* The length of the frame name that stacks hold for @name: without a trailing " [scope]". */
size_t pg_frame_name_len(const char *name);

/*
 * Can a function shown in object @a (a traced function's binary, or a sampled one's "object"
 * or "object (program)") run in the same process as one shown in @b: the two share an object
 * or a program? "" (unknown) agrees with anything.
 */
bool pg_same_process(const char *a, const char *b);

/*
 * Does an object other than @f's hold a function of @f's frame name (another entry of @c, or
 * an own sample of @base or @new), or do several of its object (a scope: struct pg_func)?
 * Then stacks, which name frames and not objects, cannot tell @f's samples from the other's.
 */
bool pg_name_shared(const struct pg_comparison *c, const struct pg_fcmp *f,
		    const struct pg_run *base, const struct pg_run *new);

/*
 * Samples by frame name, side (0 base, 1 new) and repetition: the table the caller search here
 * and diff/inlined.h fill, and the time they stand for.
 *
 *	struct pg_fcounts t;
 *
 *	if (pg_fcounts_init(&t, base, new))
 *		return -ENOMEM;
 *	e = pg_fcounts_get(&t, frame, len);	// then e->cnt[side][r] += samples
 *	ms = pg_fcounts_time(&t, e, 1);
 *	pg_fcounts_release(&t);
 */
struct pg_fcount {
	const char *s;		/* the frame, borrowed from a stack */
	size_t len;
	double *cnt[2];		/* per repetition of each side */
	uint64_t tot[2];
};

struct pg_fcounts {
	struct pg_fcount *v;
	size_t n, cap;
	size_t nreps[2];
	/* per side and repetition, the CPU time a sample stands for: cpu_ns over the samples of
	 * its stacks, 0 when it has either none; nw: the repetitions with both */
	double *w[2];
	size_t nw[2];
};

/* An empty table for @base and @new. 0 or -ENOMEM. */
int pg_fcounts_init(struct pg_fcounts *t, const struct pg_run *base, const struct pg_run *new);

/* The entry of frame @s[0..len), or NULL. */
struct pg_fcount *pg_fcounts_find(struct pg_fcounts *t, const char *s, size_t len);
/* The same, added (counts 0) when new; NULL on ENOMEM. */
struct pg_fcount *pg_fcounts_get(struct pg_fcounts *t, const char *s, size_t len);
void pg_fcounts_release(struct pg_fcounts *t);

/*
 * @e's time a repetition on @side: the mean over the repetitions that have CPU time and samples
 * of its samples' share of each one's samples times its CPU time; NAN when none has.
 */
double pg_fcounts_time(const struct pg_fcounts *t, const struct pg_fcount *e, int side);

#endif
