/* SPDX-License-Identifier: MIT */
/*
 * diff/hspeed.h - the machine's speed in each stored session and in the new one, for perfgate
 * history check, and each function's session medians corrected for it. Pure computation: no
 * I/O, no logging. docs/history.md ("The machine's speed") has the measurements behind it.
 *
 * Why: sessions recorded minutes or days apart run at the machine's speed of their moment (a
 * neighbour's load, a clock that moves), and every on-CPU function of a session moves with
 * it. That drift is most of the spread between a function's session medians on a shared
 * machine, and it widens history check's interval past what a real change of 8% can clear.
 *
 * What: a reference function is one history check can judge (PG_HCHECK_MIN_SESSIONS baseline
 * sessions or more, a time left after the compensation for probe overhead in each and in the
 * new session). Its deviation in session s is r[s] = log(median[s]) - m, m the mean of the
 * logs of its baseline sessions (the new session too, against the same m). The machine's
 * speed in session s for function g is c[s], the weighted median of the references' r[s]
 * without g's own (leave one out, as diff/speed.h), each weighted by the square root of its
 * time a repetition; at least PG_SPEED_MIN_REFS references other than g must have a value in
 * each of g's sessions. g follows it by beta, the least-squares slope of its own deviations on
 * c over its baseline sessions (with an intercept), kept within [0, 1]; its sessions' and the
 * new session's logs are corrected by - beta * c[s]. The prediction interval then has one
 * degree of freedom less (beta was fitted), k - 2, and beta's own error widens it by
 * lever = (c_new - mean c)^2 / sum (c - mean c)^2 (the regression's prediction variance).
 *
 * The references are always on-CPU times: self time holds the waits for a CPU, which
 * a loaded machine deals out to one function at a time, not to all of them alike. The
 * functions judged may be self times (@f, each with its on-CPU series in @refs as its speed
 * member): each is corrected by its own beta on the speed without its own on-CPU time, so a
 * function that mostly waits (blocked, or for a CPU) follows the speed little, beta near 0,
 * and one that computes follows it as its on-CPU time does.
 *
 * When it is not applied: fewer than PG_HSPEED_MIN_REFS references, or fewer than
 * PG_HCHECK_MIN_SESSIONS sessions with enough of them. Otherwise it is applied however far the
 * new session's speed (the weighted median of all references' r, against the baseline
 * sessions' ones; its shift and prediction-interval p are reported) moved: a build slower
 * everywhere and a machine slower in the new session look alike to the functions, and the
 * program's CPU time, judged as measured beside them (hcheck.h), is what tells of the first.
 */
#ifndef PG_HSPEED_H
#define PG_HSPEED_H

#include <stdbool.h>
#include <stddef.h>

#include "hcheck.h"
#include "speed.h"

/* references needed: a function's speed is the median of at least PG_SPEED_MIN_REFS others */
#define PG_HSPEED_MIN_REFS (PG_SPEED_MIN_REFS + 1)

/* what the correction found, for the result (struct pg_comparison's speed_* members) */
struct pg_hspeed {
	size_t nrefs;		/* reference functions */
	bool applied;		/* the functions were corrected */
	double shift;		/* the new session's speed against the baseline's, relative */
	double p;		/* its prediction-interval p (NAN: not tested), reported only */
	double spread;		/* the baseline sessions' median |speed - their mean|, relative */
	/* per function of the input: beta (0: not corrected), the correction of its logs in
	 * each baseline session (nsessions of it, as its sessions) and in the new session */
	double *beta;
	double **corr;
	double *corr_new;
	/* (c_new - mean c)^2 / sum (c - mean c)^2: what beta's error adds to the prediction's
	 * variance, in units of the residual variance */
	double *lever;
};

/*
 * The machine's speed from the references @refs[0..nrefs) and the correction of @f[0..n)
 * (their sessions' at[] index sessions 0..@nsessions - 1; the new session is @nsessions) into
 * @s. A reference without at[] is none; a function without
 * at[] or without a speed member (its own series in @refs, @f itself when @refs is @f) is
 * not corrected. 0 or -ENOMEM; pg_hspeed_release() frees @s.
 */
int pg_hspeed_estimate(const struct pg_hfunc *refs, size_t nrefs, const struct pg_hfunc *f,
		       size_t n, size_t nsessions, size_t min_reps, struct pg_hspeed *s);
void pg_hspeed_release(struct pg_hspeed *s, size_t n);

#endif
