/* SPDX-License-Identifier: MIT */
/*
 * diff/calibunc.h - the compensation's uncertainty in the intervals of traced functions. Pure
 * computation: no I/O, no logging. docs/statistics.md, "The calibration's uncertainty".
 *
 * Why: compensation subtracts a calibrated probe cost per traced call (core/calib.h). The
 * calibration is known to +-spread(k) per call of site kind k, and between two recordings the
 * cost itself moves (two calibrations of one kind differed by up to 46%). The rank tests see
 * none of it: a function whose time is mostly single-stepped probes read +90.6% [+54.8%,
 * +113.7%] for a true +40%, narrow and wrong.
 *
 * What: a side's compensated time T' = T + sum_k x(k) sub(k), T its true time, sub(k) what
 * compensation took out of it as the calibrated cost of sites of kind k (pg_sample.sub: its
 * own calls' in, its callees' part; not the probe time measured at every call), x(k) the
 * relative error of that cost. With a(s) = sum_k x(k) sub(k) / T'(s) (sub summed over the
 * side's repetitions, T' its calls times the median of its values: the time the estimate
 * stands for, not the sum, which slow repetitions move alike on both sides), the true log
 * change is the measured one plus
 *	g = log(1 - a(new)) - log(1 - a(base)),
 * and the interval's ends move by g's least and greatest values over the box of errors, each
 * |x(k)| at most 1 (a probe costs at least nothing, and a spread beyond its whole cost is a
 * disturbed calibration's, not the cost's):
 *  - two recordings, each compensated with the joint calibration (the mean of both,
 *    diff/repvalues.h): a side's |x(k)| is within its own spread plus half the calibrations'
 *    disagreement, |cost(base, k) - cost(new, k)| / 2, over the joint cost(k), independently
 *    of the other side's;
 *  - one calibration shared by both sides (perfgate ab writes its own into both files; two
 *    files with identical calibrations are taken as such): one x(k) within +-spread(k) /
 *    cost(k) on both sides. It cancels but for the change of sub(k) / T' between the sides
 *    (changed call counts, or a changed time under the same probes).
 * The spread is the calibration's own: 7 rounds within 0.2 s. At sites entered by a trap
 * (emulated, single-stepped: not scaled by the BPF run time, core/calib.h) the cost moves with
 * the machine's speed, and a calibration made in a slow or fast stretch is off for the whole
 * session by more than its spread says: |x(k)| is at least PG_CALIBUNC_TRAP_DRIFT there.
 * At those sites the samples bound x(k) from above: a call's window holds its own probes' in, so
 * in(k) (1 + x(k)) is at most the shortest call of a function at a site of kind k
 * (pg_sample.shortest); both sides' calls bound the one cost of a shared calibration. A cap
 * below the box's lower end (a calibration longer than the calls it compensates) moves that
 * end down to it.
 * g is a logarithm of a ratio of affine functions of x, quasi-linear: its extremes over the box
 * are at its corners. The widening adds to the interval's ends (a bias, not a random error:
 * not combined in quadrature), never moving an end inwards, and a side whose error could
 * reach its whole compensated time leaves that end unbounded; so do both ends when a
 * repetition's compensated value came out at the floor (pg_sample.floored: compensation took
 * all of its time, and its value is no longer affine in x, nor its rank tests' interval
 * anything but the floor's). A spread the file does not record (older perfgate) counts as 0,
 * and the comparison says so.
 *
 *	struct pg_calibunc u;
 *
 *	pg_calibunc_init(&u, &base->calib, &new->calib, joint.valid);
 *	if (pg_calibunc_unknown(&u))
 *		warn("%s", pg_calibunc_unknown(&u));
 *	... for each tested exact function, its samples sb, sn gathered with the joint calibration:
 *	pg_calibunc_widen(f, &u, &sb, &sn);
 *
 * A struct pg_calibunc is a plain value, no life cycle; it keeps no pointer into the runs.
 */
#ifndef PG_DIFF_CALIBUNC_H
#define PG_DIFF_CALIBUNC_H

#include <stdbool.h>

#include "../core/calib.h"
#include "../core/comparison.h"
#include "repvalues.h"

/*
 * A tested function whose measured time is more than this share probe cost (f->probe_share)
 * and whose interval the calibration widened says so in its reason ("mostly probe cost:
 * +-x% from the calibration"): its verdict rests on the calibration more than on its code.
 */
#define PG_CALIBUNC_SHARE 0.5

/*
 * The least bound of the relative error of the calibrated cost at a site entered by a trap
 * (kinds not pg_calib_scaled_site()), whatever the calibration's spread: its 7 rounds take
 * 0.2 s, and the machine's speed swings by up to 2x for a few ms to seconds. in(sstep) of 57
 * perfgate ab sessions on one 2-CPU VM (2026-11-29): 8.9-9.4 us in 52, 10.5-12.8 us in the
 * others (+16% to +44%) with spreads of 0.1-0.4 us; calibrations of two recordings differed
 * by up to 46%.
 */
#define PG_CALIBUNC_TRAP_DRIFT 0.5

struct pg_calibunc {
	bool on;		/* compensated: the intervals carry the calibration's uncertainty */
	bool shared;		/* one calibration on both sides */
	bool unknown[2];	/* base's, new's spread not recorded (counted as 0) */
	double u[2][PG_SITE_COUNT];	/* bound of |x(k)|, relative, at most 1: base, new */
	double in[PG_SITE_COUNT];	/* the joint calibration's in(k), ns: the cap's */
};

/*
 * @u for a comparison of runs calibrated @base and @new, compensated with their joint
 * calibration when @compensated (else nothing is widened).
 */
void pg_calibunc_init(struct pg_calibunc *u, const struct pg_calib *base,
		      const struct pg_calib *new, bool compensated);

/* A warning's text when a side's spread is unknown and intervals carry less than they should;
 * NULL otherwise. Static storage. */
const char *pg_calibunc_unknown(const struct pg_calibunc *u);

/*
 * The bounds of g above (log scale) for the samples @b and @n into *@lo <= 0 <= *@hi; -INFINITY
 * or INFINITY where a side's error could reach its whole compensated time, both when a side
 * has a floored repetition. 0 and 0 when @u is off.
 */
void pg_calibunc_bounds(const struct pg_calibunc *u, const struct pg_sample *b,
			const struct pg_sample *n, double *lo, double *hi);

/*
 * Widen @f's interval (ci_lo, ci_hi, once estimated; tested or not: the interval is shown) by
 * pg_calibunc_bounds() of its samples @b and @n; f->calib_unc gets the larger widening of the
 * two ends as a relative change (0: none, and nothing done without an estimate). The estimate
 * and p stay.
 */
void pg_calibunc_widen(struct pg_fcmp *f, const struct pg_calibunc *u, const struct pg_sample *b,
		       const struct pg_sample *n);

#endif
