// SPDX-License-Identifier: GPL-2.0
/*
 * sample.bpf.c - sampled CPU profiles: a program on a cpu-clock perf event (opened by the
 * runner for the benchmark's first process with inherit=1, so every thread and fork of the tree
 * carries it) copies the kernel stack, the user frame-pointer stack, the user registers and a
 * bounded snapshot of the user stack into a ring buffer record. The runner unwinds the snapshot
 * with DWARF (libdw) in user space. A user pc in code the kernel runs for uprobes (an
 * instruction single-stepped out of line, a trampoline) is first moved back to the
 * benchmark's code it stands for (fix_uprobes_pc). See docs/sampling.md.
 *
 * Off-CPU stacks: programs on sched_switch, sched_waking and sys_exit (loaded only with
 * off-CPU stacks on) time how long a traced thread was blocked, choose the intervals to send
 * and send the same record for them, weighted by that time (see "Off-CPU stacks" below and in
 * docs/sampling.md).
 *
 * `traced` is the runner's set of traced processes (shared with perfgate.bpf.c through
 * bpf_map__reuse_fd): exec records and off-CPU stacks are only sent for its members.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <stdbool.h>
#include <stddef.h>

#include "sample.h"

struct return_instance {
	unsigned long stack;
	unsigned long orig_ret_vaddr;
	struct return_instance *next;
} __attribute__((preserve_access_index));

/* vaddr: the probed address whose instruction is being single-stepped at xol_vaddr */
struct uprobe_task {
	struct return_instance *return_instances;
	unsigned long vaddr;
	unsigned long xol_vaddr;
} __attribute__((preserve_access_index));

/* the "[uprobes]" page: the uretprobe trampoline in its first slot, then the XOL slots */
struct xol_area {
	unsigned long vaddr;
} __attribute__((preserve_access_index));

struct hlist_node {
	struct hlist_node *next;
} __attribute__((preserve_access_index));

struct hlist_head {
	struct hlist_node *first;
} __attribute__((preserve_access_index));

/* an "[uprobes-trampoline]" page: what optimized (nop5) uprobes call (Linux 6.18, x86-64) */
struct uprobe_trampoline {
	struct hlist_node node;
	unsigned long vaddr;
} __attribute__((preserve_access_index));

struct uprobes_state {
	struct xol_area *xol_area;
	struct hlist_head head_tramps;
} __attribute__((preserve_access_index));

struct mm_struct {
	struct uprobes_state uprobes_state;
} __attribute__((preserve_access_index));

struct pt_regs___pg {
	unsigned long ip;
	unsigned long sp;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int flags;
	int pid;
	int tgid;
	struct task_struct *group_leader;
	char comm[16];
	struct uprobe_task *utask;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct linux_binprm;

#include "traced.h"

/* max_entries (bytes, a power of two) is set before load */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 23);
} samples SEC(".maps");

/*
 * Processes that had a sample since their exec. The first sample of a process wakes perfgate
 * at once (it reads the process's maps while the process lives); later ones do not, until the
 * ring buffer is a quarter full: in a VM, the wakeup of another CPU costs more than the
 * sample itself. perfgate also drains on a short timer.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} seen SEC(".maps");

__u64 nsamples = 0;	/* samples taken */
__u64 nlost = 0;	/* samples dropped: the ring buffer was full */
__u64 noffcpu = 0;	/* off-CPU stacks sent */
__u64 noffcpu_lost = 0;	/* of those, dropped: the ring buffer was full */
__u64 noffcpu_lost_ns = 0;	/* the blocked time they carried */
__u64 noffcpu_nostack = 0;	/* chosen intervals whose user stack had gone (see below) */
__u64 noffcpu_nostack_ns = 0;
/* samples taken on each CPU: where the benchmark ran, for the reference spin's weights */
__u64 cpu_samples[PG_SAMPLE_CPUS] = {};
/* blocked intervals shorter than this are sampled (set before load; > 0) */
const volatile __u64 offcpu_quantum_ns = 1000000;
/*
 * Where a wakeup runs, told from the kernel functions on the waker's stack (set before load
 * from kallsyms; irqentry_lo 0 when unknown: every waker is then not known):
 *  - [irqentry_lo, irqentry_hi): the kernel's interrupt and exception entry code (between
 *    __irqentry_text_start and __irqentry_text_end: asm_common_interrupt, the system vectors,
 *    the page fault): a wakeup under it runs in an interrupt, or in the softirqs run at its
 *    exit, in whatever task it interrupted;
 *  - [bh_lo, bh_hi): __local_bh_enable_ip, through which a task's own system call runs the
 *    softirqs it raised: a loopback packet it sent is received there, in its context, and the
 *    reader's wakeup is its own.
 */
const volatile __u64 irqentry_lo = 0, irqentry_hi = 0, bh_lo = 0, bh_hi = 0;

/* The frames of a waker's kernel stack searched, innermost first: deep enough for the receive
 * path of a loopback TCP packet under the sender's write (about 25 frames) */
#define PG_WAKER_DEPTH 64

struct pg_kstack {
	__u64 ips[PG_WAKER_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pg_kstack);
} waker_stack SEC(".maps");

/*
 * The off-CPU state of traced threads, by thread id. A hash map rather than task storage,
 * whose per-CPU lock fails every lookup on a CPU while a task preempted inside one is off it
 * (a sleep lost now and then on a loaded machine); LRU, so that the entries of threads that
 * have exited make room.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PG_OFFCPU_THREADS);
	__type(key, __u32);
	__type(value, struct pg_offcpu_state);
} offcpu_state SEC(".maps");

static const struct pg_offcpu_state offcpu_zero;

/* The user stack from @sp upwards, page by page, until the snapshot is full or a page is not
 * readable (the end of the stack mapping). Returns the bytes copied. */
static __always_inline __u32 copy_stack(struct pg_rec_sample *r, __u64 sp)
{
	__u32 off = 0;
	int i;

	for (i = 0; i <= PG_SAMPLE_STACK_BYTES / PG_SAMPLE_PAGE; i++) {
		__u64 addr = sp + off;
		__u32 chunk = PG_SAMPLE_PAGE - (__u32)(addr & (PG_SAMPLE_PAGE - 1));

		if (off >= PG_SAMPLE_STACK_BYTES)
			break;
		if (chunk > PG_SAMPLE_STACK_BYTES - off)
			chunk = PG_SAMPLE_STACK_BYTES - off;
		if (chunk > PG_SAMPLE_PAGE)
			chunk = PG_SAMPLE_PAGE;
		if (bpf_probe_read_user(&r->stack[off & (PG_SAMPLE_STACK_BYTES - 1)], chunk,
					(void *)addr))
			break;
		off += chunk;
	}
	return off > PG_SAMPLE_STACK_BYTES ? PG_SAMPLE_STACK_BYTES : off;
}

/* The return addresses perfgate's uretprobes hid on the stack (the snapshot holds the
 * kernel's trampoline there): where, and what they were. */
static __always_inline void copy_uretprobes(struct pg_rec_sample *r)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct return_instance *ri = BPF_CORE_READ(t, utask, return_instances);
	unsigned int n = 0;
	int i;

	for (i = 0; i < PG_SAMPLE_NRET; i++) {
		if (!ri)
			break;
		r->ret_slot[i] = BPF_CORE_READ(ri, stack);
		r->ret_addr[i] = BPF_CORE_READ(ri, orig_ret_vaddr);
		ri = BPF_CORE_READ(ri, next);
		n++;
	}
	r->nret = n;
}

#define PG_TRAMPS 4		/* uprobe trampoline pages looked at */
#define PG_TRAMP_BYTES 18

/*
 * The uprobe trampoline of optimized probes: a probed nop5 became `call tramp`, and the
 * trampoline (push rcx; push r11; push rax; mov; syscall; pop rax; pop r11; pop rcx; ret)
 * enters the kernel. Inside its syscall the kernel shows the probed function's own registers;
 * before and after, the pc is in the trampoline. Back to just after the probed nop5: the
 * return address of the call, and the stack pointer above it.
 */
static __always_inline __u32 fix_tramp_pc(struct task_struct *t, struct pt_regs *regs)
{
	struct hlist_node *n;
	unsigned long tramp = 0, off, pushed, ret;
	int i;

	if (!bpf_core_field_exists(t->mm->uprobes_state.head_tramps))
		return PG_FIX_NONE;
	n = BPF_CORE_READ(t, mm, uprobes_state.head_tramps.first);
	for (i = 0; i < PG_TRAMPS && n; i++) {
		struct uprobe_trampoline *tr = (void *)n -
			bpf_core_field_offset(struct uprobe_trampoline, node);
		unsigned long v = BPF_CORE_READ(tr, vaddr);

		if (regs->rip >= v && regs->rip < v + PG_TRAMP_BYTES) {
			tramp = v;
			break;
		}
		n = BPF_CORE_READ(n, next);
	}
	if (!tramp)
		return PG_FIX_NONE;
	off = regs->rip - tramp;
	pushed = off == 0 ? 0 : off < 3 ? 1 : off < 4 ? 2 : off <= 13 ? 3 : off < 16 ? 2 :
		 off < 17 ? 1 : 0;
	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)(regs->rsp + 8 * pushed)))
		return PG_FIX_NONE;
	regs->rip = ret;
	regs->rsp += 8 * pushed + 8;
	return PG_FIX_TRAMPOLINE;
}

/*
 * A user pc in the "[uprobes]" page names no function and cannot be unwound: move it (and the
 * stack pointer) back to the code the kernel runs there on the benchmark's behalf.
 *  - An XOL slot: the kernel single-steps a copy of the probed instruction at xol_vaddr (the
 *    pc is at the copy, or after it once stepped). The same offset from the original
 *    instruction: the other registers are the function's own at that point.
 *  - The uretprobe trampoline (x86-64, slot 0: push rax; push rcx; push r11; mov; syscall;
 *    pop r11; pop rcx; ret, or a lone int3 without the uretprobe syscall): a traced function
 *    has returned into it. Until the kernel handled the return, the innermost return
 *    instance holds where it returns to and the stack pointer of its call (the return
 *    address slot); after, the kernel wrote the return address where `ret` will pop it.
 * A pc outside the page may be in a nop5 trampoline (fix_tramp_pc). Returns enum
 * pg_sample_fix.
 */
#define PG_XOL_INSN_BYTES 16	/* MAX_UINSN_BYTES */
#define PG_URET_SYSCALL_END 13	/* the trampoline's offset after its syscall */
#define PG_URET_TRAMP_BYTES 17

static __always_inline __u32 fix_uprobes_pc(struct pt_regs *regs, unsigned long area)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct uprobe_task *ut = BPF_CORE_READ(t, utask);
	unsigned long xol, off, pushed, entry, stack, ret;
	struct return_instance *ri;

	if (!area || regs->rip < area || regs->rip >= area + PG_SAMPLE_PAGE)
		return fix_tramp_pc(t, regs);
	if (!ut)
		return PG_FIX_NONE;
	xol = BPF_CORE_READ(ut, xol_vaddr);
	if (xol && regs->rip >= xol && regs->rip < xol + PG_XOL_INSN_BYTES) {
		regs->rip = BPF_CORE_READ(ut, vaddr) + (regs->rip - xol);
		return PG_FIX_XOL;
	}
	off = regs->rip - area;
	if (off >= PG_URET_TRAMP_BYTES)
		return PG_FIX_NONE;
	/* registers the trampoline has pushed at this offset */
	pushed = off == 0 ? 0 : off == 1 ? 1 : off < 4 ? 2 : off <= PG_URET_SYSCALL_END ? 3 :
		 off < 16 ? 2 : 1;
	entry = regs->rsp + 8 * pushed;
	ri = BPF_CORE_READ(ut, return_instances);
	stack = ri ? BPF_CORE_READ(ri, stack) + 8 : 0;
	if (ri && (stack == entry || stack == regs->rsp)) {
		regs->rip = BPF_CORE_READ(ri, orig_ret_vaddr);
		regs->rsp = stack;
		return PG_FIX_URETPROBE;
	}
	if (off >= PG_URET_SYSCALL_END && !bpf_probe_read_user(&ret, sizeof(ret),
							       (void *)(entry - 8))) {
		regs->rip = ret;
		regs->rsp = entry;
		return PG_FIX_URETPROBE;
	}
	return PG_FIX_NONE;
}

static __always_inline __u64 wakeup(__u32 tgid)
{
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&seen, &tgid)) {
		bpf_map_update_elem(&seen, &tgid, &one, BPF_ANY);
		return BPF_RB_FORCE_WAKEUP;
	}
	if (bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > (1 << 21))
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/*
 * Fill the user part of @r from the current task: the user frame-pointer stack, the user
 * registers (moved out of the uprobes page where a probe's code runs), the snapshot of the
 * user stack and the pending uretprobes. @ctx is the program's context (bpf_get_stack wants
 * it).
 */
static __always_inline void fill_user(void *ctx, struct pg_rec_sample *r, __u64 id, __u32 kind)
{
	struct pt_regs regs;
	long ur;

	r->h.kind = kind;
	r->h.pid = (__u32)(id >> 32);
	r->h.tid = (__u32)id;
	r->h.pad = 0;
	r->ubytes = (int)bpf_get_stack(ctx, r->uips, sizeof(r->uips), BPF_F_USER_STACK);
	r->stack_len = 0;
	r->user_ok = 0;
	/* the user registers: saved at kernel entry, or the interrupted ones */
	ur = bpf_task_pt_regs(bpf_get_current_task_btf());
	r->fix = PG_FIX_NONE;
	r->uprobes_page = BPF_CORE_READ((struct task_struct *)bpf_get_current_task_btf(), mm,
					uprobes_state.xol_area, vaddr);
	if (ur && !bpf_probe_read_kernel(&regs, sizeof(regs), (void *)ur) && (regs.cs & 3)) {
		r->fix = fix_uprobes_pc(&regs, r->uprobes_page);
		if (r->fix && r->ubytes >= 8)
			r->uips[0] = regs.rip;
		r->regs[0] = regs.rax;
		r->regs[1] = regs.rdx;
		r->regs[2] = regs.rcx;
		r->regs[3] = regs.rbx;
		r->regs[4] = regs.rsi;
		r->regs[5] = regs.rdi;
		r->regs[6] = regs.rbp;
		r->regs[7] = regs.rsp;
		r->regs[8] = regs.r8;
		r->regs[9] = regs.r9;
		r->regs[10] = regs.r10;
		r->regs[11] = regs.r11;
		r->regs[12] = regs.r12;
		r->regs[13] = regs.r13;
		r->regs[14] = regs.r14;
		r->regs[15] = regs.r15;
		r->regs[16] = regs.rip;
		r->user_ok = 1;
		r->stack_len = copy_stack(r, regs.rsp);
	}
	copy_uretprobes(r);
}

SEC("perf_event")
int pg_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pg_rec_sample *r;
	__u32 cpu;

	if (!(id >> 32))
		return 0;	/* the idle task */
	__sync_fetch_and_add(&nsamples, 1);
	cpu = bpf_get_smp_processor_id();
	if (cpu < PG_SAMPLE_CPUS)
		__sync_fetch_and_add(&cpu_samples[cpu], 1);
	r = bpf_ringbuf_reserve(&samples, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&nlost, 1);
		return 0;
	}
	r->weight = 0;
	r->kbytes = (int)bpf_get_stack(ctx, r->kips, sizeof(r->kips), 0);
	fill_user(ctx, r, id, PG_REC_SAMPLE);
	bpf_ringbuf_submit(r, wakeup((__u32)(id >> 32)));
	return 0;
}

/*
 * Off-CPU stacks (docs/sampling.md, "Off-CPU stacks"). Taking a thread's stacks costs
 * microseconds, and a switch-heavy program switches hundreds of thousands of times a second,
 * so they are taken only for the blocked intervals that are sent, decided when the interval
 * is over:
 *  - switch-out of a traced thread to sleep (prev_state not TASK_RUNNING; a preempted thread
 *    stays runnable and is not profiled): the time, and the user pc and stack pointer;
 *  - its wakeup (sched_waking, in the waker's context): the end of the blocked time d. An
 *    interval of at least offcpu_quantum_ns is sent with weight d; a shorter one with
 *    probability d / offcpu_quantum_ns and weight offcpu_quantum_ns (so the expected weight is
 *    d for every interval, and at most about two stacks go out per quantum of blocked time).
 *    A chosen interval gets its kernel stack (bpf_get_task_stack: the thread is not running)
 *    and who woke it (waker()), and waits for its user stack. Decided at the wakeup rather
 *    than the switch-in, because the tracepoint does not report every
 *    switch-in on every machine (switch_out() in perfgate.bpf.c); a switch-in that finds the
 *    interval still open (its wakeup not seen) decides it there;
 *  - the thread's next system call exit, in its own context: its user stack is the one it
 *    blocked with when the user pc and stack pointer are still those of the switch-out (it
 *    has not run user code since); then the user part is taken as a CPU sample's and the
 *    record goes out. A thread that blocked outside a system call (a page fault) has run on
 *    by then: its interval is counted in noffcpu_nostack instead.
 * The programs are loaded only with off-CPU stacks on. Only the switch-out looks at the set of
 * traced processes; the others look the thread up in offcpu_state, where only threads that
 * were traced when they went to sleep have an entry.
 */
#define PG_TASK_RUNNING 0
#define PG_TASK_DEAD 0x80	/* its last switch-out: the thread exits */

static __always_inline void user_pc_sp(__u64 *pc, __u64 *sp)
{
	struct pt_regs___pg *regs = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());

	*pc = BPF_CORE_READ(regs, ip);
	*sp = BPF_CORE_READ(regs, sp);
}

static __always_inline void drop_pending(struct pg_offcpu_state *st)
{
	if (!st->weight)
		return;
	__sync_fetch_and_add(&noffcpu_nostack, 1);
	__sync_fetch_and_add(&noffcpu_nostack_ns, st->weight);
	st->weight = 0;
}

#define PG_PF_KTHREAD 0x00200000

/*
 * The kind of wakeup the current stack (@ctx's) is in: PG_WAKER_IRQ under the interrupt entry
 * code, PG_WAKER_SAME (the current task's own) under __local_bh_enable_ip or under neither,
 * whichever comes first from the innermost frame; PG_WAKER_NONE when it cannot be told.
 */
static __always_inline int wakeup_context(void *ctx)
{
	struct pg_kstack *ks;
	__u32 zero = 0;
	long n;

	if (!irqentry_lo)
		return PG_WAKER_NONE;
	ks = bpf_map_lookup_elem(&waker_stack, &zero);
	if (!ks)
		return PG_WAKER_NONE;
	n = bpf_get_stack(ctx, ks->ips, sizeof(ks->ips), 0);
	if (n <= 0)
		return PG_WAKER_NONE;
	for (int i = 0; i < PG_WAKER_DEPTH && i < (int)((__u64)n / 8); i++) {
		__u64 ip = ks->ips[i];

		if (ip >= bh_lo && ip < bh_hi)
			return PG_WAKER_SAME;
		if (ip >= irqentry_lo && ip < irqentry_hi)
			return PG_WAKER_IRQ;
	}
	return PG_WAKER_SAME;
}

/*
 * Who is waking @t, in sched_waking (@ctx its context): the current task, unless the wakeup
 * runs in an interrupt (wakeup_context()) or in the idle task. A kernel thread's is a kernel
 * wakeup, whatever context it runs in.
 */
static __always_inline void waker(void *ctx, struct pg_offcpu_state *st, struct task_struct *t)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tgid = (__u32)cur->tgid;
	int kind;

	st->waker_pid = 0;
	st->waker_comm[0] = 0;
	if (!tgid) {
		st->waker = PG_WAKER_IRQ;
	} else if (cur->flags & PG_PF_KTHREAD) {
		st->waker = PG_WAKER_KERNEL;
		st->waker_pid = tgid;
	} else if ((kind = wakeup_context(ctx)) != PG_WAKER_SAME) {
		st->waker = kind;
	} else {
		st->waker = tgid == (__u32)t->tgid ? PG_WAKER_SAME : PG_WAKER_OTHER;
		st->waker_pid = tgid;
		BPF_CORE_READ_STR_INTO(&st->waker_comm, cur, group_leader, comm);
	}
}

/*
 * The end, at @end, of the blocked interval of @t (the thread of @st, not running): chosen or
 * not, and when chosen its weight, kernel stack and, @woken (in its waker's context), who
 * woke it. Of several intervals in one system call, the waker of the longest is kept.
 */
static __always_inline void interval_end(void *ctx, struct pg_offcpu_state *st,
					 struct task_struct *t, __u64 end, bool woken)
{
	__u64 d = end > st->t_out ? end - st->t_out : 0, w;

	st->t_out = 0;
	if (d >= offcpu_quantum_ns)
		w = d;
	else if (bpf_get_prandom_u32() % offcpu_quantum_ns < d)
		w = offcpu_quantum_ns;
	else
		return;
	/* a chosen interval of another user stack still waiting: it has run on since */
	if (st->weight && (st->pc != st->wpc || st->sp != st->wsp))
		drop_pending(st);
	if (st->weight) {	/* blocked again in the same system call */
		st->weight += w;
	} else {
		st->weight = w;
		st->wpc = st->pc;
		st->wsp = st->sp;
		st->kbytes = (int)bpf_get_task_stack(t, st->kips, sizeof(st->kips), 0);
		st->wmax = 0;
	}
	if (w <= st->wmax)
		return;
	st->wmax = w;
	if (woken)
		waker(ctx, st, t);
	else
		st->waker = PG_WAKER_NONE;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(pg_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 ptgid = (__u32)prev->tgid, ptid = (__u32)prev->pid, ntid = (__u32)next->pid;
	struct pg_offcpu_state *st;

	if (ptgid && (prev_state & PG_TASK_DEAD)) {
		/* no interval to time: make room, and nothing for a later thread of its id */
		bpf_map_delete_elem(&offcpu_state, &ptid);
	} else if (ptgid && bpf_map_lookup_elem(&traced, &ptgid)) {
		st = bpf_map_lookup_elem(&offcpu_state, &ptid);
		if (!st) {
			bpf_map_update_elem(&offcpu_state, &ptid, &offcpu_zero, BPF_NOEXIST);
			st = bpf_map_lookup_elem(&offcpu_state, &ptid);
		}
		if (st) {
			st->t_out = 0;
			if (!preempt && (prev_state & 0xff) != PG_TASK_RUNNING) {
				user_pc_sp(&st->pc, &st->sp);
				st->t_out = bpf_ktime_get_ns();
			}
		}
	}
	/* only a thread that was traced when it went to sleep has an entry; its wakeup, when
	 * seen, has ended the interval */
	st = ntid ? bpf_map_lookup_elem(&offcpu_state, &ntid) : NULL;
	if (st && st->t_out)
		interval_end(ctx, st, next, bpf_ktime_get_ns(), false);
	return 0;
}

/*
 * The end of a traced thread's sleep: it is runnable from here on. sched_waking rather than
 * sched_wakeup: the kernel may queue a wakeup to the sleeper's CPU and report sched_wakeup
 * there (from an interrupt, or the idle task), where the current task is not the waker.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(pg_offcpu_wakeup, struct task_struct *p)
{
	__u32 tid = (__u32)p->pid;
	struct pg_offcpu_state *st = tid ? bpf_map_lookup_elem(&offcpu_state, &tid) : NULL;

	if (st && st->t_out)
		interval_end(ctx, st, p, bpf_ktime_get_ns(), true);
	return 0;
}

/* A traced thread back from a system call with a chosen interval: its user stack, and out. */
SEC("tp_btf/sys_exit")
int BPF_PROG(pg_offcpu_sysexit, struct pt_regs *uregs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), pc, sp, w;
	__u32 tid = (__u32)id;
	struct pg_offcpu_state *st;
	struct pg_rec_sample *r;

	st = tid ? bpf_map_lookup_elem(&offcpu_state, &tid) : NULL;
	if (!st || !st->weight)
		return 0;
	user_pc_sp(&pc, &sp);
	if (pc != st->wpc || sp != st->wsp) {
		drop_pending(st);
		return 0;
	}
	w = st->weight;
	st->weight = 0;
	__sync_fetch_and_add(&noffcpu, 1);
	r = bpf_ringbuf_reserve(&samples, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&noffcpu_lost, 1);
		__sync_fetch_and_add(&noffcpu_lost_ns, w);
		return 0;
	}
	fill_user(ctx, r, id, PG_REC_OFFCPU);
	r->weight = w;
	r->kbytes = st->kbytes;
	__builtin_memcpy(r->kips, st->kips, sizeof(r->kips));
	r->waker = st->waker;
	r->waker_pid = st->waker_pid;
	__builtin_memcpy(r->waker_comm, st->waker_comm, sizeof(r->waker_comm));
	bpf_ringbuf_submit(r, wakeup((__u32)(id >> 32)));
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pg_exec, struct task_struct *p, __u32 old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct pg_rec_exec *r;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	r = bpf_ringbuf_reserve(&samples, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&nlost, 1);
		return 0;
	}
	r->h.kind = PG_REC_EXEC;
	r->h.pid = tgid;
	r->h.tid = (__u32)bpf_get_current_pid_tgid();
	r->h.pad = 0;
	/* a new address space: wake perfgate on its first sample */
	bpf_map_delete_elem(&seen, &tgid);
	bpf_ringbuf_submit(&r->h, BPF_RB_FORCE_WAKEUP);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
