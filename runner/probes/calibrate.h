/* SPDX-License-Identifier: MIT */
/*
 * runner/probes/calibrate.h - measuring what a traced call costs, per kind of probe site.
 *
 * perfgate carries its own calibration targets: functions doing ~2 us of work whose first
 * instruction is a 5-byte nop, `push %rbp` (emulated) and `xor` (single-stepped), each in a
 * probed copy and an identical unprobed copy. The recorder attaches the probed copies to the
 * same BPF program and maps as the benchmark's functions, and a forked perfgate runs them in
 * alternating rounds of unprobed and probed calls, each followed by ~1 us of other work:
 *   call cost (in + out) = median over rounds of (time of N probed calls - time of N
 *                          unprobed calls) / N
 *   in  = median measured duration of a probed call - median duration of an unprobed call
 *   out = call cost - in
 *   spread = 95% interval of that median, from the rounds' median absolute deviation
 * (struct pg_calib in core/run.h says what in and out mean). The work matters: after a
 * probe, the code that follows runs slower for a while (what the kernel's entry and exit
 * disturbed), and that is part of what a traced call costs.
 *
 * calibrate.c holds the targets and the arithmetic (no BPF: unit-tested); calibrate_bpf.c
 * the driver the recorder calls once the probes are attached (runner/session/recorder.h, step 2):
 *
 *	pg_calib_report(pg_calib_run(&probes, run, ncpu, &run->calib), &run->calib, quiet);
 *	...			// --budget's pilot, which may attach the probes again
 *	pg_calib_compensate_hists(&probes, run);
 *	...			// the first repetition
 *	pg_calib_warn_overhead(run, rep);
 *
 * Ownership: the driver borrows the probes and fills caller-owned struct pg_calib; the
 * targets it finds are its own and released before it returns.
 */
#ifndef PG_CALIBRATE_H
#define PG_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../core/run.h"

struct pg_probes;

#define PG_CALIB_NTARGETS 3	/* nop5, emulated, sstep */

struct pg_calib_targets {
	char *path;			/* perfgate's own executable */
	uint64_t offset[PG_CALIB_NTARGETS];	/* probe file offsets of the probed copies */
	enum pg_site site[PG_CALIB_NTARGETS];
};

/* Find the probed copies in perfgate's own executable. 0 or -errno (logged at debug level). */
int pg_calib_find(struct pg_calib_targets *t);
void pg_calib_targets_release(struct pg_calib_targets *t);

/* Loop timings measured by the child, per target. */
struct pg_calib_loops {
	double cost_ns[PG_CALIB_NTARGETS];	/* probed - unprobed, per call */
	double body_ns[PG_CALIB_NTARGETS];	/* median duration of an unprobed call */
	double spread_ns[PG_CALIB_NTARGETS];	/* of cost_ns over the rounds (core/calib.h) */
};

/*
 * The uncertainty of @med, the median of the per-round estimates @d[0..n) (n <=
 * PG_CALIB_ROUNDS), >= 0: the half-width of its 95% normal interval, 1.96 x its standard error
 * sqrt(pi / 2) x sigma / sqrt(n), with sigma 1.4826 x the rounds' median absolute deviation
 * from @med (core/calib.h).
 */
double pg_calib_round_spread(const double *d, size_t n, double med);

/*
 * Fork the calibration child. It waits until a byte arrives on *go_fd (close without writing
 * to cancel), runs the loops, writes a struct pg_calib_loops to *result_fd and exits.
 * Returns its pid, or -errno.
 */
pid_t pg_calib_spawn(int *go_fd, int *result_fd);

/*
 * Combine the loop timings with the median measured duration of each probed target
 * (@median_ns, from the BPF histogram) and the mean run time of the BPF programs per call of
 * it (@bpf_ns, pg_fstat.probe_ns / calls) into @c. Sites without a target of their own
 * (PG_SITE_UNKNOWN) get the single-step figures, the dearest.
 */
void pg_calib_compute(const struct pg_calib_targets *t, const struct pg_calib_loops *loops,
		      const double median_ns[PG_CALIB_NTARGETS],
		      const double bpf_ns[PG_CALIB_NTARGETS], struct pg_calib *c);

/*
 * Can @c (from pg_calib_compute()) be right? On every kind of site a probe costs something
 * inside a call's window (in > 0: at least the way into the kernel and back), and outside it
 * at least the BPF run time perfgate timed there (out >= measured). A calibration that breaks
 * either was disturbed by the machine, its alternating rounds no longer alike: 13 in 550
 * recordings on the project VMs (2026-11-21), with in = 0 or out below measured.
 * On nop5 and emulated sites out is also at most PG_CALIB_MAX_OUT_RATIO x measured: in
 * undisturbed calibrations it was 2.3-4x (p10 and p90 of ~150 recordings, 2026-11-23), while
 * with other perfgate instances attaching and detaching probes on the same machine about half
 * of them came out at 12-44x (out ~7.8 us instead of ~1.2 us), a cost the benchmark's probes
 * did not pay: such a calibration took a clang -O2 parent of ten traced callees to 0.
 */
#define PG_CALIB_MAX_OUT_RATIO 6.0
/*
 * Single-stepped sites pay the step outside BPF: out was 3-4x measured in most undisturbed
 * calibrations (p10 and p25), but 30-220x in a third of them on the busy machine.
 */
#define PG_CALIB_MAX_OUT_RATIO_SSTEP 20.0

/*
 * How far @c's out exceeds those bounds: the largest out / (bound x measured) over the kinds
 * of sites, at most 1 when within them (0 without measured probe times). Of several disturbed
 * calibrations, the one with the least excess is the least wrong.
 */
double pg_calib_excess(const struct pg_calib *c);

bool pg_calib_plausible(const struct pg_calib *c);

/* ---- The driver (calibrate_bpf.c) ---- */

/*
 * Measure what a traced call costs on each kind of probe site into @out, with the BPF program
 * and maps of @p, already attached to @run's functions: the targets are attached beside them
 * and take function ids run->nfuncs + k (pg_probe_cookie()). A disturbed calibration is
 * measured again (up to 3 times), the last one standing, with a warning. On failure @out is
 * zeroed (uncompensated) and -errno returned.
 */
int pg_calib_run(struct pg_probes *p, const struct pg_run *run, int ncpu, struct pg_calib *out);

/* Say what pg_calib_run() returned (@err) and measured (@c): a warning, or one info line. */
void pg_calib_report(int err, const struct pg_calib *c, bool quiet);

/*
 * From here on the BPF programs put compensated durations into the histograms (hist_dur() in
 * bpf/perfgate.bpf.c), with the formula of pg_fstat_comp_total() for each call, except its
 * scale (pg_calib_scale()): percentiles for callers too. The calibration itself ran with raw
 * histograms. Sets run->hist_compensated; nothing when run->calib is not valid and measured.
 */
void pg_calib_compensate_hists(struct pg_probes *p, struct pg_run *run);

/*
 * After the first repetition @rep: when the probes' estimated cost (calls x calibrated cost per
 * site) is more than the benchmark's own time, tracing more than doubles the run. Say so and
 * name the functions that cost most.
 */
void pg_calib_warn_overhead(const struct pg_run *run, const struct pg_rep *rep);

#endif
