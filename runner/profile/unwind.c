// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "unwind.h"

#define PG_MAX_REFRESH 8

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* ---- the thread callbacks: registers and memory come from the current sample ---- */

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct pg_aspace *as = dwfl_arg;

	if (*thread_argp || !as->cur)
		return 0;
	*thread_argp = as;
	return (pid_t)as->cur->h.tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	struct pg_aspace *as = dwfl_arg;

	*thread_argp = as;
	return as->cur != NULL;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct pg_aspace *as = dwfl_arg;
	const struct pg_rec_sample *r = as->cur;
	uint64_t sp = r->regs[7];

	if (addr >= sp && addr + sizeof(*result) <= sp + r->stack_len && addr + 8 > addr) {
		memcpy(result, r->stack + (addr - sp), sizeof(*result));
		/* a return address a uretprobe replaced with the trampoline: the real one */
		for (unsigned int i = 0; i < r->nret && i < PG_SAMPLE_NRET; i++)
			if (r->ret_slot[i] == addr)
				*result = r->ret_addr[i];
		return true;
	}
	/* above the snapshot, within a plausible stack distance: the snapshot was too short */
	if (addr >= sp + r->stack_len && addr - sp < (64u << 20) &&
	    r->stack_len >= PG_SAMPLE_STACK_BYTES)
		as->oob = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct pg_aspace *as = thread_arg;
	Dwarf_Word regs[PG_SAMPLE_NREGS];

	for (int i = 0; i < PG_SAMPLE_NREGS; i++)
		regs[i] = as->cur->regs[i];
	dwfl_thread_state_register_pc(thread, regs[16]);
	return dwfl_thread_state_registers(thread, 0, 16, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- address spaces ---- */

static int load_vdso(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		     void *arg)
{
	Dwarf_Addr bias;

	if (!strncmp(name, "[vdso", 5))
		dwfl_module_getelf(mod, &bias);	/* read it from the live process now */
	return DWARF_CB_OK;
}

static int first_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		     void *arg)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	if (!elf)
		return DWARF_CB_OK;
	*(Elf **)arg = elf;
	return DWARF_CB_ABORT;
}

static bool report_maps(struct pg_aspace *as, bool add)
{
	int rc;

	if (add)
		dwfl_report_begin_add(as->dwfl);
	else
		dwfl_report_begin(as->dwfl);
	rc = dwfl_linux_proc_report(as->dwfl, as->pid);
	if (dwfl_report_end(as->dwfl, NULL, NULL) || rc) {
		pg_debug("cannot read the mappings of process %d: %s", (int)as->pid,
			 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		return false;
	}
	dwfl_getmodules(as->dwfl, load_vdso, NULL, 0);
	return true;
}

struct pg_aspace *pg_aspace_new(pid_t pid)
{
	struct pg_aspace *as = calloc(1, sizeof(*as));
	Elf *elf = NULL;

	if (!as)
		return NULL;
	as->pid = pid;
	as->dwfl = dwfl_begin(&proc_callbacks);
	if (!as->dwfl) {
		free(as);
		return NULL;
	}
	as->alive = report_maps(as, false);
	if (as->alive) {
		dwfl_getmodules(as->dwfl, first_elf, &elf, 0);
		as->attached = elf && dwfl_attach_state(as->dwfl, elf, pid, &thread_callbacks, as);
		if (!as->attached)
			pg_debug("process %d: no DWARF unwinding: %s", (int)pid, dwfl_errmsg(-1));
	}
	return as;
}

void pg_aspace_free(struct pg_aspace *as)
{
	if (!as)
		return;
	dwfl_end(as->dwfl);
	free(as);
}

/* Does sample @r hold a user address (its pc, or one of its frame-pointer return addresses)
 * that no module of @as covers? */
static bool misses(struct pg_aspace *as, const struct pg_rec_sample *r)
{
	size_t n = r->ubytes > 0 ? (size_t)r->ubytes / 8 : 0;
	bool miss = r->user_ok && !dwfl_addrmodule(as->dwfl, r->regs[16]);

	for (size_t i = 0; i < n && !miss; i++)
		miss = r->uips[i] && !dwfl_addrmodule(as->dwfl, r->uips[i]);
	return miss;
}

void pg_aspace_check(struct pg_aspace *as, const struct pg_rec_sample *r)
{
	as->seen++;
	if (!as->alive)
		return;
	/* the first sample may come from the dynamic loader, before the libraries are mapped:
	 * re-read on samples 2, 4, 8, ... of the address space too, not only on a miss (the
	 * lookups are skipped once the refreshes are used up) */
	if (as->refreshes < PG_MAX_REFRESH && misses(as, r))
		as->refreshes++;
	else if (as->seen & (as->seen - 1))
		return;
	as->alive = report_maps(as, true);
}

bool pg_in_uprobes_page(const struct pg_rec_sample *r, uint64_t pc, bool activation)
{
	uint64_t page = r->uprobes_page;

	/* a return address is the instruction after a call: the trampoline itself is one */
	return page && pc >= page && pc - page < (uint64_t)PG_SAMPLE_PAGE + !activation;
}

struct frames {
	const struct pg_rec_sample *r;
	uint64_t *pcs;
	bool *act;
	size_t n;
	bool stuck;		/* stopped in the uprobes page */
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct frames *f = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act) || !pc)
		return DWARF_CB_ABORT;
	f->pcs[f->n] = pc;
	f->act[f->n] = act;
	if (pg_in_uprobes_page(f->r, pc, act)) {
		/* nothing to unwind by: what follows would be guesses */
		f->stuck = true;
		f->n++;
		return DWARF_CB_ABORT;
	}
	return ++f->n < PG_UNWIND_MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The index in @fp[1..n) of @pc nearest depth @depth from below (the frame-pointer walk can
 * only miss frames), else nearest from above; n if @pc is not there. */
static size_t splice_point(const unsigned long long *fp, size_t n, uint64_t pc, size_t depth)
{
	size_t best = n;

	for (size_t k = 1; k < n; k++) {
		if (fp[k] != pc)
			continue;
		if (k <= depth || best == n)
			best = k;
		if (k >= depth)
			break;
	}
	return best;
}

int pg_unwind(struct pg_aspace *as, const struct pg_rec_sample *r, uint64_t *pcs,
	      bool *activation, size_t *n, bool *truncated)
{
	struct frames f = { r, pcs, activation, 0, false };
	size_t nfp = r->ubytes > 0 ? (size_t)r->ubytes / 8 : 0;
	int rc = -1;

	*n = 0;
	*truncated = false;
	if (as->attached && r->user_ok) {
		as->cur = r;
		as->oob = false;
		rc = dwfl_getthread_frames(as->dwfl, (pid_t)r->h.tid, frame_cb, &f);
		as->cur = NULL;
	}
	if (f.n >= PG_UNWIND_MAX_FRAMES || f.stuck) {
		*truncated = true;
	} else if ((rc || as->oob) && f.n) {
		/* DWARF stopped early (libdw ends without an error when memory runs out):
		 * continue from the frame-pointer stack (what the kernel could walk) after
		 * the last pc DWARF found there, at about the same depth (recursion repeats
		 * return addresses) */
		size_t k = splice_point(r->uips, nfp, pcs[f.n - 1], f.n - 1);

		if (k < nfp) {
			for (k++; k < nfp && f.n < PG_UNWIND_MAX_FRAMES; k++) {
				pcs[f.n] = r->uips[k];
				activation[f.n++] = false;
			}
		} else if (as->oob) {
			*truncated = true;
		}
	}
	if (f.n <= 1 && nfp > f.n && !f.stuck) {
		/* no DWARF (no registers, no CFI, no maps): frame pointers alone */
		for (f.n = 0; f.n < nfp && f.n < PG_UNWIND_MAX_FRAMES; f.n++) {
			pcs[f.n] = r->uips[f.n];
			activation[f.n] = f.n == 0;
		}
	}
	*n = f.n;
	return f.n ? 0 : -ENODATA;
}
