/* SPDX-License-Identifier: MIT */
/*
 * diff/speed.h - the machine's speed in each pair of an interleaved session (perfgate ab), and
 * the paired differences corrected for it. Pure computation: no I/O, no logging.
 * docs/statistics.md, "Machine speed", gives the measurements behind it.
 *
 * Why: on a shared machine (a CI runner, a VM with steal time, a CPU whose clock moves) one
 * repetition may run everything 20-40% slower than its partner. Every on-CPU function of that
 * repetition moves together, and such a pair outweighs a real change of a few percent in the
 * signed-rank test. Measured on zstd (a 38 ms run, 20 pairs): the per-pair spread of
 * HUF_compress_internal fell from 18.8% to 8.6% with the correction, and its +12% change went
 * from p = 0.11 to p < 0.001.
 *
 * What: for pair k, the speed difference c[k] is the weighted median, over the reference
 * functions, of their per-pair log differences (new - base) of that pair, each weighted by
 * the square root of its time a repetition. A reference function is tested by the comparison,
 * called on both sides of at least half the pairs, and spends at least PG_SPEED_MIN_CPU of its
 * time not blocked (on a CPU or waiting for one: that is what a slow machine slows). The median
 * is robust to a minority of functions that really changed. The weights keep the many small
 * functions of a real program (a file opened once, a pool created once: their time is system
 * calls and cache misses, and follows the machine's speed loosely) from outvoting the few that
 * hold its CPU time; the square root keeps one dominant function from deciding alone. On zstd
 * (24 sessions of its -O1 change, 20 pairs each) the gate found the change in 23 sessions with
 * the weights, 16 with a plain median, 10 uncorrected; 16 A/A sessions failed none either way.
 * A function's difference in pair k is then corrected to d - beta * c[k], where a reference
 * function's own c[k] leaves its own values out (leave one out): the median is robust to one
 * changed function, but not unmoved by it, and on a program whose CPU time is in a few
 * functions the changed one is also the heaviest reference. On lz4 (1.9.4, lib/lz4.c at -O1,
 * 3 ab sessions) LZ4_compress_fast_extState_fastReset, +3.9% uncorrected, read +2.4% and +1.5%
 * corrected by a c[k] that held its own change. beta is how much of
 * the machine's speed the function's differences follow: the least-squares slope of its d on
 * the c[k] through 0, sum(d c) / sum(c^2), kept within [0, share], where share is its own time
 * not blocked over its time (1 when the runs have no off-CPU time). A function on another
 * thread, or running at another moment than the reference functions, follows them less: on
 * leveldb, its compaction thread's BuildTable follows with beta 0-0.7, and a full correction
 * (beta = share) made its real +20% change noisier, not clearer.
 *
 * A function that changed by itself is no reference: pg_speed_finish() leaves out those whose
 * own differences, uncorrected, are significant (signed-rank p <= alpha) with a median of at
 * least the minimum effect either way. The median is robust to a minority of changed
 * references, but not unmoved by them: in the demo, two of five references (blur_row and
 * tone_row, +50% and +45%, two of the heaviest) made every untouched function read 1-4%
 * faster. When that would leave fewer than PG_SPEED_MIN_REFS references, all stay, as when
 * the changed ones hold half the references' weight or more: then the program moved (below).
 * Under no change the rule is the same whichever way the pairs are flipped (it looks
 * at |median| and a two-sided p), so it keeps the symmetry below; a function slowed by a few
 * percent that the machine's noise hides stays a reference, and leave one out covers it.
 * When it is not applied (pg_speed.applied false, every correction 0):
 *  - fewer than PG_SPEED_MIN_PAIRS pairs with PG_SPEED_MIN_REFS reference functions each;
 *  - the c[k] themselves are significant (signed-rank p <= alpha of the look) and the
 *    reference functions' typical move is at least the minimum effect: the whole program moved
 *    one way in most pairs, by as much as a function must move to count. Random order within
 *    pairs makes a machine's slow moments fall on either side, so that is a change of the
 *    program, not of the machine, and correcting for it would hide it (a build slower
 *    everywhere would flag nothing). The per-function tests then stay as measured, and the
 *    comparison says why. The typical move is the weighted median, over the references, of
 *    each one's median difference: one changed function among few references leaks into every
 *    c[k] (the median of six values moves when one of them does; on tests/progs/shared_cpu,
 *    one function of six +20% made the median of the c[k] +3.2% at p = 0.04), but it stays
 *    one function of six there.
 * Under no change (an A/A session) the two sides are exchangeable in every pair: swapping them
 * flips the sign of every d and of c[k] alike. Each product d c, and so beta, is the same
 * whichever way the pairs are flipped, so the corrected differences d - beta c are flipped
 * with them: symmetric about 0, and the signed-rank test keeps its level.
 *
 * Life cycle: pg_speed_init(), pg_speed_add() per reference function, pg_speed_finish(), then
 * pg_speed_correct() per function; pg_speed_release() frees it (also after a failed init).
 *
 *	struct pg_speed sp;
 *
 *	if (pg_speed_init(&sp, max_pair + 1))
 *		goto fail;
 *	for each reference function:
 *		pg_speed_add(&sp, d, pairs, nd, time_ns, id);
 *	pg_speed_finish(&sp, alpha, min_effect);
 *	pg_speed_correct(&sp, d, pairs, nd, share, id);	// per function, before its test
 *	pg_speed_release(&sp);
 */
#ifndef PG_SPEED_H
#define PG_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "speedlib.h"

/* Reference functions the median needs before it stands for the machine */
#define PG_SPEED_MIN_REFS 3
/* Pairs a reference function is called in, and pairs with a speed, before either counts (the
 * least a paired test of a function needs: PG_COMPARE_OPTS_DEFAULT's min_reps) */
#define PG_SPEED_MIN_PAIRS 5
/* A reference function's time not blocked, over its time */
#define PG_SPEED_MIN_CPU 0.9

struct pg_speed {
	size_t npairs;		/* pair indices 0..npairs) */
	double *c;		/* c[k]; 0 where fewer than PG_SPEED_MIN_REFS values */
	/* the values added: d, the reference's weight, group the pair, owner the reference's
	 * id as pg_speed_add() was given it; sorted by pg_speed_finish() (diff/speedlib.h) */
	struct pg_wmed_item *v;
	size_t nv, alloc;
	/* per reference function added: its median d and weight */
	struct pg_speed_ref {
		uint32_t id;	/* as pg_speed_add() was given it */
		double d;
		double w;	/* its weight (diff/speedlib.h) */
		double p;	/* the signed-rank p of its own d */
	} *ref;
	size_t nrefs, ref_alloc;	/* reference functions added */
	bool applied;		/* corrections are not 0 (see the top) */
	double spread;		/* median |c[k]| over the pairs with a value: the typical speed
				 * difference of a pair, as a log ratio */
	double shift;		/* the references' weighted median of their median d: the
				 * whole program's move */
	double p;		/* signed-rank p of the c[k]; NAN when not tested */
};

/* Room for pair indices below @npairs. 0 or -ENOMEM. */
int pg_speed_init(struct pg_speed *s, size_t npairs);

/* Free what @s holds (not @s). */
void pg_speed_release(struct pg_speed *s);

/* The id of a function that is no reference */
#define PG_SPEED_NO_ID UINT32_MAX

/*
 * One reference function's differences d[0..nd) in the pairs pairs[0..nd), and its time a
 * repetition, @time_ns (its weight is the square root; not above 0: the least weight, 1 ns).
 * @id names it to pg_speed_correct() (not PG_SPEED_NO_ID). 0 or -ENOMEM.
 */
int pg_speed_add(struct pg_speed *s, const double *d, const uint32_t *pairs, size_t nd,
		 double time_ns, uint32_t id);

/* Leave out the references that changed by themselves, then the c[k], their test at @alpha,
 * and whether the correction applies (a shift of at least @min_effect, as a relative change,
 * stops it). 0 or -ENOMEM. */
int pg_speed_finish(struct pg_speed *s, double alpha, double min_effect);

/*
 * d[i] -= beta * c[pairs[i]] for i < nd, when applied: beta as above, at most @share; c[k]
 * without the values of reference @id (PG_SPEED_NO_ID: a function that is none).
 */
void pg_speed_correct(const struct pg_speed *s, double *d, const uint32_t *pairs, size_t nd,
		      double share, uint32_t id);

#endif
