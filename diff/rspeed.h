/* SPDX-License-Identifier: MIT */
/*
 * diff/rspeed.h - the machine's speed between two recordings (an unpaired comparison), and the
 * new run's values corrected for it. Pure computation: no I/O, no logging.
 * docs/statistics.md, "The machine's speed between two recordings", gives the measurements.
 *
 * Why: two recordings made one after the other run at the machine's speed of their moment.
 * On this project's VMs two recordings of jq 30 s apart, with nothing else running, differed
 * by +17% in CPU time a repetition, and every function with it: the rank test over the
 * repetitions cannot see that drift, so two of them were called regressions (+21%, +23%) in
 * an A/A comparison. perfgate ab cancels such drift pair by pair (diff/speed.h); two plain
 * recordings can only compare each function with the others of the same two runs.
 *
 * What: each reference function's shift d is the Hodges-Lehmann estimate of (new - base) of its
 * per-repetition logs. The speed between the runs, for function g, is c_g, the weighted median of
 * the references' d without g's own (leave one out), each weighted by the square root of its time
 * a repetition (diff/speedlib.h, the rule of the three corrections). A function's new values are
 * judged less beta * c_g. beta is how much of the machine's speed the function follows, as in
 * diff/speed.h, learnt from the repetitions: each repetition's speed is the weighted median of the
 * references' distances from their run's mean log in it (the function's own left out), and beta
 * the least-squares slope through 0 of the function's own distances on those speeds, both runs
 * together, kept within [0, share] (share: its time not blocked over its time; 1 for sampled
 * functions, whose time is CPU time). A function that does not follow the machine (a read of the
 * page cache, a thread waiting for others) is corrected less: on zstd, corrected in full,
 * AIO_ReadPool_executeReadJob read -16.8% in an A/A comparison whose machine ran 29% slower in the
 * new run. The references are the exact functions the comparison can test that spend at least
 * PG_SPEED_MIN_CPU of their time not blocked, with at least the least repetitions a test needs on
 * each side.
 *
 * A reference that changed by itself is left out of every c: one whose shift against the
 * others' median, |d - c_g|, is at least the minimum effect and whose corrected values differ
 * from the base run's by the rank test (p <= alpha). When that leaves fewer than
 * PG_RSPEED_MIN_REFS, or the references that changed hold half of the references' weight or
 * more, there is no common speed to take out: nothing is corrected. (Unlike diff/speed.h,
 * which keeps them all then: a changed reference among three would be the median of the
 * other two for each, and its change, constant over the repetitions, would be taken out of
 * them whole, beta being learnt from the repetitions' differences from their run's mean.)
 *
 * What it cannot tell: a build slower everywhere, by the same factor, looks exactly like a
 * slower machine. The functions are then corrected to unchanged, but the whole program's CPU
 * and wall time are never corrected (diff/program.c): such a change fails the build on the
 * program's line, with no function to explain it. perfgate ab, whose pairs interleave the
 * two builds, tells the two apart.
 *
 * Life cycle: pg_rspeed_add() per reference function (its logs are copied), then
 * pg_rspeed_finish() (which learns every reference's slope and frees the copies), then
 * pg_rspeed_of() per function; pg_rspeed_release() frees it, also after a failed add or
 * finish. A zeroed struct is an empty one.
 *
 *	struct pg_rspeed rs = { 0 };
 *
 *	pg_rspeed_reserve(&rs, most references, most values);	// optional
 *	for each reference function:
 *		if (pg_rspeed_add(&rs, id, sb.log, sb.pair, sb.n, sn.log, sn.pair, sn.n, ns))
 *			goto fail;
 *	if (pg_rspeed_finish(&rs, alpha, min_effect, &ws))
 *		goto fail;
 *	c = pg_rspeed_of(&rs, id, sb.log, sb.pair, sb.n, sn.log, sn.pair, sn.n, share, &beta);
 *	// per function: its new logs less c
 *	pg_rspeed_release(&rs);
 */
#ifndef PG_RSPEED_H
#define PG_RSPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "speedlib.h"
#include "stats.h"

/* Reference functions the median needs before it stands for the machine */
#define PG_RSPEED_MIN_REFS 3

/*
 * Without enough references, the reference spins (struct pg_meta.spin, runner/session/spin.h)
 * tell the speed: c = log(median new spin / median base spin), with its standard error from
 * each run's spread (the median's, 1.2533 * 1.4826 * MAD / sqrt(n), the two sides' added in
 * quadrature). Their times on a CPU are compared, wall less the time they waited in a run queue
 * (stolen time included: a function's is too), their CPU times with --metric cpu. Every function
 * judged is corrected by share * c as above (beta its share: nothing to learn a slope from)
 * and has its interval widened and p raised by that correction's uncertainty as
 * diff/rnull.h widens by the null (pg_rnull_widen_by()).
 *
 * A spin run on each CPU (struct pg_spin.ncpu) stands for the CPUs the repetition's samples
 * fell on. Without samples it is the CPUs' mean, and the benchmark's own CPU may have been any
 * of them: such a repetition's log value is known within +-d/2, d the log of its slowest CPU's
 * time over its fastest's. The median of d over the run's spins (0 for a spin that tells
 * where it ran, or ran on one CPU) adds (d/2)^2 / 3 to the run's squared standard error, a
 * uniform error over that range.
 */
/* Spins each run needs before they stand for its speed */
#define PG_RSPEED_SPIN_MIN 3
/*
 * The least standard error of the spins' speed (log scale): the spin runs beside the
 * repetitions, not in them, and is one kind of work. Ten spins of one run agree within about
 * 1% on an idle machine; a function may follow the machine's speed otherwise than an integer
 * chain by a few %.
 */
#define PG_RSPEED_SPIN_FLOOR 0.02
/*
 * What the spin does not see (log scale, one standard deviation): it is an integer chain in
 * registers, and a program that reads and writes memory and files also follows the caches,
 * the memory and the page cache it shares with the machine's neighbours. Over 143 A/A pairs of
 * two recordings of five real programs (2026-11-28/29, this project's 2-CPU VM, nothing else
 * running), the program's CPU time corrected by the spins moved with a standard deviation of
 * 0.027 (jq) and 0.030 (the demo), but 0.086 (lz4), 0.113 (zstd) and 0.132 (leveldb, its
 * robust estimate 0.110), while the spins moved 2% at most: lz4 ran 20% faster for eight of
 * ten repetitions of one recording. Wherever the spin corrects a time (the fallback speed
 * below, and the whole program's CPU time: diff/program.c), its standard error has this
 * added in quadrature: zstd's, so that two recordings of the programs that move most flag
 * nothing at their 5% level. Two recordings then tell a change of a program with too few
 * references only beyond about 25%; perfgate ab, whose pairs interleave, tells less.
 */
#define PG_RSPEED_SPIN_BLIND 0.113
/*
 * With enough references, the spins only check them: they disagree when the two speeds differ
 * by more than PG_RSPEED_SPIN_AGREE (log scale) beyond the normal quantile of the comparison's
 * confidence times the spins' standard error; the comparison then warns.
 */
#define PG_RSPEED_SPIN_AGREE 0.05
/*
 * Neither references nor spins (run files from before the spin, or of two workloads): the
 * speed between the recordings is unknown and taken as 0 with this standard error (log
 * scale): +-20% at 95%, as the +17% two idle recordings of jq 30 s apart differed by, and
 * what a spin does not see on top (pg_rspeed_spin_error(): +-33% in all). Every function
 * judged is widened by it (times its share) and its p raised: a change must exceed about 33%
 * to be called. A busy runner swings more (60% within a minute): there only the
 * spin or perfgate ab tell.
 */
#define PG_RSPEED_UNKNOWN 0.093

struct pg_rspeed_ref {
	uint32_t id;
	double w;		/* its weight (diff/speedlib.h) */
	size_t from[2];		/* where its base [0] and new [1] values start in the block */
	size_t n[2];
	bool dense[2];		/* the tags are 0, 1, 2...: not copied */
	double d;		/* Hodges-Lehmann shift of its logs, new - base */
	double xy, xx;		/* its slope's sums (pg_rspeed_of()), learnt when finished */
	bool changed;		/* changed by itself: in no median */
};

struct pg_rspeed {
	struct pg_rspeed_ref *ref;
	size_t nrefs, alloc;
	/* one block, until finished: copies of the references' logs, each run's in the order of
	 * their repetitions' tags, and the tags (pg_sample.pair) */
	double *logs;
	uint32_t *tags;
	size_t nlogs, alogs;	/* values used, and room */
	size_t nchanged;	/* references left out as changed by themselves */
	bool applied;		/* pg_rspeed_of() may be other than 0 */
	double shift;		/* the weighted median of the kept references' d (log) */
	uint32_t ntags[2];	/* the repetitions' tags of each run are below these */
	struct pg_wmed_item *shifts;	/* the kept references' d, owner: their index */
	size_t nshifts;
	size_t *at;		/* per reference: its position in shifts, or nshifts */
	double *speed[2];	/* per tag: the repetition's speed, the weighted median of all
				 * kept references' distances from their run's mean log in it */
	double null_sigma;	/* the comparison's empirical null (diff/rnull.h); 0: none */
	/* not applied: the fallback (pg_rspeed_fallback()): the spins' speed (log) and its
	 * standard error, or 0 and PG_RSPEED_UNKNOWN; fallback false: none */
	bool fallback;
	double fb_shift, fb_se;
};

/*
 * The reference spins' speed of run @n against run @b (log, new - base) into *@shift and its
 * standard error (at least PG_RSPEED_SPIN_FLOOR) into *@se, from their wall times less their
 * run queue waits, or their CPU times when @cpu. -ENODATA when either has fewer than
 * PG_RSPEED_SPIN_MIN spins or the workloads differ; -ENOMEM.
 */
struct pg_meta;
int pg_rspeed_spin(const struct pg_meta *b, const struct pg_meta *n, bool cpu, double *shift,
		   double *se);

/* The standard error (log) of a time corrected by the spins whose own is @se: @se and
 * PG_RSPEED_SPIN_BLIND, what a spin does not see, in quadrature. Without spins, @se is
 * PG_RSPEED_UNKNOWN: what a spin would have seen is not known either, and an unknown speed
 * is never narrower than a known spin's (+-33% at 95%). */
double pg_rspeed_spin_error(double se);

/* When @s was not applied: correct every function by @shift (log) known within standard
 * error @se (pg_rspeed_spin_error() of the spins', or 0 and of PG_RSPEED_UNKNOWN). After
 * pg_rspeed_finish(). */
void pg_rspeed_fallback(struct pg_rspeed *s, double shift, double se);

/* Does @s correct the functions (applied, or a fallback)? */
bool pg_rspeed_corrects(const struct pg_rspeed *s);

/* The standard error (log) of the correction of a function whose beta pg_rspeed_of() gave:
 * 0 when applied (the null widens those, diff/rnull.h), beta * fb_se with a fallback. */
double pg_rspeed_se(const struct pg_rspeed *s, double beta);

/*
 * One reference function (@id, not UINT32_MAX, above the ids of those added before): its logs
 * of the base and new runs with their repetitions' tags (unique within a run, as pg_sample's
 * are), and its time a repetition (ns). 0, -EINVAL (an id out of order, a tag twice) or
 * -ENOMEM.
 */
int pg_rspeed_add(struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		  size_t nb, const double *ln, const uint32_t *tn, size_t nn, double time_ns);

/* Room for @nrefs references of @nvalues logs in all (both runs): a caller that knows
 * allocates once (optional). 0 or -ENOMEM. */
int pg_rspeed_reserve(struct pg_rspeed *s, size_t nrefs, size_t nvalues);

/* The shifts, the references that changed by themselves, and whether it applies. 0 or a
 * negative errno. */
int pg_rspeed_finish(struct pg_rspeed *s, double alpha, double min_effect,
		     struct pg_stats_ws *ws);

/*
 * What to take off the new run's logs of function @id (a reference's own values left out of
 * every median; any other id: none): beta * c, c the references' weighted median shift, beta
 * the least-squares slope through 0 of the function's distances from its run's mean log
 * (lb/tb/nb, ln/tn/nn as pg_rspeed_add() takes them) on the repetitions' speeds, both runs
 * together, kept within [0, @share] (@share where the speeds do not vary). *@beta gets it.
 * 0 when not applied. A kept reference's slope was learnt by pg_rspeed_finish() from the logs
 * it was added with (the same: compare.c gathers them alike), and its logs here are unused.
 */
double pg_rspeed_of(const struct pg_rspeed *s, uint32_t id, const double *lb, const uint32_t *tb,
		    size_t nb, const double *ln, const uint32_t *tn, size_t nn, double share,
		    double *beta);

void pg_rspeed_release(struct pg_rspeed *s);

#endif
