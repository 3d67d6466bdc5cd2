/* SPDX-License-Identifier: MIT */
/*
 * diff/probeframes.h - perfgate's own cost in sampled stacks, folded into one frame. Pure
 * computation: no I/O, no logging.
 *
 * A sample taken while the kernel handles one of perfgate's uprobes or uretprobes, or runs one
 * of its BPF programs, has the kernel frames of that work on top of the benchmark's stack:
 * the breakpoint or single-step exception (handle_swbp, exc_debug_user, uprobe_notify_resume),
 * the uprobe and uretprobe syscalls (__x64_sys_uprobe, handle_syscall_uprobe,
 * __x64_sys_uretprobe, uprobe_handle_trampoline), the uprobe_multi link (handler_chain,
 * uprobe_multi_link_handler, uprobe_prog_run, arch_uretprobe_*) and the programs
 * (bpf_prog_TAG_pg_entry, _pg_return; _pg_fork, _pg_exit, _pg_exec from tracepoints).
 *
 * Folding replaces them with one frame, PG_PROBE_FRAME:
 *  - when the first kernel frame of uprobes in the stack is one of a probe firing, every
 *    kernel frame of the stack (from the first " [k]" frame, the syscall or exception
 *    entry, on) is probe cost.
 *    The user frames that stay end with the function the probe fired in: the traced function
 *    for an entry probe, the function returned into for a return probe. User frames
 *    directly below the kernel ones that name no function (a "module+0xADDR" or "[unknown]"
 *    address, "[uprobes]": the uretprobe trampoline or the single-step slot, which cannot be
 *    unwound) are dropped with them: such a sample's stack becomes "[perfgate probes]" at
 *    the root when nothing else is left.
 *  - uprobes' bookkeeping in the kernel's own work (uprobe_mmap installing breakpoints when
 *    an exec maps the binary, uprobe_copy_process at fork, ...: a frame with "uprobe" in its
 *    name, no probe firing below it) is folded from that frame on: the kernel frames below
 *    it (the execve, the fork) are the benchmark's and stay.
 *  - a BPF program of perfgate's run from a tracepoint (fork, exit, exec) is folded from the
 *    tracing glue that called it (bpf_trace_run*, __bpf_trace_*, trace_call_bpf, ...): the
 *    kernel frames below it (do_exit, ...) are the benchmark's and stay.
 * The frames are kept in run files; folding happens when stacks are read (perfgate folded,
 * flamegraph, compare --flamegraph, unless --keep-probe-frames), so older run files fold too.
 *
 *	if (!keep_probe_frames && pg_run_fold_probes(&run))
 *		... -ENOMEM or -EOVERFLOW ...
 */
#ifndef PG_DIFF_PROBEFRAMES_H
#define PG_DIFF_PROBEFRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/run.h"

#define PG_PROBE_FRAME "[perfgate probes]"

/*
 * Does folded stack @s hold perfgate's frames? If so, *keep is the length of the prefix of
 * @s that stays (0 when nothing does; without the ';' that followed it).
 */
bool pg_probe_split(const char *s, size_t *keep);

/* @s with perfgate's frames folded into PG_PROBE_FRAME (malloc'd), or NULL on ENOMEM. */
char *pg_probe_fold(const char *s);

/*
 * Fold the stacks of every repetition of @run; repetitions stay sorted and unique (stacks
 * that become equal are merged, their counts added). 0, -ENOMEM, or -EOVERFLOW when merged
 * counts overflow (the run is then valid but partly folded).
 */
int pg_run_fold_probes(struct pg_run *run);

#endif
