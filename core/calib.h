/* SPDX-License-Identifier: MIT */
/*
 * core/calib.h - what a probe costs, by kind of probe site, and taking it out of measured
 * times (overhead compensation). docs/measurement.md says how the model was chosen and what
 * it leaves; this header says what each function computes.
 *
 * A traced call pays for two probes (entry and return). runner/probes/calibrate.c measures, at
 * record start, on the same machine and with the same BPF programs, per kind of site k:
 *  - in(k): the probe work inside the call's own measured window (the entry probe after its
 *    timestamp, the return probe before its own): it inflates the call's own duration;
 *  - out(k): the rest (before the entry timestamp, after the return one): it lands in the
 *    caller's time. in(k) + out(k) is the whole cost of a call's two probes;
 *  - measured(k): the mean run time of the BPF programs per call, a part of out(k) that the
 *    programs also time themselves at every call of the benchmark (pg_fstat.probe_ns and its
 *    desc/kids sums). The rest of out(k), rest(k) = out(k) - measured(k) (at least 0), can
 *    only be calibrated.
 *
 * Each kind also has spread(k), the uncertainty of its calibrated call cost in(k) + out(k), the
 * median of PG_CALIB_ROUNDS per-round estimates: the half-width of the median's 95% interval,
 * 1.96 x its standard error (sqrt(pi / 2) sigma / sqrt(n)), sigma 1.4826 x the rounds' median
 * absolute deviation, in ns per call. On a busy machine a few rounds of the seven come out
 * several times the others (nop5 rounds 5-7 us off a 1.4 us cost, 2026-11-28) while the
 * median stays (the nop5 medians of eight recordings minutes apart: 1.39-1.85 us); the MAD
 * stays too while fewer than half are disturbed, where order statistics ([x(2), x(6)], an
 * 87.5% interval) would take those rounds as the spread.
 * A traced call's compensation is known to +-spread(k) within one recording; between two
 * recordings the cost itself moves as well (diff/calibunc.h takes both into intervals).
 *
 * Invariants (pg_run_validate() checks them in a run): with valid, every in_ns, out_ns and
 * spread_ns is in [0, 1e7) ns. measured is false (measured_ns all 0) in run files from before
 * perfgate timed its probes; compensation then subtracts the whole calibrated out(k).
 * spread_ns is all 0 (pg_calib_spread_known() false: unknown, not exact) in run files from
 * before perfgate recorded it.
 *
 * struct pg_calib is a plain value, owned by its struct pg_run (no life cycle of its own: a
 * zeroed one is "no calibration", valid == false, and every function below then returns the
 * raw sums, or 0 for a cost).
 *
 *	const struct pg_fstat *s = pg_rep_find(&run->reps[r], f->id);
 *	double self = pg_fstat_comp_self(&run->calib, f, s);	// ns, >= 0
 */
#ifndef PG_CALIB_H
#define PG_CALIB_H

#include <stdbool.h>
#include <stdint.h>

/* Kind of instruction at the probe address: it decides what one probe hit costs. */
enum pg_site {
	PG_SITE_UNKNOWN = 0,
	PG_SITE_NOP5,		/* 5-byte nop: the kernel optimizes the probe (~0.3 us) */
	PG_SITE_EMULATED,	/* push %rbp, 1-byte nops, ...: emulated (~0.5 us) */
	PG_SITE_SSTEP,		/* anything else: single-stepped (~22 us) */
	PG_SITE_COUNT
};

/*
 * The reference cost of a traced call (entry and return probes, ns) by site kind: what the
 * calibration read on the machine the test suite was written on (2 vCPU, kernel 6.18, nested
 * VM; ../shared/MEASURED.md). Another machine of the same kind read 1.7x these. Reports quote
 * them beside this machine's calibration, so that a budget that left a function out here can
 * be told from one that would keep it where probes are cheaper; nothing is decided by them.
 */
#define PG_REF_CALL_NS_NOP5 1400.0
#define PG_REF_CALL_NS_EMULATED 1700.0
#define PG_REF_CALL_NS_SSTEP 4500.0
double pg_site_ref_call_ns(enum pg_site site);	/* the above; sstep's for an unknown kind */

const char *pg_site_name(enum pg_site site);		/* "nop5", "emulated", "sstep", "unknown" */
int pg_site_parse(const char *s, enum pg_site *out);	/* 0 or -EINVAL */

/* The calibration of one recording: in(k), out(k), measured(k) above, in ns per call. */
struct pg_calib {
	bool valid;
	bool measured;
	double in_ns[PG_SITE_COUNT];
	double out_ns[PG_SITE_COUNT];
	double measured_ns[PG_SITE_COUNT];
	double spread_ns[PG_SITE_COUNT];	/* spread(k) above; all 0: unknown */
};

/* The repeated rounds of a calibration whose spread spread_ns gives (runner/probes/calibrate.c) */
#define PG_CALIB_ROUNDS 7

/* Does @c record its spread (a valid calibration by a perfgate that measured it)? */
bool pg_calib_spread_known(const struct pg_calib *c);

struct pg_func;
struct pg_fstat;

/*
 * The scale of calibrated probe cost: by how much a group of traced calls (@n[k] of each site
 * kind) took longer in BPF than calibration says, @probe_ns (their probes' BPF run time, as
 * timed) against sum_k n[k] * measured(k), clamped to [1 / PG_CALIB_SCALE_MAX,
 * PG_CALIB_SCALE_MAX]. 1 without a valid, measured calibration or when that sum is 0. It is
 * measured on calls of every site kind and applied to the sites of pg_calib_scaled_site()
 * only, and to sums only, never to the histograms (docs/measurement.md, "Compensation").
 */
#define PG_CALIB_SCALE_MAX 4
double pg_calib_scale(const struct pg_calib *c, const uint64_t n[PG_SITE_COUNT],
		      uint64_t probe_ns);
/* Is the calibrated cost of a probe at a site of kind @k scaled? nop5 sites only, entered by
 * a syscall whose cost follows the BPF run time; trap sites are not. */
bool pg_calib_scaled_site(enum pg_site k);
/*
 * What compensation subtracts for one traced call of site @k inside a caller, besides the BPF
 * run time its probes timed themselves (when c->measured), before pg_calib_scale(): in(k) +
 * rest(k), at least in(k); in(k) + out(k) without measured probe times.
 */
double pg_calib_desc_ns(const struct pg_calib *c, int k);

/*
 * The return trip a tail call (`jmp`) saves, per tail-called traced call of site @k: such a
 * call's return probe and its caller's run in one trip into the kernel, so the caller's window
 * holds neither the way back to user space after the callee's return probe (a part of
 * out(k)) nor the trap of the caller's own return (a part of the caller's in). Both are trips
 * through the uretprobe trampoline, the same at every site kind; what calibration measures
 * closest to one such round trip is in(k) (the way back to user space after the entry probe
 * and the trap of the return probe): in(k), but at most in(emulated) when that is calibrated,
 * since in(sstep) also holds the single step of the probed instruction. Measured: a tail call
 * shortens the caller's window by ~0.9 us, calibrated in(nop5) 0.6-1.0 us
 * (docs/measurement.md).
 */
double pg_calib_trip_ns(const struct pg_calib *c, int k);

/*
 * Overhead-compensated sums of @s (a stat of function @f in a run with calibration @c), in ns,
 * clamped at 0; the raw sums without a valid calibration. With s(k) = pg_calib_scale() of the
 * descendants (total) or the direct children (self) for sites pg_calib_scaled_site(), 1 for
 * the others, and own_in = pg_fstat_own_in():
 *   total: total_ns - own_in - desc_probe_ns
 *          - sum_k s(k) * (desc[k] * (in(k) + rest(k)) - desc_tails[k] * trip(k))
 *   self:  self_ns  - own_in - kids_probe_ns
 *          - sum_k s(k) * (kids[k] * rest(k) - tails[k] * trip(k))
 * Without measured probe times, rest(k) is the whole out(k) and no probe time is subtracted.
 */
double pg_fstat_comp_total(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s);
double pg_fstat_comp_self(const struct pg_calib *c, const struct pg_func *f,
			  const struct pg_fstat *s);
/*
 * The in part of @s's own probes, what each call's own window holds of them: calls * in(f),
 * times pg_calib_scale() of the function's own calls (@s->probe_ns against calls *
 * measured(f)) when f's site is pg_calib_scaled_site(). 0 without a valid calibration.
 */
double pg_fstat_own_in(const struct pg_calib *c, const struct pg_func *f,
		       const struct pg_fstat *s);
/* The estimated cost of the probes of @s's own calls: calls * pg_calib_desc_ns(site of f),
 * plus probe_ns when c->measured; 0 without a valid calibration. */
double pg_fstat_probe_cost(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s);

#endif
