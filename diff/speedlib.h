/* SPDX-License-Identifier: MIT */
/*
 * diff/speedlib.h - what the three corrections for the machine's speed share: a reference
 * function's weight, the weighted median with one value left out, and the clamp of a
 * function's slope on the speed. Pure computation: no I/O, no logging.
 *
 * The three estimate the speed from different data, on purpose (docs/statistics.md):
 *  - diff/speed.h, the pairs of one perfgate ab session: the speed of each pair, from the
 *    references' differences (new - base) in that pair;
 *  - diff/rspeed.h, two recordings compared unpaired: one shift between the runs, from the
 *    references' Hodges-Lehmann shifts, and each repetition's speed, to learn the slope;
 *  - diff/hspeed.h, stored sessions and a new one (history check): the speed of each session,
 *    from the references' deviations from their mean session.
 * Each is the weighted median of the references' values (per pair, per run, per session),
 * each reference weighted by pg_speed_weight(), a function's speed without its own value when
 * it is a reference (leave one out), and the part of it the function follows is a slope kept
 * within [0, share] by pg_speed_beta().
 *
 * The weighted median, one rule for all three: the values sorted, the median is the first
 * value at which the running sum of the weights reaches half their total; when it reaches
 * half exactly, the mean of that value and the next. Equal weights give the plain median
 * (the mean of the middle two of an even count), and the median of the values negated is the
 * median negated: swapping an A/A comparison's sides flips every value, and flips the median
 * with them, where the first value past half (a lower median) would not. "Exactly" is within
 * PG_WMED_TIE_REL of the total weight: a running sum with one weight taken out is rounded
 * otherwise than the same sum added up without it. Equal values are ordered by their owner,
 * so the result never depends on the order the values came in (nor does it depend on the
 * order of equal values at all: they are one value).
 *
 * Life cycle: fill an array of struct pg_wmed_item (value, weight, group, owner), sort it
 * with pg_wmed_sort() (which sets the running weights), then ask pg_wmed() of each group as
 * often as needed, with the position of the value to leave out (pg_wmed_find() finds a
 * group, pg_wmed_pos() an owner's value in it). The items are the caller's.
 *
 *	pg_wmed_sort(it, n);
 *	lo = pg_wmed_find(it, n, pair, &end);
 *	c = pg_wmed(it + lo, end - lo, pg_wmed_pos(it + lo, end - lo, id));
 */
#ifndef PG_SPEEDLIB_H
#define PG_SPEEDLIB_H

#include <stddef.h>
#include <stdint.h>

/* A running weight within this much of the total (relative) from half is half exactly */
#define PG_WMED_TIE_REL 1e-12

/* The weight of a reference function whose time a repetition is @time_ns: its square root
 * (1 ns at least). The many small functions of a real program (a file opened once: system
 * calls and cache misses, which follow the machine loosely) do not outvote the few that hold
 * its CPU time, and the square root keeps one dominant function from deciding alone. */
double pg_speed_weight(double time_ns);

/*
 * How much of the machine's speed a function follows: the least-squares slope @sxy / @sxx of
 * its values on the speeds, kept within [0, @share] (@share: its time not blocked over its
 * time, or 1); @flat when the speeds do not vary (@sxx not above 0).
 */
double pg_speed_beta(double sxy, double sxx, double share, double flat);

struct pg_wmed_item {
	double v;		/* the value */
	double w;		/* its weight, > 0 */
	double cum;		/* the weights of its group's values up to it, itself included
				 * (set by pg_wmed_sort()) */
	uint32_t group;		/* the median it is part of (a pair, a run, a session) */
	uint32_t owner;		/* the reference it belongs to: what is left out, and the order
				 * of equal values */
};

/* Sort @it[0..n) by group, value, then owner, and set each one's running weight in its group. */
void pg_wmed_sort(struct pg_wmed_item *it, size_t n);

/* The first item of @group in @it[0..n) (sorted), *@end the one after its last (both n when
 * there is none). O(log n). */
size_t pg_wmed_find(const struct pg_wmed_item *it, size_t n, uint32_t group, size_t *end);

/* The position in one group's items @g[0..n) of @owner's value (the last, should it have
 * several), or n. O(n). */
size_t pg_wmed_pos(const struct pg_wmed_item *g, size_t n, uint32_t owner);

/*
 * The weighted median (the rule above) of one group's items @g[0..n) without the one at
 * position @skip (n or more: none left out). NAN when no value is left. O(log n).
 */
double pg_wmed(const struct pg_wmed_item *g, size_t n, size_t skip);

#endif
