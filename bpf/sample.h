/* SPDX-License-Identifier: MIT */
/*
 * bpf/sample.h - plain types shared by sample.bpf.c and runner/profile/sampler.c (libbpf-tools
 * style).
 *
 * One ring buffer record per cpu-clock sample of a traced process: its kernel stack, its user
 * frame-pointer stack (bpf_get_stack), the user registers the DWARF unwinder starts from, and a
 * snapshot of the user stack from the stack pointer up, copied page by page until
 * PG_SAMPLE_STACK_BYTES or the end of the stack mapping. A second, small record announces an
 * exec, after which a process is a new address space.
 *
 * A sample whose user pc is in the uprobes page (an instruction single-stepped out of line,
 * the uretprobe trampoline) carries the registers of the code the kernel runs there on the
 * benchmark's behalf instead (`fix` says which), and its snapshot starts at that stack
 * pointer, so that it unwinds like any other (docs/sampling.md, "Probed instructions").
 *
 * Off-CPU stacks (PG_REC_OFFCPU) are the same record with `weight` the nanoseconds a traced
 * thread was blocked there (from its switch-out to sleep to its wakeup; sampled below a
 * quantum: sample.bpf.c), its kernel stack taken when it is switched in again (kept in struct
 * pg_offcpu_state) and the rest when it returns from the system call it blocked in, with who
 * woke it (enum pg_waker). Samples have weight 0.
 */
#ifndef PG_BPF_SAMPLE_H
#define PG_BPF_SAMPLE_H

#define PG_SAMPLE_KFRAMES 64		/* kernel frames kept */
#define PG_SAMPLE_UFRAMES 128		/* user frame-pointer frames kept */
#define PG_SAMPLE_STACK_BYTES 16384	/* user stack snapshot: a power of two */
#define PG_SAMPLE_PAGE 4096
#define PG_SAMPLE_NREGS 17		/* x86-64 DWARF registers 0..16 (rax .. rip) */
#define PG_SAMPLE_NRET 32		/* pending uretprobe returns kept */
#define PG_SAMPLE_CPUS 1024		/* CPUs whose samples are counted (cpu_samples) */

enum pg_sample_kind {
	PG_REC_SAMPLE = 1,
	PG_REC_EXEC = 2,
	PG_REC_OFFCPU = 3,	/* a struct pg_rec_sample taken at a switch-out, weight = ns */
};

/* How the user pc and stack pointer of a sample were moved out of the "[uprobes]" page. */
enum pg_sample_fix {
	PG_FIX_NONE = 0,
	PG_FIX_XOL = 1,		/* a single-stepped instruction: to the probed original */
	PG_FIX_URETPROBE = 2,	/* the uretprobe trampoline: to where the function returns */
	PG_FIX_TRAMPOLINE = 3,	/* the nop5 uprobe trampoline: to after the probed nop5 */
};

/*
 * Who woke a blocked thread (an off-CPU record's waker): the task running the wakeup
 * (sched_waking), named by its process's comm (its thread group leader's).
 */
enum pg_waker {
	PG_WAKER_NONE = 0,	/* not seen: the interval was decided at the switch-in */
	PG_WAKER_SAME = 1,	/* a thread of the sleeper's own process */
	PG_WAKER_OTHER = 2,	/* another process */
	PG_WAKER_KERNEL = 3,	/* a kernel thread */
	PG_WAKER_IRQ = 4,	/* an interrupt or softirq (I/O, a timer), or the idle task */
};
#define PG_WAKER_COMM 16	/* TASK_COMM_LEN */

/* Header common to every record. */
struct pg_rec_hdr {
	unsigned int kind;		/* enum pg_sample_kind */
	unsigned int pid;		/* tgid: the address space */
	unsigned int tid;
	unsigned int pad;
};

struct pg_rec_sample {
	struct pg_rec_hdr h;
	int kbytes;			/* bytes of kips filled, or a negative errno */
	int ubytes;			/* bytes of uips filled, or a negative errno */
	unsigned int stack_len;		/* bytes of stack copied */
	unsigned int user_ok;		/* regs hold the user registers */
	unsigned long long weight;	/* PG_REC_OFFCPU: nanoseconds blocked; else 0 */
	/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	unsigned long long regs[PG_SAMPLE_NREGS];
	unsigned long long kips[PG_SAMPLE_KFRAMES];
	unsigned long long uips[PG_SAMPLE_UFRAMES];
	/* pending uretprobes (perfgate's own return probes), innermost first: the stack slot
	 * whose return address the kernel replaced with its trampoline, and the real one */
	unsigned int nret;
	unsigned int fix;		/* enum pg_sample_fix: regs (pc, sp) were moved */
	unsigned long long uprobes_page;	/* the "[uprobes]" page, or 0 */
	unsigned long long ret_slot[PG_SAMPLE_NRET];
	unsigned long long ret_addr[PG_SAMPLE_NRET];
	/* PG_REC_OFFCPU: who woke the thread (enum pg_waker; waker_comm set for PG_WAKER_SAME
	 * and PG_WAKER_OTHER, else empty) */
	unsigned int waker;
	unsigned int waker_pid;		/* the waker's tgid, or 0 */
	char waker_comm[PG_WAKER_COMM];
	/* one page of slack so that every bounded copy stays inside the record */
	unsigned char stack[PG_SAMPLE_STACK_BYTES + PG_SAMPLE_PAGE];
};

struct pg_rec_exec {
	struct pg_rec_hdr h;
};

/*
 * A traced thread's off-CPU state: the interval it is blocked in, and a chosen interval waiting
 * for its user stack (weight > 0: its kernel stack, and the user pc and stack pointer it
 * blocked with).
 */
#define PG_OFFCPU_THREADS 8192	/* threads with off-CPU state at once (LRU) */

struct pg_offcpu_state {
	unsigned long long t_out;	/* ktime of the switch-out to sleep; 0: not asleep (or
					 * its interval already decided, at its wakeup) */
	unsigned long long pc, sp;	/* user pc and stack pointer at that switch-out */
	unsigned long long weight;	/* the chosen interval's nanoseconds, or 0: none */
	unsigned long long wpc, wsp;	/* its user pc and stack pointer */
	int kbytes;			/* its kernel stack: bytes of kips, or a negative errno */
	unsigned int waker;		/* who woke it (enum pg_waker): of its longest interval */
	unsigned long long wmax;	/* that interval's weight */
	unsigned int waker_pid;
	char waker_comm[PG_WAKER_COMM];
	unsigned long long kips[PG_SAMPLE_KFRAMES];
};

#endif
