/* SPDX-License-Identifier: MIT */
/*
 * core/comparison.h - the data model of a comparison of two runs: what `perfgate compare`
 * computes (diff/compare.h says how), writes as its JSON result and `perfgate vote` reads back
 * (formats/result.h, docs/compare-format.md).
 *
 * Invariants: a struct pg_comparison owns its function array f[0..n), the strings of every
 * struct pg_fcmp in it and in wall, and its warnings; numbers that were not estimated are NAN
 * (never 0), interval ends may be infinite. Sorted as diff/compare.h says.
 *
 * Life cycle: pg_comparison_init() before first use; pg_comparison_release() frees what it owns
 * and leaves it initialised (it can be filled again). A struct pg_comparison keeps no pointer
 * into the runs it was computed from.
 *
 *	struct pg_comparison c;
 *
 *	pg_comparison_init(&c);
 *	if (!pg_compare(&base, &new, NULL, &c))	// or pg_result_read(path, ...)
 *		printf("%s\n", pg_overall_name(c.overall));
 *	pg_comparison_release(&c);
 *
 * Which runs are of the same benchmark, the one definition that compare, vote and merge apply:
 * pg_meta_same_benchmark().
 */
#ifndef PG_COMPARISON_H
#define PG_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run.h"

enum pg_metric {
	PG_METRIC_SELF = 0,	/* self time per call (default) */
	PG_METRIC_TOTAL,	/* inclusive time per call */
	PG_METRIC_CPU,		/* on-CPU self time per call: self_ns - self_offcpu_ns (only
				 * runs recorded with pg_meta.offcpu) */
};

enum pg_verdict {
	PG_VERDICT_UNCHANGED = 0,
	PG_VERDICT_REGRESSION,
	PG_VERDICT_IMPROVEMENT,
	PG_VERDICT_INCONCLUSIVE,
	PG_VERDICT_ADDED,
	PG_VERDICT_REMOVED,
	/*
	 * significant and beyond min_effect per call, as a regression or an improvement is, but
	 * its change of time per repetition is under opts.min_impact of the repetition's wall
	 * time: reported, never fails (the sign of change says slower or faster)
	 */
	PG_VERDICT_NOTABLE,
};

#define PG_VERDICT_COUNT (PG_VERDICT_NOTABLE + 1)

/*
 * Why a function was not judged (inconclusive), in kinds a report can count; the reason
 * string of the function says it with its numbers.
 */
enum pg_cause {
	PG_CAUSE_NONE = 0,	/* judged (any verdict but inconclusive) */
	PG_CAUSE_REPS,		/* too few repetitions with calls on a side */
	PG_CAUSE_PROBES,	/* mostly probe overhead (PG_MAX_PROBE_SHARE) */
	PG_CAUSE_CALLEE_TIME,	/* too little own time per traced call inside it */
	PG_CAUSE_CALLEES,	/* the runs traced different callees of it */
	PG_CAUSE_ONE_SIDE,	/* traced in one run only, because of how they were recorded */
	PG_CAUSE_WIDE,		/* an interval too wide to rule min_effect in or out */
	PG_CAUSE_NOT_SIG,	/* slower beyond min_effect, but q > alpha */
	PG_CAUSE_NOT_SURELY,	/* significant, but the interval straddles +min_effect */
	PG_CAUSE_DRIFT,		/* the wall time of two recordings apart: the machine's drift
				 * between them cannot be told from a change (diff/program.h) */
};

#define PG_CAUSE_COUNT (PG_CAUSE_DRIFT + 1)

/* What a compared entry's values are of, and where they come from. */
enum pg_origin {
	PG_ORIGIN_EXACT = 0,	/* a traced function: exact per-call times from its probes */
	PG_ORIGIN_SAMPLED,	/* a function of the sampled CPU profile, not traced: its samples'
				 * share of each repetition times the repetition's CPU time */
	PG_ORIGIN_PROGRAM,	/* the whole process tree: its CPU time or wall time a repetition */
};

/*
 * Whether a function's own machine code differs between the two runs' builds: the digests of
 * its instructions (struct pg_func.code, struct pg_code) on both sides, equal or not.
 */
enum pg_code_cmp {
	PG_CODE_UNKNOWN = 0,	/* a side has no digest (older files, an inlined frame...) */
	PG_CODE_SAME,
	PG_CODE_CHANGED,
};

/* PG_CODE_UNKNOWN when either digest is 0, else SAME or CHANGED. */
enum pg_code_cmp pg_code_cmp(uint64_t base, uint64_t new);

/* "same", "changed"; NULL for PG_CODE_UNKNOWN. pg_code_cmp_parse(): 0 or -EINVAL */
const char *pg_code_cmp_name(enum pg_code_cmp c);
int pg_code_cmp_parse(const char *s, enum pg_code_cmp *out);

/* "exact", "sampled", "program"; pg_origin_parse(): 0 or -EINVAL */
const char *pg_origin_name(enum pg_origin s);
int pg_origin_parse(const char *s, enum pg_origin *out);

/* Names (pg_fcmp.name) of the two whole-program entries, binary PG_PROGRAM_BINARY. */
#define PG_PROGRAM_BINARY "[program]"
#define PG_PROGRAM_CPU "cpu-time"
#define PG_PROGRAM_WALL "wall-time"

/*
 * Below this share of the CPU time in the self time of judged functions (exact and sampled),
 * with the whole program's CPU time not judged either, a comparison that found no regression
 * is inconclusive, not a pass (docs/statistics.md, "No pass without evidence").
 */
#define PG_MIN_JUDGED_SHARE 0.5

enum pg_overall {
	PG_OVERALL_PASS = 0,		/* no regression, and the data could decide */
	PG_OVERALL_REGRESSION,		/* at least one function regressed */
	PG_OVERALL_INCONCLUSIVE,	/* no regression found, but the data cannot decide */
};

const char *pg_verdict_name(enum pg_verdict v);	/* "unchanged", "regression", ... */
const char *pg_overall_name(enum pg_overall v);	/* "pass", "regression", "inconclusive" */
const char *pg_metric_name(enum pg_metric m);	/* "self", "total" */
/* "" for PG_CAUSE_NONE, else a key: "repetitions", "probe-share", "callee-time",
 * "callees-differ", "one-side", "wide-interval", "not-significant", "not-surely", "drift" */
const char *pg_cause_name(enum pg_cause c);
/* A few words (at most 45 characters) for people: "too few repetitions with calls", ...;
 * "" for PG_CAUSE_NONE. */
const char *pg_cause_words(enum pg_cause c);

struct pg_compare_opts {
	double alpha;		/* false discovery rate and 1 - confidence level; default 0.05 */
	double min_effect;	/* smallest relative change that counts, 0.05 = 5%; default */
	enum pg_metric metric;	/* default PG_METRIC_SELF */
	uint32_t min_reps;	/* fewer repetitions with calls on a side: inconclusive;
				 * default 5 */
	bool raw;		/* compare raw times, not times compensated for probe overhead */
	double min_impact;	/* smallest change of a function's time per repetition, as a
				 * share of the median repetition's wall time, that fails a build
				 * (or counts as an improvement); 0.001 = 0.1%, default; 0: off */
	/*
	 * Sequential design (perfgate ab --max-reps, docs/statistics.md): this comparison is look
	 * @look (1-based) of at most @looks planned looks at growing data, and tests at the part
	 * of alpha that look may spend. 0 and 0: one look at alpha, as ever.
	 */
	uint32_t look;
	uint32_t looks;
	/* paired: do not correct the per-pair differences for the machine's speed (diff/speed.h) */
	bool no_speed;
	/*
	 * The two runs are of different commands by design (perfgate ab's two builds): no
	 * warning, and --strict does not refuse them (pg_comparison.commands_differ stays false)
	 */
	bool commands_differ_ok;
};

/* docs/statistics.md, "Impact", says why 0.1% */
#define PG_MIN_IMPACT_DEFAULT 0.001
#define PG_COMPARE_OPTS_DEFAULT \
	{ 0.05, 0.05, PG_METRIC_SELF, 5, false, PG_MIN_IMPACT_DEFAULT, 0, 0, false, false }

/*
 * A waker of a function's blocked time (core/woken.h) and that time a repetition on each
 * side, from the off-CPU stacks under it (diff/waker.h). kind 0: none named.
 */
struct pg_waker_move {
	enum pg_woken_kind kind;
	char comm[16];		/* the waker's process name; "" for kernel and interrupt */
	double base_ns, new_ns;
};

struct pg_fcmp {
	enum pg_origin origin;	/* exact (traced), sampled, or the whole program */
	/*
	 * sampled: the samples its values rest on, both runs together (self samples, inclusive
	 * with PG_METRIC_TOTAL); 0 otherwise
	 */
	uint64_t samples;
	char *binary;		/* basename of the ELF file; for a sampled function its object,
				 * "lib (program)" for a shared one, "" when unknown
				 * (diff/sampled.h); PG_PROGRAM_BINARY for the whole program */
	char *name;		/* symbol name; the frame name of a sampled function;
				 * PG_PROGRAM_CPU or PG_PROGRAM_WALL */
	char *display;		/* demangled name (or name) */
	char *scope;		/* what tells functions of one name apart (struct pg_func), or
				 * NULL */
	char *src_file;		/* declaration file (DWARF) of the new run's function, else the
				 * base run's; NULL if unknown */
	uint32_t src_line;	/* its line; 0 if unknown */
	size_t n_base, n_new;	/* repetitions in which the function was called */
	double base_ns;		/* median over repetitions of the per-call metric; NAN if absent */
	double new_ns;
	double base_calls;	/* mean completed calls per repetition (0 if absent) */
	double new_calls;
	bool calls_changed;	/* the per-repetition call counts differ between the sides */
	double change;		/* relative change, +0.10 = 10% slower; NAN if not estimated */
	double ci_lo, ci_hi;	/* 1 - alpha interval of change; may be -INFINITY / +INFINITY */
	double noise;		/* two recordings: the variation of a function between them on
				 * its own that widened the interval (diff/rnull.h); 0: none */
	double calib_unc;	/* exact: the calibration's uncertainty that widened the
				 * interval, the larger end's as a relative change
				 * (diff/calibunc.h); 0: none */
	double p;		/* Mann-Whitney p; NAN if not tested */
	/*
	 * Self time of a function blocked for PG_SPLIT_BLOCKED of its time or more, whose on-CPU
	 * time varied less (diff/verdict.h, pg_analyse_cpu()): base_ns, new_ns, change, its
	 * interval and p are of its on-CPU time, and the verdict is judged on them.
	 */
	bool by_cpu;
	double q;		/* Benjamini-Hochberg adjusted p; NAN if not tested */
	double probe_share;	/* share of the measured time estimated to be probe overhead,
				 * the larger of the two sides; NAN when not compensated */
	double impact_ns;	/* the change of the function's time per repetition, ns: change *
				 * base_ns * new_calls (+ slower); NAN when change is NAN */
	double impact;		/* impact_ns as a share of the median wall time of a base
				 * repetition (of a new one when the base has none); NAN
				 * if unknown */
	/*
	 * Of the change, the part on-CPU and the part off-CPU (both runs pg_meta.offcpu; else
	 * NAN): the change of the per-call on-CPU and off-CPU time of the metric (self or total),
	 * each over base_ns, so that change_cpu + change_offcpu ~ change.
	 */
	double change_cpu, change_offcpu;
	double change_runq;	/* of change_offcpu, the part waiting for a CPU (runnable); the
				 * rest was blocked. NAN as they are */
	/* of the time per call of the metric, both runs together, the part blocked (off-CPU,
	 * not runnable when the waits for a CPU are left out); NAN as change_cpu */
	double blocked_share;
	/*
	 * The share of its judged time that is the kernel's, blocked or on-CPU in kernel frames
	 * (diff/kshare.h): two recordings judge such functions against a null of their own;
	 * NAN when not known
	 */
	double kernel_share;
	/* whom its blocked time waited on, when its cause line names a waker (diff/waker.h) */
	struct pg_waker_move waker;
	size_t pairs;		/* paired comparison: the pairs the verdict needed (the look it was
				 * decided at, or the last); 0 when not paired */
	enum pg_verdict verdict;
	enum pg_cause cause;	/* why inconclusive; PG_CAUSE_NONE otherwise */
	char reason[160];	/* a short human explanation of the verdict; "" when obvious */
	/*
	 * What explains a change that counts (regression, improvement, notable): for the whole
	 * program's CPU time, the functions whose changes of time a repetition add up to it and
	 * the rest ("f +6.1% (sampled), g +2.0%; unexplained +2.1%"); for a traced function,
	 * the sampled functions under it that changed the same way. "" when none.
	 */
	char explain[256];
	enum pg_code_cmp code;	/* its own machine code, base against new */
	/*
	 * The cause line of a change that counts in a function whose code is the same in both
	 * builds (PG_CODE_SAME): through which changed caller, call count or wait its time moved,
	 * or that nothing explains it (diff/cause.h). "" otherwise.
	 */
	char why[256];
};

/* Where the machine's speed between two recordings came from (diff/rspeed.h) */
enum pg_speed_src {
	PG_SRC_NONE = 0,	/* not asked: paired runs, a history check, no correction */
	PG_SRC_REFS,		/* the reference functions */
	PG_SRC_SPIN,		/* the reference spins: too few reference functions */
	PG_SRC_UNKNOWN,		/* neither: intervals widened by PG_RSPEED_UNKNOWN */
};

/* "references", "spin", "unknown" or "none"; pg_speed_src_parse(): 0 or -EINVAL */
const char *pg_speed_src_name(enum pg_speed_src s);
int pg_speed_src_parse(const char *name, enum pg_speed_src *s);

/*
 * A function that holds a share of the CPU time but got no verdict of any kind: not traced,
 * and too few samples a repetition to be judged from them (diff/sampled.h). Its strings are
 * owned by the comparison.
 */
struct pg_unjudged {
	char *binary, *name;
	double share;		/* its samples over all the samples, on the side where larger */
	double per_rep;		/* its mean samples a repetition, on the side where more */
};

/* The unjudged functions a comparison names at most (the largest shares) */
#define PG_UNJUDGED_MAX 5

struct pg_comparison {
	struct pg_compare_opts opts;
	size_t base_reps, new_reps;	/* repetitions in each run */
	size_t ntested;			/* functions in the Benjamini-Hochberg family */
	size_t nregressions, nimprovements, nunchanged, ninconclusive, nadded, nremoved;
	size_t nnotable;
	size_t nsampled;		/* entries of f[] that are sampled functions */
	size_t ncode_changed;		/* entries of f[] whose own machine code differs
					 * between the two builds (PG_CODE_CHANGED) */
	/*
	 * What was judged (any verdict but inconclusive, added, removed): exact and sampled
	 * functions, the whole program's CPU time; and the share of the CPU time of a repetition
	 * (the base run's median) held by the self time of the judged functions, NAN when the
	 * runs have no CPU time (older run files).
	 */
	size_t njudged_exact, njudged_sampled;
	bool program_judged;
	double judged_share;
	/*
	 * The untraced functions holding at least PG_SAMPLED_SHOW_SHARE of a side's samples
	 * that were too rare to be judged from them (diff/sampled.h), the largest share first
	 * (ties by binary, then name): what judged_share leaves out, by name.
	 */
	size_t nunjudged;
	struct pg_unjudged unjudged[PG_UNJUDGED_MAX];
	bool compensated;		/* both sides compensated with the joint calibration */
	bool commands_differ;		/* not pg_meta_same_benchmark(): compared all the same,
					 * with a warning naming both commands */
	bool paired;			/* the two runs are the sides of one perfgate ab session
					 * and were compared pair by pair */
	size_t npairs;			/* pairs used when paired, else 0 */
	/* unpaired, self or total time, both runs with off-CPU time: the functions' waits for a
	 * CPU were left out of their times (diff/repvalues.h, pg_sample.no_runq) */
	bool runq_out;
	/*
	 * Paired: the machine's speed per pair (diff/speed.h). speed_refs reference functions
	 * (0: not estimated); speed_applied when the functions' differences were corrected;
	 * speed_spread the median |speed difference| of a pair and speed_shift its median, as
	 * relative changes; speed_p the signed-rank p of the shift (NAN: not tested).
	 * Two recordings compared unpaired (speed_runs, diff/rspeed.h): speed_shift the new
	 * run's speed against the base run's (NAN when not applied), speed_changed the
	 * references left out as changed by themselves, speed_spread a function's own variation
	 * between the two recordings that every verdict must exceed (diff/rnull.h; NAN when not
	 * estimated) and speed_p NAN.
	 */
	size_t speed_refs, speed_changed;
	bool speed_applied, speed_runs;
	bool speed_spread_prior;	/* two recordings: speed_spread is not estimated but
					 * PG_RNULL_PRIOR (diff/rnull.h), too few references */
	double speed_spread, speed_shift, speed_p;
	/* two recordings: the factor on every function's interval (diff/rnull.h,
	 * pg_rnull_inflation()), from speed_inflation_n of their z; with _prior, not estimated
	 * (too few) but PG_RNULL_INFLATE_PRIOR; 0 when not applied */
	double speed_inflation;
	size_t speed_inflation_n;
	/* two recordings: the factor on the intervals of the functions whose time is mostly
	 * the kernel's (diff/rnull.h, PG_RNULL_KERNEL_PRIOR), and how many were; 0 and 0 when
	 * none was */
	double speed_kernel_inflation;
	size_t speed_kernel_n;
	bool speed_inflation_prior;
	/*
	 * Two recordings compared unpaired: where the speed between them came from (PG_SRC_NONE
	 * for the others, and with --no-speed-correction), and the reference spins' speed of the
	 * new run against the base run's with its standard error, as relative changes (NAN when
	 * the runs have no spins of one workload). With PG_SRC_SPIN, speed_shift is the spins'.
	 */
	enum pg_speed_src speed_src;
	double speed_spin, speed_spin_se;
	/* two recordings with reference spins: the program's CPU time of the new run was
	 * corrected by the spins' CPU time, this much against the base run's (relative); NAN:
	 * as measured */
	double program_spin;
	enum pg_overall overall;
	char overall_reason[256];	/* why inconclusive, or "" */
	struct pg_fcmp wall;		/* whole-process wall time per repetition, tested alone
					 * (kept for readers of older results; the judged whole
					 * program is in f[], source PG_ORIGIN_PROGRAM);
					 * binary = name = "[wall]" */
	size_t n;
	size_t falloc;			/* the entries f[] has room for (0: as many as it
					 * holds); whoever reallocates f[] sets it */
	struct pg_fcmp *f;		/* exact, sampled and whole-program entries, sorted:
					 * regressions (largest change first), improvements
					 * (largest first), notable (largest impact first),
					 * inconclusive, added, removed, unchanged; in each of
					 * the first three, when ncode_changed, code not
					 * PG_CODE_SAME before code the same in both builds;
					 * a Google Benchmark
					 * program's benchmarks first (diff/gbench.h) */
	size_t nwarnings;
	char **warnings;		/* e.g. "the runs come from different hosts: a and b" */
	char error[256];		/* set when pg_compare() fails */
};

/* Fields NAN where not estimated, verdict inconclusive, strings NULL. */
void pg_fcmp_init(struct pg_fcmp *f);
/* Free the strings and initialise again. */
void pg_fcmp_release(struct pg_fcmp *f);

void pg_comparison_init(struct pg_comparison *c);
void pg_comparison_release(struct pg_comparison *c);

/*
 * Append an entry (pg_fcmp_init()ed) to c->f and return it, or NULL on ENOMEM (@c unchanged).
 * f[] grows by doubling, from 16 entries. Pointers into f[] are valid until the next add.
 */
struct pg_fcmp *pg_comparison_add(struct pg_comparison *c);
/*
 * Name the unjudged function @name (its first @len bytes) of @binary in c->unjudged, in order,
 * when it is among the PG_UNJUDGED_MAX largest shares so far (copies both). 0 or -ENOMEM.
 */
int pg_comparison_add_unjudged(struct pg_comparison *c, const char *binary, const char *name,
			       size_t len, double share, double per_rep);
/* Room for @n entries in all: a caller that knows how many it will add allocates f[] once
 * (doubling 10,000 entries leaves the 5 MB of the half it copied from behind). 0 or -ENOMEM. */
int pg_comparison_reserve(struct pg_comparison *c, size_t n);

/* Exact functions of @c called in both runs (n_base and n_new not 0: not added, removed, or
 * inconclusive for being traced in one run only). */
size_t pg_comparison_matched(const struct pg_comparison *c);

/*
 * Are @a and @b runs of the same benchmark? The same command: the same number of arguments,
 * argv[0] with the same base name (a program built in another directory, ./build-base/prog
 * and ./build-new/prog, is the same benchmark) and every other argument the same string.
 * A NULL argument equals only NULL. The -f/-x options are not part of it (compare warns about
 * them, merge refuses them: they choose what is traced, not what runs).
 */
bool pg_meta_same_benchmark(const struct pg_meta *a, const struct pg_meta *b);

/*
 * The command of @m as one line of words separated by spaces into @buf (of @size bytes),
 * ending in "..." where it had to be cut. For messages.
 */
void pg_meta_command_words(char *buf, size_t size, const struct pg_meta *m);

#endif
