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
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "perfgate.h"
#include "../core/hist_bucket.h"

struct xol_area {
	unsigned long vaddr;	/* the uretprobe trampoline is its first slot */
} __attribute__((preserve_access_index));

struct uprobes_state {
	struct xol_area *xol_area;
} __attribute__((preserve_access_index));

struct mm_struct {
	struct uprobes_state uprobes_state;
} __attribute__((preserve_access_index));

struct sched_entity {
	unsigned long long sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int __state;
	struct sched_entity se;
	int pid;
	int tgid;
	char comm[16];
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

#include "traced.h"

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

/*
 * max_entries is sized from the number of functions before load. One shared counter per key,
 * added to atomically: in a per-CPU hash, adding a key allocates per-CPU memory, and the
 * refills of the kernel's allocator cache (irq_work, after the program) cost 20-30 us on ~1% of
 * traced calls, an untimed tail that raised the mean cost of a probe by ~25% (bench/tail.c,
 * BENCHMARKS.md). Preallocating instead took ~1.2 s at start for 2^20 entries.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct pg_bpf_hkey);
	__type(value, __u64);
} hist SEC(".maps");

/* the traced tree's threads, for their on-CPU, runnable and blocked time (pg_switch) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PG_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct pg_bpf_thread);
} threads SEC(".maps");

/* set by the runner before load when the benchmark gets the exception fix (bpf/perfgate.h) */
const volatile bool publish_rets = false;

/*
 * Overhead compensation of the latency histogram, set by the runner after calibration (struct
 * pg_calib in core/run.h; off during the calibration itself, whose histograms must be raw).
 * Each call's duration goes into the histogram minus, in whole ns, its own probes' work inside
 * its window (hist_own_ns[its site]), the BPF run time of its traced descendants' probes (as
 * timed) and, per descendant of site k, the untimed rest of its probes (hist_desc_ns[k]), less
 * the return trip a tail-called one shared with its caller (hist_trip_ns[k] <= hist_desc_ns[k],
 * pg_calib_trip_ns()); at least 0. total_ns, self_ns, min_ns and max_ns stay raw.
 */
bool hist_compensate = false;
__u64 hist_own_ns[PG_NSITES];
__u64 hist_desc_ns[PG_NSITES];
__u64 hist_trip_ns[PG_NSITES];

/* one entry per thread, mmapped read-only by the benchmark's preload library */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PG_RETS_THREADS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct pg_bpf_rets);
} rets SEC(".maps");

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

/*
 * Publish frame @d, whose return address is at @sp, as thread @tid's innermost frame in `rets`,
 * claiming the entry first if another thread owned it. At the entry probe the kernel has not
 * replaced the return address yet (it does after every consumer's handler ran), so the slot
 * still holds the real one, unless the caller tail-called this function.
 */
static __always_inline void rets_push(__u32 tid, __u32 d, __u64 sp)
{
	__u32 idx = tid & (PG_RETS_THREADS - 1);
	struct pg_bpf_rets *e;
	__u64 ra = 0;

	if (!publish_rets || d >= PG_MAX_DEPTH)
		return;
	e = bpf_map_lookup_elem(&rets, &idx);
	if (!e)
		return;
	if (e->tid != tid) {
		*(volatile __u32 *)&e->tid = tid;	/* first: the reader checks it last */
		asm volatile("" ::: "memory");
		e->base = d;
	}
	if (e->base > d)
		e->base = d;
	bpf_probe_read_user(&ra, sizeof(ra), (const void *)sp);
	e->slot[d & (PG_MAX_DEPTH - 1)] = sp;
	e->ra[d & (PG_MAX_DEPTH - 1)] = ra;
	e->depth = d + 1;
}

/* Mirror thread @tid's shadow stack depth into its `rets` entry after frames were popped. */
static __always_inline void rets_pop(__u32 tid, __u32 depth)
{
	__u32 idx = tid & (PG_RETS_THREADS - 1);
	struct pg_bpf_rets *e;

	if (!publish_rets)
		return;
	e = bpf_map_lookup_elem(&rets, &idx);
	if (!e || e->tid != tid)
		return;
	e->depth = depth;
	if (e->base > depth)
		e->base = depth;
}

/* Does the return-address slot at @sp hold the uretprobe trampoline (a hijacked return)? */
static __always_inline int slot_is_trampoline(__u64 sp)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 ret = 0, tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);

	if (bpf_probe_read_user(&ret, sizeof(ret), (const void *)sp))
		return 0;
	return tramp && ret == tramp;
}

/*
 * Drop the innermost of the @d frames of @s, a call that never returns: what its traced
 * children took, and their probes, belong to its caller now (its own time is the caller's self
 * time), so that the self times of the calls that return still add up to their callers' total.
 */
static __always_inline void drop_frame(struct pg_bpf_shadow *s, __u32 d)
{
	struct pg_bpf_frame *f = &s->f[(d - 1) & (PG_MAX_DEPTH - 1)], *parent;

	s->depth = d - 1;
	count(PG_CNT_UNWOUND);
	if (d < 2)
		return;
	parent = &s->f[(d - 2) & (PG_MAX_DEPTH - 1)];
	parent->child_ns += f->child_ns;
	parent->child_off += f->child_off;
	parent->child_runq += f->child_runq;
	parent->desc_probe_ns += f->desc_probe_ns;
	for (int k = 0; k < PG_NSITES; k++) {
		parent->desc[k] += f->desc[k];
		parent->desc_tails[k] += f->desc_tails[k];
	}
}

/*
 * At a call whose return address is at @sp, drop the frames of calls that were left without a
 * return (longjmp, a C++ exception): a live caller's return address lies above @sp. One in the
 * same slot is live only when the slot holds the trampoline, that is, when the caller
 * tail-called this function; otherwise it is dead, as the kernel decides for its own return
 * instances (arch_uretprobe_is_alive). Returns the depth left.
 */
static __always_inline __u32 drop_dead_frames(struct pg_bpf_shadow *s, __u64 sp)
{
	for (int i = 0; i < PG_MAX_UNWIND; i++) {
		__u32 d = s->depth;
		struct pg_bpf_frame *f;

		if (!d || d > PG_MAX_DEPTH)
			break;
		f = &s->f[(d - 1) & (PG_MAX_DEPTH - 1)];
		if (f->sp > sp || (f->sp == sp && slot_is_trampoline(sp)))
			break;
		drop_frame(s, d);
	}
	return s->depth;
}

SEC("kprobe")
int pg_entry(struct pt_regs *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();	/* our own run time is part of the probe's cost */
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0, d;
	__u64 sp = PT_REGS_SP(ctx);
	struct pg_bpf_shadow *s;
	__u64 cookie;
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
	d = drop_dead_frames(s, sp);
	if (d >= PG_MAX_DEPTH) {
		/* the kernel installs no return probe this deep either: not timed */
		count(PG_CNT_OVERFLOW);
		rets_pop(tid, d);
		return 0;
	}
	/* a live caller in the same slot: it tail-called us (drop_dead_frames()) */
	s->depth = d + 1;
	f = &s->f[d];
	f->tail = d && s->f[(d - 1) & (PG_MAX_DEPTH - 1)].sp == sp;
	if (f->tail)
		count(PG_CNT_TAIL);
	cookie = bpf_get_attach_cookie(ctx);
	f->func = (__u32)cookie;
	f->site = (__u32)(cookie >> PG_COOKIE_SITE_SHIFT) & (PG_NSITES - 1);
	__builtin_memset(f->desc, 0, sizeof(f->desc));
	__builtin_memset(f->kids, 0, sizeof(f->kids));
	__builtin_memset(f->tails, 0, sizeof(f->tails));
	__builtin_memset(f->desc_tails, 0, sizeof(f->desc_tails));
	f->child_ns = 0;
	f->child_off = 0;
	f->child_runq = 0;
	f->off0 = s->off_total;
	f->runq0 = s->runq_total;
	f->desc_probe_ns = 0;
	f->kids_probe_ns = 0;
	f->sp = sp;
	rets_push(tid, d, sp);
	f->start = bpf_ktime_get_ns();	/* last, so that our own work is not timed */
	f->entry_ns = f->start - t0;
	return 0;
}

/* @dur of the call of frame @f, compensated for probe overhead as set above */
static __always_inline __u64 hist_dur(__u64 dur, const struct pg_bpf_frame *f)
{
	__u64 c;

	if (!hist_compensate)
		return dur;
	c = hist_own_ns[f->site & (PG_NSITES - 1)] + f->desc_probe_ns;
	for (int k = 0; k < PG_NSITES; k++)
		c += (__u64)f->desc[k] * hist_desc_ns[k] -
		     (__u64)f->desc_tails[k] * hist_trip_ns[k];
	return dur > c ? dur - c : 0;
}

/*
 * The off-CPU part of a call of @dur ns with @self ns of its own, from the thread's totals
 * (@s) now and at the call's entry (@f): inclusive off-CPU and runnable time (*off, *runq),
 * and the parts outside traced children (*soff, *srunq), clamped so that runq <= off <= dur,
 * srunq <= soff <= self, soff <= off and srunq <= runq (core/run.h).
 */
static __always_inline void offcpu_split(const struct pg_bpf_shadow *s,
					 const struct pg_bpf_frame *f, __u64 dur, __u64 self,
					 __u64 *off, __u64 *runq, __u64 *soff, __u64 *srunq)
{
	__u64 o = s->off_total - f->off0, q = s->runq_total - f->runq0;

	if (o > dur)
		o = dur;
	if (q > o)
		q = o;
	*off = o;
	*runq = q;
	o = o > f->child_off ? o - f->child_off : 0;
	q = q > f->child_runq ? q - f->child_runq : 0;
	if (o > self)
		o = self;
	if (q > o)
		q = o;
	*soff = o;
	*srunq = q;
}

static __always_inline struct pg_bpf_fstat *account(__u32 func, __u64 dur, __u64 self,
						    const struct pg_bpf_frame *f,
						    const struct pg_bpf_shadow *s,
						    __u64 *off, __u64 *runq)
{
	__u64 soff, srunq;

	struct pg_bpf_hkey key = { .func = func, .bucket = pg_hist_bucket(hist_dur(dur, f)) };
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
		for (int k = 0; k < PG_NSITES; k++) {
			st->desc[k] += f->desc[k];
			st->kids[k] += f->kids[k];
			st->tails[k] += f->tails[k];
			st->desc_tails[k] += f->desc_tails[k];
		}
		st->desc_probe_ns += f->desc_probe_ns;
		st->kids_probe_ns += f->kids_probe_ns;
	}
	offcpu_split(s, f, dur, self, off, runq, &soff, &srunq);
	if (st) {
		st->offcpu_ns += *off;
		st->runq_ns += *runq;
		st->self_offcpu_ns += soff;
		st->self_runq_ns += srunq;
	}
	cnt = bpf_map_lookup_elem(&hist, &key);
	if (cnt) {
		__sync_fetch_and_add(cnt, 1);
	} else if (bpf_map_update_elem(&hist, &key, &one, BPF_NOEXIST)) {
		cnt = bpf_map_lookup_elem(&hist, &key);
		if (cnt)
			__sync_fetch_and_add(cnt, 1);
		else
			count(PG_CNT_HIST_FULL);
	}
	return st;
}

SEC("kprobe")
int pg_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), func, d = 0;
	struct pg_bpf_frame *f = NULL;
	struct pg_bpf_shadow *s;
	struct pg_bpf_fstat *st;
	__u64 sp, dur, self, probe, off, runq;
	int i;

	if (!is_traced())
		return 0;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (!s || !s->depth) {
		count(PG_CNT_UNMATCHED);
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
			goto out;
		}
		f = &s->f[(d - 1) & (PG_MAX_DEPTH - 1)];
		if (f->sp >= sp)
			break;
		drop_frame(s, d);
	}
	if (!f || f->sp != sp || f->func != func) {
		/* a return from a frame entered before tracing began, or too deep: not ours */
		count(PG_CNT_UNMATCHED);
		goto out;
	}
	dur = now - f->start;
	self = dur > f->child_ns ? dur - f->child_ns : 0;
	s->depth = d - 1;
	rets_pop(tid, d - 1);
	st = account(func, dur, self, f, s, &off, &runq);
	/* this call's probes as far as they ran in BPF: the entry program and us, up to here */
	probe = f->entry_ns + (bpf_ktime_get_ns() - now);
	if (st)
		st->probe_ns += probe;
	if (d >= 2) {
		struct pg_bpf_frame *parent = &s->f[(d - 2) & (PG_MAX_DEPTH - 1)];
		__u32 site = f->site & (PG_NSITES - 1);

		parent->desc_probe_ns += f->desc_probe_ns + probe;
		parent->kids_probe_ns += probe;
		parent->child_ns += dur;
		parent->child_off += off;
		parent->child_runq += runq;
		parent->kids[site]++;
		parent->desc[site]++;
		if (f->tail) {
			parent->tails[site]++;
			parent->desc_tails[site]++;
		}
		for (int k = 0; k < PG_NSITES; k++) {
			parent->desc[k] += f->desc[k];
			parent->desc_tails[k] += f->desc_tails[k];
		}
	}
	return 0;
out:
	rets_pop(tid, s->depth);
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
	struct pg_bpf_shadow *s = bpf_map_lookup_elem(&stacks, &tid);
	struct pg_bpf_thread *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 idx = PG_CNT_UNWOUND;
	__u64 *c;

	if (th)		/* its name when last seen (after exec, pthread_setname_np) */
		bpf_get_current_comm(th->comm, sizeof(th->comm));
	/* calls the thread never returned from (exit, pthread_exit inside them) */
	if (s && s->depth) {
		c = bpf_map_lookup_elem(&counters, &idx);
		if (c)
			*c += s->depth < PG_MAX_DEPTH ? s->depth : PG_MAX_DEPTH;
	}
	if (s)
		rets_pop(tid, 0);	/* a later thread with the same id starts afresh */
	bpf_map_delete_elem(&stacks, &tid);
	return 0;
}

/* ---- on-CPU, runnable and blocked time: the scheduler's context switches ---- */

/* (tp_btf: the task pointers are trusted, read directly rather than through a helper) */
static __always_inline bool task_traced(const struct task_struct *t)
{
	__u32 tgid = t->tgid;

	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

/* Thread @tid's entry in `threads`, made (zeroed, named after @t) when it has none; NULL when
 * the map is full (counted). */
static __always_inline struct pg_bpf_thread *thread_of(__u32 tid, const struct task_struct *t)
{
	struct pg_bpf_thread *th = bpf_map_lookup_elem(&threads, &tid), zero = {};

	if (th)
		return th;
	BPF_CORE_READ_STR_INTO(&zero.comm, t, comm);
	bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST);
	th = bpf_map_lookup_elem(&threads, &tid);
	if (!th)
		count(PG_CNT_NO_THREAD);
	return th;
}

/*
 * Thread @tid's off-CPU interval ends at @now. The part after its wakeup (all of it when it was
 * runnable throughout) waited for a CPU; the part before it was blocked. Both go to the
 * thread's totals, and the interval to its shadow stack's (see pg_return).
 */
static __always_inline void off_end(struct pg_bpf_thread *th, __u32 tid, __u64 now)
{
	struct pg_bpf_shadow *s;
	__u64 iv, rq;

	if (!th->off_ts || now <= th->off_ts)
		return;
	iv = now - th->off_ts;
	if (th->runnable)
		rq = iv;
	else if (th->wake_ts >= th->off_ts && th->wake_ts <= now)
		rq = now - th->wake_ts;
	else
		rq = 0;		/* its wakeup was not seen: all blocked */
	th->runq_ns += rq;
	th->blocked_ns += iv - rq;
	s = bpf_map_lookup_elem(&stacks, &tid);
	if (s) {
		s->off_total += iv;
		s->runq_total += rq;
	}
}

/*
 * @t (traced) leaves the CPU at @now: its running time ends, its off-CPU interval begins.
 *
 * The tracepoint does not report every switch on every machine: on the project's VMs the
 * switch back from a thread of the hypervisor's agent (pid 1's tokio workers) to the thread it
 * preempted shows neither in BPF nor in ftrace. A thread then leaves the CPU while perfgate still
 * has it off-CPU, and the stretch it ran since was lost (2-8 ms of a 20 ms spin in ~5% of
 * repetitions). The scheduler's own count of its run time dates the unseen switch-in: it ran
 * sum_exec_runtime's growth since it was switched out, so it came back that long ago.
 */
static __always_inline void switch_out(const struct task_struct *t, bool preempt, __u64 now)
{
	__u32 tid = t->pid;
	struct pg_bpf_thread *th = thread_of(tid, t);
	__u64 exec = t->se.sum_exec_runtime, ran;

	if (!th)
		return;
	if (!th->on_ts && th->off_ts && now > th->off_ts && exec > th->exec_ns) {
		ran = exec - th->exec_ns;
		if (ran > now - th->off_ts)
			ran = now - th->off_ts;
		off_end(th, tid, now - ran);
		th->on_ts = now - ran;
		count(PG_CNT_UNSEEN_SWITCH);
	}
	if (th->on_ts && now > th->on_ts)
		th->cpu_ns += now - th->on_ts;
	th->on_ts = 0;
	th->off_ts = now;
	th->wake_ts = 0;
	th->exec_ns = exec;
	/* preempted, or its wait ended before it could block (a pending signal): it stays on
	 * the run queue */
	th->runnable = preempt || t->__state == 0;
}

/* @t (traced) gets the CPU at @now: its off-CPU interval ends. */
static __always_inline void switch_in(const struct task_struct *t, __u64 now)
{
	struct pg_bpf_thread *th = thread_of(t->pid, t);

	if (!th)
		return;
	off_end(th, t->pid, now);
	th->off_ts = 0;
	th->wake_ts = 0;
	th->on_ts = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(pg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* the traced tree only: one lookup each before anything else */
	int out = task_traced(prev), in = task_traced(next);
	__u64 now;

	/* two flags, not two pointers the compiler may OR (which the verifier refuses) */
	asm volatile("" : "+r"(out), "+r"(in));
	if (!out && !in)
		return 0;
	now = bpf_ktime_get_ns();
	if (out)
		switch_out(prev, preempt, now);
	if (in)
		switch_in(next, now);
	return 0;
}

/* A blocked thread of the tree was woken: from now on it waits for a CPU. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(pg_wakeup, struct task_struct *p)
{
	struct pg_bpf_thread *th;
	__u32 tid;

	if (!task_traced(p))
		return 0;
	tid = p->pid;
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->off_ts && !th->runnable && !th->wake_ts)
		th->wake_ts = bpf_ktime_get_ns();
	return 0;
}

/* A new thread or process of the tree is ready to run for the first time: runnable. */
SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(pg_wakeup_new, struct task_struct *p)
{
	struct pg_bpf_thread *th;

	if (!task_traced(p))
		return 0;
	th = thread_of(p->pid, p);
	if (th && !th->on_ts) {
		th->off_ts = bpf_ktime_get_ns();
		th->runnable = 1;
		th->wake_ts = 0;
		th->exec_ns = p->se.sum_exec_runtime;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
