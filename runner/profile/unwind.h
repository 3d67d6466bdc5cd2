/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/unwind.h - user stacks of sampled processes: DWARF unwinding (libdw) of a copied
 * stack snapshot, continued with the kernel's frame-pointer stack where the snapshot ends.
 *
 * One struct pg_aspace per address space (a process between two execs). It must be created
 * while the process is alive: pg_aspace_new() reads /proc/PID/maps into a Dwfl
 * (dwfl_linux_proc_report) and loads the vDSO image from the process's memory; everything
 * else (ELF files, CFI, symbols) is read lazily from the files the maps name, so unwinding can
 * happen after the process has exited. dwfl_attach_state() binds the Dwfl to callbacks that
 * serve registers and memory from the sample being unwound (elfutils 0.188 has no helper for
 * perf samples), so one Dwfl serves every sample of the address space.
 *
 * Ownership: the aspace owns its Dwfl; free with pg_aspace_free().
 */
#ifndef PG_UNWIND_H
#define PG_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <elfutils/libdwfl.h>

#include "../../bpf/sample.h"

#define PG_UNWIND_MAX_FRAMES 256

struct pg_aspace {
	pid_t pid;
	Dwfl *dwfl;
	bool attached;		/* dwfl_attach_state succeeded */
	bool alive;		/* maps could be read */
	unsigned int refreshes;	/* times the maps were re-read after a miss (dlopen) */
	uint64_t seen;		/* samples checked */
	const struct pg_rec_sample *cur;	/* sample being unwound */
	bool oob;		/* the unwinder wanted memory above the snapshot */
};

/* Report the mappings of live process @pid. NULL on out-of-memory only: a process that has
 * already gone gives an aspace without modules (its frames stay unresolved). */
struct pg_aspace *pg_aspace_new(pid_t pid);
void pg_aspace_free(struct pg_aspace *as);

/* Call for every sample of the address space while the process lives, in order: re-reads
 * the maps when a user address of @r (pc, frame-pointer stack) falls outside every known
 * module (a library loaded later; a few times at most), and on samples 2, 4, 8, ... (the
 * first sample can come from the dynamic loader, before the libraries are mapped). */
void pg_aspace_check(struct pg_aspace *as, const struct pg_rec_sample *r);

/*
 * Unwind @r: fills pcs[0..*n) leaf first, with activation[i] true for the sampled pc and false
 * for return addresses (look those up at pc - 1). *truncated is set when the stack went on
 * beyond what could be unwound (the snapshot ended and frame pointers could not continue).
 * Returns 0, or -ENODATA when the sample has no user frame at all.
 */
int pg_unwind(struct pg_aspace *as, const struct pg_rec_sample *r, uint64_t *pcs,
	      bool *activation, size_t *n, bool *truncated);

/*
 * Is @pc (@activation: the sampled pc, else a return address) in the "[uprobes]" page of
 * @r's process? There is code the kernel runs for probes, no module's: the BPF program moves
 * a sampled pc out of it where it can (bpf/sample.h), and the unwinding of @r stops at one it
 * could not (or at the uretprobe trampoline written as a return address before the kernel
 * recorded the original), counted as truncated.
 */
bool pg_in_uprobes_page(const struct pg_rec_sample *r, uint64_t pc, bool activation);

#endif
