/* SPDX-License-Identifier: MIT */
/*
 * bpf/perfgate.h - plain types shared by perfgate.bpf.c and the runner (libbpf-tools style).
 */
#ifndef PG_BPF_PERFGATE_H
#define PG_BPF_PERFGATE_H

/* Shadow stack depth per thread; deeper calls are counted as overflow and not timed. */
#define PG_MAX_DEPTH 128

/* Frames a return may discard at once (frames skipped by longjmp or a C++ exception). */
#define PG_MAX_UNWIND 16

/* Per-function totals of one repetition (a per-CPU array indexed by function id). */
struct pg_bpf_fstat {
	unsigned long long calls;
	unsigned long long total_ns;
	unsigned long long self_ns;
	unsigned long long min_ns;	/* 0 means "no call yet" on this CPU */
	unsigned long long max_ns;
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
	unsigned int func;
	unsigned int pad;
};

struct pg_bpf_shadow {
	unsigned int depth;	/* frames pushed, may exceed PG_MAX_DEPTH (overflow frames) */
	unsigned int pad;
	struct pg_bpf_frame f[PG_MAX_DEPTH];
};

/* Indexes of the per-CPU counters array. */
enum pg_bpf_counter {
	PG_CNT_OVERFLOW = 0,	/* calls deeper than PG_MAX_DEPTH: counted, not timed */
	PG_CNT_HIST_FULL,	/* histogram updates lost because the map was full */
	PG_CNT_NO_STACK,	/* shadow stack could not be created */
	PG_CNT_UNMATCHED,	/* returns without a matching entry */
	PG_CNT_UNWOUND,		/* frames discarded because their return never came */
	PG_CNT_MAX,
};

#endif
