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
 *  - the run has a command (meta.argc > 0, meta.argv set).
 *  - funcs[i].id == i; each has a name, display and binary, and a site < PG_SITE_COUNT;
 *    (binary, name, scope) keys are unique: functions that share a symbol name in one binary
 *    (static functions of several files, compiler clones such as foo.isra.0) are told apart
 *    by their scope (below); scope is NULL or a non-empty string.
 *  - reps[r].stats is sorted by strictly increasing func id, each < nfuncs, each with calls > 0.
 *  - min_ns <= max_ns; self_ns <= total_ns; the histogram's total equals calls;
 *    kids[k] <= desc[k]; tails[k] <= kids[k]; desc_tails[k] <= desc[k];
 *    kids_probe_ns <= desc_probe_ns, which is 0 without descendants.
 *  - a valid calibration has every in_ns and out_ns in [0, 1e7) (core/calib.h);
 *    hist_compensated only with a valid, measured calibration.
 *  - the off-CPU fields of every stat as in struct pg_fstat (pg_fstat_check_offcpu());
 *    reps[r].threads sorted by strictly increasing tid, each with a comm.
 *  - reps[r].stacks is sorted by folded, unique, each count >= 1, each folded a valid stack
 *    (pg_folded_valid()); their counts add up to at most samples - samples_lost;
 *    samples_lost <= samples; sources are sorted by frame and unique, each frame a single
 *    valid frame (no ';') with a file.
 *  - reps[r].woken as core/woken.h says (pg_woken_check()).
 *  - reps[r].own is sorted by (object, exe, frame), unique, each index < nobjects, each count
 *    >= 1, each frame a single valid frame; its counts add up to at most the stacks'; objects
 *    are non-empty and unique. reps[r].incl likewise, but each count (not their sum) is at
 *    most the stacks' sum.
 *  - meta.ab_session is set (non-empty) iff meta.ab_side is PG_AB_BASE or PG_AB_NEW; then the
 *    repetitions' pair indices are unique, and so are their seq (without a session they mean
 *    nothing: the run file's writer leaves them out, and nothing reads them).
 */
#ifndef PG_RUN_H
#define PG_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "gbench.h"
#include "hist.h"
#include "woken.h"

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
	/*
	 * NULL for a function whose symbol name is unique in its binary. For functions that
	 * share one (local symbols of several translation units), what tells them apart and
	 * stays the same across two builds of one source: the translation unit's file name
	 * from the symbol table ("db_impl.cc"), else the declaration's file from DWARF, with
	 * "#2", "#3"... after it (in address order) only where that is not enough. display
	 * then ends in " [scope]".
	 */
	char *scope;
	/*
	 * A digest of its machine code that does not depend on where the build placed it
	 * (runner/profile/codesum.h): two builds whose digests are equal hold the same
	 * instructions. 0: unknown.
	 */
	uint64_t code;
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
	 * Of those, the calls their caller entered by a tail call (`jmp`): their return probe and
	 * the caller's ran in one trip into the kernel, one return trip less in the caller's
	 * window (core/calib.h). tails[k] <= kids[k], desc_tails[k] <= desc[k]; 0 in run files
	 * from before perfgate counted them.
	 */
	uint64_t tails[PG_SITE_COUNT];		/* of kids */
	uint64_t desc_tails[PG_SITE_COUNT];	/* of desc */
	/*
	 * The BPF programs' own run time, timed at every call (struct pg_calib says which part of
	 * a probe's cost that is): of these calls' own probes, of the traced calls inside them at
	 * any depth, and of those made directly. kids_probe_ns <= desc_probe_ns; all 0 in run
	 * files from before perfgate timed its probes (pg_calib.measured is false there).
	 */
	uint64_t probe_ns;
	uint64_t desc_probe_ns;
	uint64_t kids_probe_ns;
	/*
	 * Off-CPU time inside these calls, exactly (the scheduler's context switches, when
	 * pg_meta.offcpu; all 0 otherwise and in run files from before): of total_ns, the time
	 * the calling thread was not running; of that, the time it was runnable but waiting for
	 * a CPU (preempted, or woken and not yet running); the rest it was blocked (sleeping,
	 * I/O, a lock). The self_ forms are the same of self_ns. On-CPU time is total_ns -
	 * offcpu_ns. runq_ns <= offcpu_ns <= total_ns; self_runq_ns <= self_offcpu_ns <= self_ns;
	 * self_offcpu_ns <= offcpu_ns, self_runq_ns <= runq_ns.
	 */
	uint64_t offcpu_ns;
	uint64_t runq_ns;
	uint64_t self_offcpu_ns;
	uint64_t self_runq_ns;
};

/* One sampled call stack: frames root first, ';'-separated ("main;parse;lex"), see
 * docs/sampling.md; count = samples with exactly this stack. */
struct pg_stack {
	char *folded;
	uint64_t count;		/* >= 1 */
};

/*
 * One thread of a repetition's process tree (pg_meta.offcpu): where its time went, from its
 * first to its last context switch seen. cpu_ns + runq_ns + blocked_ns is its lifetime.
 */
struct pg_thread {
	uint32_t tid;		/* as the kernel numbered it in that repetition */
	char *comm;		/* its name (task comm) when last seen; never NULL */
	uint64_t cpu_ns;	/* running */
	uint64_t runq_ns;	/* runnable, waiting for a CPU */
	uint64_t blocked_ns;	/* sleeping, waiting for I/O, a lock, another thread */
};

/* Where a sampled frame's function is declared (for flame graph tooltips). */
struct pg_source {
	char *frame;		/* the frame name as in folded stacks */
	char *file;
	uint32_t line;		/* 0 if unknown */
};

/*
 * The samples of one repetition whose own time (innermost user frame, inlined code included)
 * lay in one function symbol: the function whose machine code holds them, as perf and pprof
 * attribute addresses. object and exe index pg_run.objects: the file the symbol is in and
 * the program of the process that ran it (equal for a function of the executable itself).
 */
struct pg_own {
	uint32_t object;
	uint32_t exe;
	char *frame;		/* the function's frame name; " [scope]" appended for a name
				 * that several functions of its file have (pg_func.scope) */
	uint64_t count;		/* >= 1 */
};

/* The order of a repetition's own samples (qsort): object, exe, then frame (strcmp). */
int pg_own_cmp(const void *a, const void *b);

/* The machine code of the function a sampled frame names (struct pg_func.code). */
struct pg_code {
	char *frame;		/* the frame name as in folded stacks */
	uint64_t digest;	/* not 0 */
};

struct pg_rep {
	uint64_t wall_ns;	/* wall time from exec to the end of the process tree */
	/*
	 * CPU time (user + system) of the whole process tree, every process and thread of it
	 * reaped; 0 when not measured (run files from before perfgate measured it)
	 */
	uint64_t cpu_ns;
	int exit_code;		/* exit status when the root process exited, else -1 */
	int signal;		/* terminating signal of the root process, else 0 */
	size_t nstats;
	size_t astats;		/* room in stats (pg_rep_add_stat, pg_rep_reserve_stats) */
	struct pg_fstat *stats;	/* sorted by func id */
	/* sampled profile (all 0 / NULL when sampling was off) */
	uint64_t samples;		/* samples taken, including lost ones */
	uint64_t samples_lost;		/* dropped: the ring buffer was full */
	uint64_t samples_truncated;	/* kept, but the stack could not be unwound to its root */
	size_t nstacks;
	struct pg_stack *stacks;	/* sorted by folded (strcmp), unique */
	/*
	 * The same samples by the function they lay in (pg_run.objects set; else empty): sorted
	 * by (object, exe, frame), unique; their counts add up to at most those of the stacks.
	 */
	size_t nown;
	struct pg_own *own;
	/*
	 * The same samples by each function their stacks hold (inclusive time; pg_run.objects
	 * set, else empty): a function's count is the samples whose stack holds one of its
	 * frames, once a stack however often it recurs; inlined frames (their time is their
	 * caller's), kernel frames and frames in no function symbol have none. Frame names as
	 * in own. Sorted by (object, exe, frame), unique; each count at most the stacks' sum.
	 * Empty in run files from before perfgate kept them: inclusive sampled time is then
	 * taken from the stacks, by frame name alone.
	 */
	size_t nincl;
	struct pg_own *incl;
	/*
	 * Off-CPU profile (pg_meta.offcpu with sampling on; else empty): the stacks threads were
	 * switched out in, kernel frames last, each count the nanoseconds spent blocked there.
	 * Sorted by folded, unique, each count >= 1.
	 */
	size_t noffcpu;
	struct pg_stack *offcpu;
	/*
	 * Who woke the threads of those stacks: each stack's nanoseconds by waker (core/woken.h:
	 * sorted, unique, per stack at most its nanoseconds); empty when not recorded.
	 */
	size_t nwoken;
	struct pg_woken *woken;
	/* threads (pg_meta.offcpu; else empty), sorted by tid, unique */
	size_t nthreads;
	struct pg_thread *threads;
	/*
	 * perfgate ab (pg_meta.ab_session set): the pair this repetition belongs to (each index
	 * 0..npairs-1 once on each side of the session) and its position in the session's running
	 * order over both sides (0-based, unique across the two files). Both 0 otherwise.
	 */
	uint32_t pair;
	uint32_t seq;
	/*
	 * A Google Benchmark program's own figures for this process, per benchmark (core/gbench.h:
	 * sorted by name, unique); empty when the program is not one or perfgate did not read
	 * them (record --no-gbench).
	 */
	size_t nbench;
	struct pg_gb_value *bench;
};

/* CPUs a repetition's spins are pinned to, at most (runner/session/spin.h) */
#define PG_SPIN_MAX_CPUS 8

/*
 * The spin run pinned to one CPU before a repetition: which CPU, its times (as struct
 * pg_spin's) and how many of the repetition's samples were taken on that CPU (0 without
 * sampling): its share of the repetition's CPU time.
 */
struct pg_spin_cpu {
	uint32_t cpu;
	uint64_t wall_ns;
	uint64_t cpu_ns;
	uint64_t runq_ns;
	uint64_t samples;
};

/*
 * One run of the reference spin (pg_meta.spin): its wall and thread CPU time, both > 0, and
 * the part of its wall time it waited in a run queue for a CPU (the kernel's schedstat
 * run_delay; 0 when not measured), runq_ns < wall_ns.
 *
 * With ncpu > 0 (at most PG_SPIN_MAX_CPUS, each CPU once) the spin ran once on each CPU the
 * benchmark could use, and the times above are pg_spin_combine()'s: the per-CPU times
 * weighted by the repetition's samples on each CPU (what the spin would have taken on the
 * mix of CPUs the benchmark ran on), or their mean when no sample tells where it ran. A
 * copy is a plain struct assignment (no pointers).
 */
struct pg_spin {
	uint64_t wall_ns;
	uint64_t cpu_ns;
	uint64_t runq_ns;
	uint32_t ncpu;
	struct pg_spin_cpu cpus[PG_SPIN_MAX_CPUS];
};

/* Set @s's times from its per-CPU spins (a no-op when ncpu is 0), as struct pg_spin says. */
void pg_spin_combine(struct pg_spin *s);

/* The number of @s's samples on all its CPUs: 0 when nothing tells where the repetition ran. */
uint64_t pg_spin_samples(const struct pg_spin *s);

/* Which side of a perfgate ab session a run is (pg_meta.ab_side). */
enum pg_ab_side {
	PG_AB_NONE = 0,		/* an ordinary recording */
	PG_AB_BASE,
	PG_AB_NEW,
};

/* "base", "new" or "none"; pg_ab_side_parse() takes "base" or "new" (0, or -EINVAL). */
const char *pg_ab_side_name(enum pg_ab_side side);
int pg_ab_side_parse(const char *s, enum pg_ab_side *side);

/*
 * A function record --budget left out although it held a large share of the sampled time,
 * because its probes would cost too much on this machine: what they would cost here, and at
 * the reference cost of its site kind (core/calib.h, PG_REF_CALL_NS), so that two machines'
 * selections can be told apart. Its time is still judged from the samples. Owned by its
 * struct pg_meta (name and binary freed with it).
 */
#define PG_BUDGET_OUT_SHARE 0.05
struct pg_budget_out {
	char *name;		/* display name */
	char *binary;		/* the object it is in */
	enum pg_site site;
	double share;		/* of the sampled first pass's CPU time, (0, 1] */
	double calls;		/* a run, as the pilot counted them (scaled to a whole run) */
	double call_ns;		/* what a traced call costs here, as the budget counts it */
	double cost_pct;	/* its probes' cost, % of the benchmark's own time, here */
	double ref_call_ns;	/* a traced call at its site kind's reference cost */
	double ref_cost_pct;	/* its probes' cost at that cost */
	double samples;		/* expected a repetition at the recording's sampling rate */
	bool judged;		/* as many as a sampled verdict needs (diff/sampled.h) */
};

/*
 * One line (no newline) saying why @o was left out and what it would cost elsewhere, into
 * @buf of @size bytes (cut to fit). record and report print it alike.
 */
void pg_budget_out_say(const struct pg_budget_out *o, double budget_pct, char *buf, size_t size);
void pg_budget_out_release(struct pg_budget_out *o);

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
	/*
	 * The ELF executable the benchmark's processes ran as their program (absolute path): the
	 * command's own file, or the one a wrapper script or env ran; NULL when unknown (older
	 * files). compare pairs the
	 * functions of two runs' programs when their base names differ and their functions
	 * mostly agree (pg_fkeys_fill()).
	 */
	char *program;
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
	bool offcpu;		/* off-CPU time was measured (pg_fstat.offcpu_ns..., threads) */
	/*
	 * record --budget: the functions it left out although each held at least
	 * PG_BUDGET_OUT_SHARE of the sampled first pass's CPU time (struct pg_budget_out), in
	 * the order of their share, largest first; NULL and 0 when none.
	 */
	struct pg_budget_out *left_out;
	size_t nleft_out;
	/*
	 * perfgate ab: the session's id (shared by its two run files, unique per session) and
	 * which side this file is; NULL and PG_AB_NONE for an ordinary recording. Both sides of
	 * one session have the same functions (keys) and their repetitions pair by pg_rep.pair.
	 */
	char *ab_session;
	enum pg_ab_side ab_side;
	/*
	 * The environment the run was recorded in, beyond kernel and cpu_model: "KEY=VALUE"
	 * strings sorted by KEY, each KEY unique, non-empty and without '=' (pg_env_valid()):
	 * "cpu_flags" (/proc/cpuinfo's flags), "os" (/etc/os-release's PRETTY_NAME), "compilers"
	 * (the DWARF producer strings of the traced binaries, "; "-separated), "ci.NAME" (CI
	 * image variables: ImageOS, ImageVersion, CI_JOB_IMAGE, CI_RUNNER_DESCRIPTION). Empty in
	 * run files from before; a KEY missing is unknown.
	 */
	size_t nenv;
	char **env;
	/*
	 * The reference spin (runner/session/spin.h): a fixed workload perfgate ran in its own
	 * process just before each repetition, spin[i] before repetition i (nspin is 0, or
	 * nreps), a witness of the machine's speed at that moment. spin_workload names the
	 * workload and its version: spins of different workloads are never compared. NULL and
	 * 0 in run files from before and in perfgate ab's files (paired, they need none).
	 */
	char *spin_workload;
	size_t nspin;
	struct pg_spin *spin;
};

#define PG_ENV_COMPILERS "compilers"

/* The value of @key in @m's environment, or NULL when it has none. */
const char *pg_env_get(const struct pg_meta *m, const char *key);
/* Set @key to a copy of @value (replacing it), keeping the order. 0 or -ENOMEM. */
int pg_env_set(struct pg_meta *m, const char *key, const char *value);
/* Are @env[0..n) "KEY=VALUE" strings as struct pg_meta says (sorted, unique keys)? */
bool pg_env_valid(char *const *env, size_t n);

struct pg_run {
	struct pg_meta meta;
	struct pg_calib calib;		/* core/calib.h; valid == false in runs without
					 * calibration */
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
	/*
	 * The code digests of the functions this run's samples fell in (their own time), for
	 * the frames that name one function of one object; sorted by frame, unique; may be
	 * empty. In a perfgate ab session each side has its own.
	 */
	size_t ncodes;
	struct pg_code *codes;
	/*
	 * The objects the repetitions' own samples (pg_rep.own) lay in and ran as programs,
	 * absolute paths, unique; an entry no repetition names is allowed. Empty in runs
	 * without a sampled profile, and in run files from before perfgate kept own samples:
	 * sampled time is then taken from the stacks' innermost frames.
	 */
	size_t nobjects;
	char **objects;
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
/* Make room for @n stats in all, exactly (a reader that knows how many it will add allocates no
 * more: a run of 10,000 functions holds 10,000 in each repetition). 0 or -ENOMEM. */
int pg_rep_reserve_stats(struct pg_rep *rep, size_t n);
/* The stat of @func in @rep, or NULL if it was not called there (binary search). */
const struct pg_fstat *pg_rep_find(const struct pg_rep *rep, uint32_t func);
/* Look up a function by binary path and symbol name; NULL if absent. */
const struct pg_func *pg_run_find_func(const struct pg_run *run, const char *binary,
				       const char *name);

/*
 * Check the invariants above. Returns 0, or -EINVAL with a one-line reason written into @why
 * (@whylen bytes; NULL or 0: no reason) for the caller to report; -ENOMEM (the uniqueness
 * check sorts a copy of the function table), @why "out of memory".
 */
int pg_run_validate(const struct pg_run *run, char *why, size_t whylen);

/* The off-CPU invariants of one stat (struct pg_fstat): 0, or -EINVAL with the reason in
 * @why (NULL or 0: none). */
int pg_fstat_check_offcpu(const struct pg_fstat *s, char *why, size_t whylen);

/* Is @s a valid folded stack: frames separated by ';', none empty (so no leading, trailing or
 * double ';'), no control characters (tab, LF, CR, ...). */
bool pg_folded_valid(const char *s);

/*
 * Marks an inlined function's frame in a folded stack ("mix [i]", as kernel frames end in
 * " [k]"): its time is the time of the function it was inlined into, the last frame before
 * it that is not marked. Stacks of perfgate before 2026-12 do not mark them.
 */
#define PG_INLINED_MARK " [i]"

/* Is frame @f[0..len) an inlined function's (marked PG_INLINED_MARK)? */
bool pg_frame_inlined(const char *f, size_t len);

/* Marks a kernel frame in a folded stack ("vfs_read [k]"). */
#define PG_KERNEL_MARK " [k]"

/* Is frame @f[0..len) the kernel's (marked PG_KERNEL_MARK)? */
bool pg_frame_kernel(const char *f, size_t len);

/* Does a repetition of @run hold inclusive samples (pg_rep.incl)? */
bool pg_run_has_incl(const struct pg_run *run);

/* Free @rep's own and inclusive samples and leave them empty. */
void pg_rep_own_release(struct pg_rep *rep);
/* Free @run->objects and every repetition's own and inclusive samples, and leave them empty. */
void pg_run_own_release(struct pg_run *run);

/* Free @run->codes and leave it empty. */
void pg_run_codes_release(struct pg_run *run);

/* The code digest of sampled frame @frame in @run->codes, or 0 when it has none. */
uint64_t pg_run_code(const struct pg_run *run, const char *frame);

/* The last path component of @path (a pointer into it). */
const char *pg_basename(const char *path);
/*
 * Functions of different runs are the same function when their keys are equal: the base name
 * of the binary, the symbol name and the scope (NULL sorts as ""; compare, merge and record
 * --functions-of match so).
 * pg_func_key_cmp() orders by that key, strcmp-style; pg_run_ids_by_key() returns @run's
 * function ids in that order (malloc'd, the caller frees it; NULL on -ENOMEM).
 */
int pg_func_key_cmp(const struct pg_func *a, const struct pg_func *b);
/* Set @f's scope to a copy of @scope (NULL or "" for none) and append " [scope]" to its
 * display name. 0 or -ENOMEM (@f unchanged). */
int pg_func_set_scope(struct pg_func *f, const char *scope);
uint32_t *pg_run_ids_by_key(const struct pg_run *run);

/*
 * A sampled frame of a traced function is named by its display name. pg_run_by_display()
 * returns @run's functions sorted by display name (ties: the lower id first), malloc'd (the
 * caller frees the array, not the functions; NULL on -ENOMEM); pg_func_by_display() finds
 * the first function of @display in such an array of @n, or returns NULL.
 */
const struct pg_func **pg_run_by_display(const struct pg_run *run);
const struct pg_func *pg_func_by_display(const struct pg_func *const *v, size_t n,
					 const char *display);

#endif
