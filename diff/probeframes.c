// SPDX-License-Identifier: MIT
/*
 * diff/probeframes.c - folding perfgate's own frames in sampled stacks (see probeframes.h): which
 * frames are probe cost, where a stack's probe cost starts, and folding a whole run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probeframes.h"

#define KSUFFIX PG_KERNEL_MARK
#define KSUFFIX_LEN (sizeof(KSUFFIX) - 1)

/* a frame: @s[0..len) of a folded stack */
struct frame {
	const char *s;
	size_t len;
};

static bool is_kernel(struct frame f)
{
	return pg_frame_kernel(f.s, f.len);
}

static bool has(struct frame f, const char *what)
{
	size_t n = strlen(what);

	for (size_t i = 0; i + n <= f.len; i++)
		if (!memcmp(f.s + i, what, n))
			return true;
	return false;
}

static bool starts(struct frame f, const char *prefix)
{
	size_t n = strlen(prefix);

	return f.len >= n && !memcmp(f.s, prefix, n);
}

static bool is(struct frame f, const char *name)
{
	size_t n = strlen(name);

	return f.len == n + KSUFFIX_LEN && !memcmp(f.s, name, n);
}

/* A kernel frame of a probe firing: its exception or syscall, its handlers and programs. */
static bool is_hit_frame(struct frame f)
{
	static const char *const names[] = {
		"handle_swbp", "handle_singlestep", "handler_chain", "handle_trampoline",
		"exc_debug_user", "do_int3_user", "uprobe_notify_resume", "__x64_sys_uprobe",
		"handle_syscall_uprobe", "__x64_sys_uretprobe", "uprobe_handle_trampoline",
		"uprobe_multi_link_handler", "uprobe_multi_link_ret_handler", "uprobe_prog_run",
		"uprobe_dispatcher", "uretprobe_dispatcher",
	};

	if (starts(f, "arch_uprobe_") || starts(f, "arch_uretprobe_"))
		return true;
	if (starts(f, "bpf_prog_") && (has(f, "_pg_entry" KSUFFIX) || has(f, "_pg_return" KSUFFIX)))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (is(f, names[i]))
			return true;
	return false;
}

/* Any kernel frame of uprobes: a probe firing, or the bookkeeping of probed processes
 * (uprobe_mmap installing breakpoints at exec, uprobe_copy_process at fork, ...). */
static bool is_uprobe_frame(struct frame f)
{
	return is_hit_frame(f) || has(f, "uprobe") || has(f, "uretprobe");
}

/* One of perfgate's BPF programs (bpf_prog_TAG_pg_NAME [k]). */
static bool is_pg_prog(struct frame f)
{
	return starts(f, "bpf_prog_") && has(f, "_pg_");
}

/* The kernel's code between a tracepoint and the BPF program attached to it. */
static bool is_tracing_glue(struct frame f)
{
	static const char *const prefixes[] = {
		"bpf_trace_run", "__bpf_trace_", "trace_call_bpf", "__traceiter_", "bpf_prog_run",
		"__bpf_prog_run", "perf_trace_",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts(f, prefixes[i]))
			return true;
	return false;
}

/* A user frame that names no function: an address, or the uprobes page. */
static bool is_pseudo(struct frame f)
{
	return (f.len == 9 && !memcmp(f.s, "[uprobes]", 9)) ||
	       (f.len == 9 && !memcmp(f.s, "[unknown]", 9)) || has(f, "+0x");
}

static struct frame frame_at(const char *s, size_t off)
{
	return (struct frame){ s + off, strcspn(s + off, ";") };
}

/* The offset of the frame before the one at @off (> 0) of @s. */
static size_t prev_frame(const char *s, size_t off)
{
	size_t p = off - 1;	/* the ';' that ends it */

	while (p && s[p - 1] != ';')
		p--;
	return p;
}

bool pg_probe_split(const char *s, size_t *keep)
{
	size_t kstart = SIZE_MAX, first = SIZE_MAX, prog = SIZE_MAX, start;
	bool trap;

	/* the first kernel frame, the first of uprobes, the first of perfgate's programs */
	for (size_t off = 0, len; s[off]; off += len + (s[off + len] == ';')) {
		struct frame f = frame_at(s, off);

		len = f.len;
		if (!is_kernel(f))
			continue;
		if (kstart == SIZE_MAX)
			kstart = off;
		if (first == SIZE_MAX && is_uprobe_frame(f))
			first = off;
		if (prog == SIZE_MAX && is_pg_prog(f))
			prog = off;
	}
	/* a breakpoint trap from user code (its first kernel frame): only uprobes put one
	 * there, and a sample taken on the way back to user space shows no uprobe frame */
	trap = kstart != SIZE_MAX && is(frame_at(s, kstart), "asm_exc_int3");
	if (trap || (first != SIZE_MAX && is_hit_frame(frame_at(s, first)))) {
		/* a probe fired: every kernel frame, and the user frames without a function
		 * right below them */
		for (start = kstart; start && is_pseudo(frame_at(s, prev_frame(s, start)));)
			start = prev_frame(s, start);
	} else if (first != SIZE_MAX && (prog == SIZE_MAX || first < prog)) {
		/* uprobes' bookkeeping in the kernel's own work: from there on */
		start = first;
	} else if (prog != SIZE_MAX) {
		/* a tracepoint's program: from the glue that called it */
		for (start = prog; start && is_tracing_glue(frame_at(s, prev_frame(s, start)));)
			start = prev_frame(s, start);
	} else {
		return false;
	}
	*keep = start ? start - 1 : 0;
	return true;
}

char *pg_probe_fold(const char *s)
{
	size_t keep = strlen(s);
	char *out;

	if (!pg_probe_split(s, &keep))
		return strdup(s);
	out = malloc(keep + 1 + sizeof(PG_PROBE_FRAME));
	if (!out)
		return NULL;
	memcpy(out, s, keep);
	if (keep)
		out[keep++] = ';';
	memcpy(out + keep, PG_PROBE_FRAME, sizeof(PG_PROBE_FRAME));
	return out;
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct pg_stack *)a)->folded, ((const struct pg_stack *)b)->folded);
}

/* Fold the stacks of @rep; sort and merge them again if any changed. */
static int fold_rep(struct pg_rep *rep)
{
	bool changed = false;
	size_t k = 0;

	for (size_t i = 0; i < rep->nstacks; i++) {
		size_t keep;
		char *f;

		if (!pg_probe_split(rep->stacks[i].folded, &keep))
			continue;
		f = pg_probe_fold(rep->stacks[i].folded);
		if (!f)
			return -ENOMEM;
		free(rep->stacks[i].folded);
		rep->stacks[i].folded = f;
		changed = true;
	}
	if (!changed)
		return 0;
	qsort(rep->stacks, rep->nstacks, sizeof(*rep->stacks), cmp_stack);
	for (size_t i = 0; i < rep->nstacks; i++) {
		struct pg_stack st = rep->stacks[i];

		if (!k || strcmp(rep->stacks[k - 1].folded, st.folded)) {
			rep->stacks[k++] = st;
			continue;
		}
		if (st.count > UINT64_MAX - rep->stacks[k - 1].count) {
			/* keep every stack: sorted, not all merged */
			memmove(&rep->stacks[k], &rep->stacks[i],
				(rep->nstacks - i) * sizeof(*rep->stacks));
			rep->nstacks = k + rep->nstacks - i;
			return -EOVERFLOW;
		}
		rep->stacks[k - 1].count += st.count;
		free(st.folded);
	}
	rep->nstacks = k;
	return 0;
}

int pg_run_fold_probes(struct pg_run *run)
{
	for (size_t r = 0; r < run->nreps; r++) {
		int err = fold_rep(&run->reps[r]);

		if (err)
			return err;
	}
	return 0;
}
