/* SPDX-License-Identifier: MIT */
/*
 * bpf/perfgate.h - plain types shared by perfgate.bpf.c and the runner (libbpf-tools style).
 */
#ifndef PG_BPF_PERFGATE_H
#define PG_BPF_PERFGATE_H

/*
 * Shadow stack depth per thread: the kernel's own limit of nested return probes per task
 * (MAX_URETPROBE_DEPTH in kernel/events/uprobes.c). Deeper calls get no return probe, so they
 * are counted as overflow at entry and not timed; they never take a slot.
 */
#define PG_MAX_DEPTH 64

/* Frames one probe may discard at once (frames skipped by longjmp or a C++ exception): all. */
#define PG_MAX_UNWIND PG_MAX_DEPTH

/*
 * Kinds of probe site, as enum pg_site in core/run.h. The attach cookie of a probe is
 * (site << PG_COOKIE_SITE_SHIFT) | function id, so that the program knows what each traced
 * call cost without another map lookup.
 */
#define PG_NSITES 4
#define PG_COOKIE_SITE_SHIFT 32

/* Per-function totals of one repetition (a per-CPU array indexed by function id). */
struct pg_bpf_fstat {
	unsigned long long calls;
	unsigned long long total_ns;
	unsigned long long self_ns;
	unsigned long long min_ns;	/* 0 means "no call yet" on this CPU */
	unsigned long long max_ns;
	/* probes that fired inside the calls, by site kind, for overhead compensation */
	unsigned long long desc[PG_NSITES];	/* traced calls nested at any depth */
	unsigned long long kids[PG_NSITES];	/* traced calls made directly */
	/* of those, the ones entered by a tail call (`jmp`) of their caller: their return probe
	 * and their caller's ran in one trip into the kernel (core/calib.h) */
	unsigned long long tails[PG_NSITES];		/* of kids */
	unsigned long long desc_tails[PG_NSITES];	/* of desc */
	/* the BPF programs' own run time (struct pg_calib in core/run.h): of these calls' own
	 * probes, of the traced calls nested at any depth, of those made directly */
	unsigned long long probe_ns;
	unsigned long long desc_probe_ns;
	unsigned long long kids_probe_ns;
	/* off-CPU time inside the calls (struct pg_fstat in core/run.h): of total_ns, of that
	 * runnable; of self_ns, of that runnable */
	unsigned long long offcpu_ns;
	unsigned long long runq_ns;
	unsigned long long self_offcpu_ns;
	unsigned long long self_runq_ns;
};

/* Key of the latency histogram hash: one bucket of one function. */
struct pg_bpf_hkey {
	unsigned int func;
	unsigned int bucket;
};

struct pg_bpf_frame {
	unsigned long long start;	/* entry timestamp, ns */
	unsigned long long child_ns;	/* time spent in traced children */
	unsigned long long sp;		/* stack pointer at entry: where the return address is */
	unsigned long long entry_ns;	/* run time of the entry program, up to start */
	unsigned long long desc_probe_ns;	/* probe run time of traced descendants so far */
	unsigned long long kids_probe_ns;	/* of traced direct children so far */
	/* the thread's off-CPU and runnable totals (pg_bpf_shadow) at entry, and the inclusive
	 * off-CPU and runnable time of traced children so far (as child_ns) */
	unsigned long long off0;
	unsigned long long runq0;
	unsigned long long child_off;
	unsigned long long child_runq;
	unsigned int func;
	unsigned int site;
	unsigned int tail;		/* 1 if the caller entered this call by a tail call */
	unsigned int pad;
	unsigned int desc[PG_NSITES];	/* traced descendants so far, by site kind */
	unsigned int kids[PG_NSITES];	/* traced direct children so far, by site kind */
	unsigned int tails[PG_NSITES];	/* of kids, those entered by a tail call */
	unsigned int desc_tails[PG_NSITES];	/* of desc, those entered by a tail call */
};

struct pg_bpf_shadow {
	unsigned int depth;	/* frames pushed, at most PG_MAX_DEPTH */
	unsigned int pad;
	/* the thread's off-CPU time so far, and of that the time it was runnable, added at each
	 * switch-in (pg_switch): a frame's share is the growth between its entry and return */
	unsigned long long off_total;
	unsigned long long runq_total;
	struct pg_bpf_frame f[PG_MAX_DEPTH];
};

/*
 * Return addresses for the C++ exception fix (runner/probes/preload/preload.c): the `rets` array,
 * mmapped read-only by the benchmark, holds one entry per thread at index
 * tid & (PG_RETS_THREADS - 1) (threads whose ids collide share it: the last to enter a traced
 * function owns it). Frame i of the shadow stack, for base <= i < depth, had its return
 * address at user address slot[i], and that address was ra[i] before the return probe
 * replaced it with the uretprobe trampoline (ra[i] is the trampoline itself when the caller
 * tail-called the function). The owner's BPF probes write tid first when they claim an entry;
 * entries below base were written by a previous owner. Written only when the runner sets
 * publish_rets.
 */
#define PG_RETS_THREADS 1024

struct pg_bpf_rets {
	unsigned int tid;	/* the thread that owns the entry, 0 = none */
	unsigned int base;	/* first valid frame */
	unsigned int depth;	/* frames pushed, as pg_bpf_shadow.depth */
	unsigned int pad;
	unsigned long long slot[PG_MAX_DEPTH];	/* where the return address is */
	unsigned long long ra[PG_MAX_DEPTH];	/* what it was before the probe replaced it */
};

/*
 * One thread of the traced process tree, as the context-switch programs see it (the `threads`
 * hash, by tid; struct pg_thread in core/run.h). While the thread runs, on_ts is when it was
 * switched in; while it does not, off_ts is when it was switched out (or woken as a new
 * thread), runnable says whether it stayed on the run queue (preempted), and wake_ts when a
 * blocked thread was woken (0: not yet). The interval is split at switch-in: runnable from
 * the wakeup (or all of it when preempted), blocked before. exec_ns is the scheduler's count
 * of the thread's run time (se.sum_exec_runtime) when off_ts was set: it dates a switch-in
 * the tracepoint did not report (see switch_out() in perfgate.bpf.c).
 */
struct pg_bpf_thread {
	unsigned long long cpu_ns;
	unsigned long long runq_ns;
	unsigned long long blocked_ns;
	unsigned long long on_ts;
	unsigned long long off_ts;
	unsigned long long wake_ts;
	unsigned long long exec_ns;
	unsigned int runnable;
	unsigned int pad;
	char comm[16];
};

/* Threads the `threads` map holds at most per repetition; more are counted, not timed. */
#define PG_MAX_THREADS 16384

/* Indexes of the per-CPU counters array. */
enum pg_bpf_counter {
	PG_CNT_OVERFLOW = 0,	/* calls deeper than PG_MAX_DEPTH: not timed, not in the results */
	PG_CNT_HIST_FULL,	/* histogram updates lost because the map was full */
	PG_CNT_NO_STACK,	/* shadow stack could not be created */
	PG_CNT_UNMATCHED,	/* returns without a matching entry */
	PG_CNT_UNWOUND,		/* frames discarded because their return never came (longjmp,
			 * exceptions, a thread or process exiting inside them) */
	PG_CNT_TAIL,		/* calls a traced caller made as its tail call (`jmp`): both
				 * return probes fire in one trip into the kernel; counted per
				 * caller in tails/desc_tails and compensated (core/calib.h) */
	PG_CNT_NO_THREAD,	/* context switches of threads the `threads` map had no room for */
	PG_CNT_UNSEEN_SWITCH,	/* switch-ins the tracepoint did not report, dated at switch-out */
	PG_CNT_MAX,
};

#endif
