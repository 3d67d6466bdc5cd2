// SPDX-License-Identifier: GPL-2.0
/*
 * perfgate.bpf.c - exact per-function latency: entry and return uprobes (uprobe_multi links;
 * the function id is the attach cookie), a per-thread shadow stack for self time, and per-CPU
 * aggregation: no per-call event leaves the kernel.
 *
 * Only threads whose process is in `traced` count. The runner puts the benchmark's first pid
 * there before it execs; sched_process_fork adds every child of a traced process (a thread's
 * id too, which is harmless: lookups are by tgid).
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "perfgate.h"
#include "../core/hist_bucket.h"

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct pg_bpf_shadow);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pg_bpf_shadow);
} zero_shadow SEC(".maps");

/* max_entries is set to the number of functions before load */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pg_bpf_fstat);
} fstats SEC(".maps");

/* max_entries is sized from the number of functions before load */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct pg_bpf_hkey);
	__type(value, __u64);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PG_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += 1;
}

static __always_inline int is_traced(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

SEC("kprobe")
int pg_entry(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0, d;
	struct pg_bpf_shadow *s;
	struct pg_bpf_frame *f;

	if (!is_traced())
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s) {
		struct pg_bpf_shadow *z = bpf_map_lookup_elem(&zero_shadow, &zero);

		if (!z)
			return 0;
		bpf_map_update_elem(&stacks, &tid, z, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&stacks, &tid);
		if (!s) {
			count(PG_CNT_NO_STACK);
			return 0;
		}
	}
	d = s->depth;
	s->depth = d + 1;
	if (d >= PG_MAX_DEPTH) {
		count(PG_CNT_OVERFLOW);
		return 0;
	}
	f = &s->f[d];
	f->func = (__u32)bpf_get_attach_cookie(ctx);
	f->child_ns = 0;
	f->sp = PT_REGS_SP(ctx);
	f->start = bpf_ktime_get_ns();	/* last, so that our own work is not timed */
	return 0;
}

static __always_inline void account(__u32 func, __u64 dur, __u64 self)
{
	struct pg_bpf_hkey key = { .func = func, .bucket = pg_hist_bucket(dur) };
	struct pg_bpf_fstat *st = bpf_map_lookup_elem(&fstats, &func);
	__u64 one = 1, *cnt;

	if (st) {
		st->calls++;
		st->total_ns += dur;
		st->self_ns += self;
		if (!st->min_ns || dur < st->min_ns)
			st->min_ns = dur ? dur : 1;
		if (dur > st->max_ns)
			st->max_ns = dur;
	}
	cnt = bpf_map_lookup_elem(&hist, &key);
	if (cnt) {
		*cnt += 1;
	} else if (bpf_map_update_elem(&hist, &key, &one, BPF_NOEXIST)) {
		cnt = bpf_map_lookup_elem(&hist, &key);
		if (cnt)
			*cnt += 1;
		else
			count(PG_CNT_HIST_FULL);
	}
}

SEC("kprobe")
int pg_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), func, d = 0;
	struct pg_bpf_frame *f = NULL;
	struct pg_bpf_shadow *s;
	__u64 sp, dur, self;
	int i;

	if (!is_traced())
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s || !s->depth) {
		count(PG_CNT_UNMATCHED);
		return 0;
	}
	if (s->depth > PG_MAX_DEPTH) {
		s->depth--;	/* an overflow frame: counted at entry, not timed */
		return 0;
	}
	func = (__u32)bpf_get_attach_cookie(ctx);
	/* after `ret`, sp is one slot above where the return address was at entry */
	sp = PT_REGS_SP(ctx) - 8;
	/* drop frames below ours whose return never came (longjmp, exceptions) */
	for (i = 0; i < PG_MAX_UNWIND; i++) {
		d = s->depth;
		if (!d || d > PG_MAX_DEPTH) {
			count(PG_CNT_UNMATCHED);
			return 0;
		}
		f = &s->f[(d - 1) & (PG_MAX_DEPTH - 1)];
		if (f->sp >= sp)
			break;
		s->depth = d - 1;
		count(PG_CNT_UNWOUND);
	}
	if (!f || f->sp != sp || f->func != func) {
		/* a return from a frame entered before tracing began: not ours */
		count(PG_CNT_UNMATCHED);
		return 0;
	}
	dur = now - f->start;
	self = dur > f->child_ns ? dur - f->child_ns : 0;
	s->depth = d - 1;
	if (d >= 2)
		s->f[(d - 2) & (PG_MAX_DEPTH - 1)].child_ns += dur;
	account(func, dur, self);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(pg_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = BPF_CORE_READ(parent, tgid);
	__u32 pid = BPF_CORE_READ(child, pid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&traced, &tgid))
		bpf_map_update_elem(&traced, &pid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pg_exit, struct task_struct *task)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&stacks, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
