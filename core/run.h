/* SPDX-License-Identifier: MIT */
/*
 * core/run.h - the data model of one recorded run (what a run file holds).
 *
 * A run is N repetitions of one command. Each repetition is one fresh process tree; for every
 * traced function that was called in it, a repetition holds one struct pg_fstat with exact call
 * counts, total/self time and a latency histogram. The repetition, not the call, is the unit of
 * replication for statistics.
 *
 * Ownership: a struct pg_run owns every string and array reachable from it. pg_run_release()
 * frees all of it and leaves an empty run; pg_run_free() also frees the struct itself (for runs
 * from pg_run_new()). Strings that are optional may be NULL.
 *
 * Invariants (checked by pg_run_validate(), relied on by diff/ and reporters/):
 *  - funcs[i].id == i; (binary, name) pairs are unique.
 *  - reps[r].stats is sorted by strictly increasing func id, each < nfuncs, each with calls > 0.
 *  - min_ns <= max_ns; self_ns <= total_ns; the histogram's total equals calls;
 *    kids[k] <= desc[k]; kids_probe_ns <= desc_probe_ns, which is 0 without descendants.
 *  - hist_compensated only with a valid, measured calibration.
 *  - reps[r].stacks is sorted by folded, unique, each count >= 1, each folded a valid stack
 *    (pg_folded_valid()); their counts add up to at most samples - samples_lost;
 *    samples_lost <= samples; sources are sorted by frame and unique.
 */
#ifndef PG_RUN_H
#define PG_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* Kind of instruction at the probe address: it decides what one probe hit costs. */
enum pg_site {
	PG_SITE_UNKNOWN = 0,
	PG_SITE_NOP5,		/* 5-byte nop: the kernel optimizes the probe (~0.3 us) */
	PG_SITE_EMULATED,	/* push %rbp, 1-byte nops, ...: emulated (~0.5 us) */
	PG_SITE_SSTEP,		/* anything else: single-stepped (~22 us) */
	PG_SITE_COUNT
};

const char *pg_site_name(enum pg_site site);		/* "nop5", "emulated", "sstep", "unknown" */
int pg_site_parse(const char *s, enum pg_site *out);	/* 0 or -EINVAL */

struct pg_func {
	uint32_t id;		/* index in pg_run.funcs */
	char *name;		/* symbol name as in the ELF file (mangled for C++) */
	char *display;		/* demangled name, or a copy of name for C symbols */
	char *binary;		/* absolute path of the ELF file the probe is in */
	uint64_t addr;		/* symbol value (st_value) */
	uint64_t offset;	/* file offset of the probe */
	enum pg_site site;	/* kind of instruction probed */
	bool endbr;		/* the probe was placed after a leading endbr64 */
	char *src_file;		/* source file of the function's declaration (DWARF), or NULL */
	uint32_t src_line;	/* its line, or 0 when unknown */
};

struct pg_fstat {
	uint32_t func;		/* pg_func.id */
	uint64_t calls;		/* completed calls (entry and return both seen) */
	uint64_t total_ns;	/* sum of inclusive durations */
	uint64_t self_ns;	/* sum of durations minus time in traced children */
	uint64_t min_ns;	/* shortest inclusive duration */
	uint64_t max_ns;	/* longest inclusive duration */
	struct pg_hist hist;	/* inclusive durations */
	/* traced calls inside these calls, by enum pg_site, for overhead compensation */
	uint64_t desc[PG_SITE_COUNT];	/* at any depth */
	uint64_t kids[PG_SITE_COUNT];	/* direct children */
	/*
	 * The BPF programs' own run time, timed at every call (struct pg_calib says which part of
	 * a probe's cost that is): of these calls' own probes, of the traced calls inside them at
	 * any depth, and of those made directly. kids_probe_ns <= desc_probe_ns; all 0 in run
	 * files from before perfgate timed its probes (pg_calib.measured is false there).
	 */
	uint64_t probe_ns;
	uint64_t desc_probe_ns;
	uint64_t kids_probe_ns;
};

/* One sampled call stack: frames root first, ';'-separated ("main;parse;lex"), see
 * docs/sampling.md; count = samples with exactly this stack. */
struct pg_stack {
	char *folded;
	uint64_t count;		/* >= 1 */
};

/* Where a sampled frame's function is declared (for flame graph tooltips). */
struct pg_source {
	char *frame;		/* the frame name as in folded stacks */
	char *file;
	uint32_t line;		/* 0 if unknown */
};

struct pg_rep {
	uint64_t wall_ns;	/* wall time from exec to the end of the process tree */
	int exit_code;		/* exit status when the root process exited, else -1 */
	int signal;		/* terminating signal of the root process, else 0 */
	size_t nstats;
	struct pg_fstat *stats;	/* sorted by func id */
	/* sampled profile (all 0 / NULL when sampling was off) */
	uint64_t samples;		/* samples taken, including lost ones */
	uint64_t samples_lost;		/* dropped: the ring buffer was full */
	uint64_t samples_truncated;	/* kept, but the stack could not be unwound to its root */
	size_t nstacks;
	struct pg_stack *stacks;	/* sorted by folded (strcmp), unique */
};

struct pg_meta {
	char *perfgate_version;
	size_t argc;
	char **argv;		/* the benchmark command */
	char *start_time;	/* ISO 8601 UTC, "2026-11-21T10:22:22Z" */
	char *host;
	char *kernel;		/* uname -r */
	char *cpu_model;
	char *git_commit;	/* HEAD of the working directory's repository, or NULL */
	char *cwd;
	/* options the run was recorded with */
	uint32_t repetitions;
	size_t nfilters;
	char **filters;		/* -f patterns, as given */
	size_t nexcludes;
	char **excludes;	/* -x patterns, as given */
	uint32_t sample_hz;	/* sampling frequency; 0 = no sampled profile */
	double budget_pct;	/* record --budget (0 < x <= 1000); 0 = none: every selected
				 * function was traced */
	char *functions_of;	/* record --functions-of FILE: the functions are FILE's, and
				 * filters, excludes and budget_pct say how FILE chose them;
				 * NULL = chosen by this recording's own options */
};

/*
 * What one traced call costs, per kind of probe site, measured at record start on the same
 * machine with the same BPF program (runner/calibrate.c). A traced call's own measured
 * duration includes in_ns of probe work (the entry probe after its timestamp, the return probe
 * before its own); out_ns is the rest of the probe work (before the entry timestamp, after the
 * return one), which lands in the caller's time. in_ns + out_ns is the whole cost of the call's
 * two probes.
 *
 * Part of out_ns is the BPF programs' own run time, which they time themselves at every call
 * (pg_fstat.probe_ns and the desc/kids sums): measured_ns is its mean per call during
 * calibration. A probe costs more when its code and data are cold (a caller of long-running
 * callees absorbs several times the calibrated cost per callee); the measured part follows
 * that, call by call, so compensation uses out_ns - measured_ns plus what was measured.
 * measured is false for run files from before that (measured_ns all 0).
 */
struct pg_calib {
	bool valid;
	bool measured;
	double in_ns[PG_SITE_COUNT];
	double out_ns[PG_SITE_COUNT];
	double measured_ns[PG_SITE_COUNT];
};

struct pg_run {
	struct pg_meta meta;
	struct pg_calib calib;		/* valid == false in runs without calibration */
	/*
	 * The latency histograms hold compensated durations: each call's own, less its own
	 * probes' in_ns, each traced descendant's pg_calib_desc_ns() (not scaled: see
	 * pg_calib_scale()) and its descendants' timed probe work, by the calibration of the
	 * recording that call was in, rounded to whole ns, at least 0 (bpf/perfgate.bpf.c).
	 * Requires calib.valid and calib.measured. false: raw durations (run files from before,
	 * runs without calibration).
	 */
	bool hist_compensated;
	size_t nfuncs;
	struct pg_func *funcs;
	size_t nreps;
	struct pg_rep *reps;
	size_t nsources;
	struct pg_source *sources;	/* sorted by frame (strcmp), unique; may be empty */
};

void pg_run_init(struct pg_run *run);
void pg_run_release(struct pg_run *run);
struct pg_run *pg_run_new(void);	/* zeroed, or NULL */
void pg_run_free(struct pg_run *run);	/* release + free; NULL is fine */

/* Append a function; copies the strings; sets and returns its id through @id. 0 or -errno. */
int pg_run_add_func(struct pg_run *run, const char *binary, const char *name,
		    const char *display, uint64_t addr, uint64_t offset, enum pg_site site,
		    bool endbr, uint32_t *id);
/* Set @f's source position (copies @file; NULL or line 0: unknown). 0 or -ENOMEM. */
int pg_func_set_src(struct pg_func *f, const char *file, uint32_t line);
/*
 * Keep only the functions with keep[id] set, renumbering ids in order. Only for a run with no
 * repetitions yet (-EINVAL otherwise). 0 or -EINVAL.
 */
int pg_run_retain_funcs(struct pg_run *run, const bool *keep);
/* Free a repetition's contents (for one that is not in a run); leaves it empty. */
void pg_rep_release(struct pg_rep *rep);
/* Append an empty repetition and return it (owned by run; valid until the next add), or NULL. */
struct pg_rep *pg_run_add_rep(struct pg_run *run);
/* Append a stat to @rep (func ids in increasing order); returns it (valid until the next
 * add) or NULL. */
struct pg_fstat *pg_rep_add_stat(struct pg_rep *rep, uint32_t func);
/* The stat of @func in @rep, or NULL if it was not called there (binary search). */
const struct pg_fstat *pg_rep_find(const struct pg_rep *rep, uint32_t func);
/* Look up a function by binary path and symbol name; NULL if absent. */
const struct pg_func *pg_run_find_func(const struct pg_run *run, const char *binary,
				       const char *name);

/*
 * Check the invariants above. Returns 0, or -EINVAL with a one-line reason (static or written
 * into @why, of @whylen bytes) for the caller to report.
 */
int pg_run_validate(const struct pg_run *run, char *why, size_t whylen);

/*
 * Probes cost more when the machine is slower or their code and data are cold, and on nop5
 * sites the part of that cost perfgate cannot time (the syscall into the kernel and back, the
 * caches user code finds cold afterwards) grows with the part it times (the BPF programs' run
 * time): over 580 processes on the project machines, the untimed cost a parent's nop5 children
 * needed followed their BPF run time with a slope of 0.78 in log-log (docs/measurement.md).
 * pg_calib_scale() is the factor by which a group of traced calls (@n[k] of each site kind)
 * took longer in BPF than calibration says: @probe_ns, their probes' BPF run time, against
 * sum_k n[k] * measured_ns(k), within [1 / PG_CALIB_SCALE_MAX, PG_CALIB_SCALE_MAX]; 1 without
 * measured probe times, or when that sum is 0. It is measured on calls of every site kind
 * (their BPF programs are the same) and applied to those of pg_calib_scaled_site() only.
 *
 * @probe_ns is taken as timed: a stall that hits the BPF part of the probes predicts, on
 * average, stalls in their untimed part in proportion (capping each call's probe time at 4x
 * left parents' means 10% high on nop5 sites). Only sums are scaled, not the histograms
 * (docs/measurement.md): tried call by call, with each call's probe time capped, it needed
 * another run format and did not help consistently (a parent's p50 came closer on a
 * frame-pointer build and further on a nop5 build), and single-stepped callees, then scaled
 * too, pushed calls of a ~20 us caller to 0.
 */
#define PG_CALIB_SCALE_MAX 4
double pg_calib_scale(const struct pg_calib *c, const uint64_t n[PG_SITE_COUNT],
		      uint64_t probe_ns);
/*
 * Is the calibrated cost of a probe at a site of kind @k scaled? nop5 sites only, entered by a
 * syscall whose paths slow down with the BPF programs. Not sites entered by a trap: there the
 * trap's cost, which did not follow, dominates. On emulated sites, at a given BPF run time
 * against calibration, the untimed cost needed by a parent's children was 5% below the
 * calibrated one (the fit's intercept, 580 processes), and their probes ran 6% longer in BPF
 * than at calibration (median): scaled, a parent of ten came out 6.3% low (median), unscaled
 * 1.1%; a leaf's own in, scaled, -1.8% against +0.8%. Single-stepped: what a traced child
 * needed was 0.83 times its scaled cost (median over 30 processes), and scaling made a parent
 * of ten such children worse (-117% against -76%).
 */
bool pg_calib_scaled_site(enum pg_site k);
/*
 * Overhead-compensated sums of @s (a stat of function @f in a run with calibration @c), in ns:
 *   total: total_ns - calls * in(f) - sum over sites k of desc[k] * (in(k) + out(k))
 *   self:  self_ns  - calls * in(f) - sum over sites k of kids[k] * out(k)
 * clamped at 0. When c->measured, each out(k) is split into the part the BPF programs timed
 * (subtracted as measured: desc_probe_ns, kids_probe_ns) and the rest (out(k) -
 * measured_ns(k), at least 0, calibrated), and the calibrated parts of the descendants' (the
 * children's) cost at sites pg_calib_scaled_site() are multiplied by pg_calib_scale() of the
 * descendants (the children), s(k) = that scale for those sites and 1 for the others:
 *   total: total_ns - own_in - desc_probe_ns - sum_k s(k) * desc[k] * (in(k) + rest(k))
 *   self:  self_ns - own_in - kids_probe_ns - sum_k s(k) * kids[k] * rest(k)
 * where own_in = pg_fstat_own_in(). Without a valid calibration they return the raw sums.
 */
double pg_fstat_comp_total(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s);
double pg_fstat_comp_self(const struct pg_calib *c, const struct pg_func *f,
			  const struct pg_fstat *s);
/*
 * The in part of @s's own probes, what each call's own window holds of them: calls * in(f),
 * times pg_calib_scale() of the function's own calls (@s->probe_ns against calls *
 * measured_ns(f)) when f's site is pg_calib_scaled_site(). Own probes run colder than at
 * calibration (a nop5 20 us leaf's took 1.5x the BPF time, median): scaled, such leaves came
 * out +1.0% (median over 580 processes) instead of +2.9%. Not on trap sites: a single-stepped
 * 20 us leaf lost 30%, an emulated one went from +0.8% to -1.8%. 0 without a valid calibration.
 */
double pg_fstat_own_in(const struct pg_calib *c, const struct pg_func *f,
		       const struct pg_fstat *s);
/*
 * What compensation subtracts for one traced call of site @k inside a caller, besides the BPF
 * run time its probes timed themselves (when c->measured), before pg_calib_scale(): in(k) +
 * out(k) - measured(k), at least in(k); in(k) + out(k) without measured probe times.
 */
double pg_calib_desc_ns(const struct pg_calib *c, int k);
/* The estimated cost of the probes of @s's own calls: calls * (in(f) + out(f)), with the
 * measured part as measured when c->measured; 0 without a valid calibration. */
double pg_fstat_probe_cost(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s);

/* Is @s a valid folded stack: frames separated by ';', none empty (so no leading, trailing or
 * double ';'), no control characters (tab, LF, CR, ...). */
bool pg_folded_valid(const char *s);

/* The last path component of @path (a pointer into it). */
const char *pg_basename(const char *path);
/*
 * Functions of different runs are the same function when their keys are equal: the base name
 * of the binary and the symbol name (compare, merge and record --functions-of match so).
 * pg_func_key_cmp() orders by that key, strcmp-style; pg_run_ids_by_key() returns @run's
 * function ids in that order (malloc'd, the caller frees it; NULL on -ENOMEM).
 */
int pg_func_key_cmp(const struct pg_func *a, const struct pg_func *b);
uint32_t *pg_run_ids_by_key(const struct pg_run *run);

#endif
