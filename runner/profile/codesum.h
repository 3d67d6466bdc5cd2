/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/codesum.h - a function's machine code summed up, so that two builds can tell
 * whether it is the same code.
 *
 * A rebuild moves functions that did not change: their bytes then differ wherever the code
 * reaches outside itself (a call, a jump, a RIP-relative load holds a displacement). A digest
 * reads the function's instructions with Capstone and hashes each one's operation and
 * operands, where a target outside the function counts by what it lands in:
 *   - a PLT slot: the name of the function the slot jumps to (its GOT relocation);
 *   - a symbol (a function or a data object): its name and the offset into it;
 *   - anything else: the name of the section.
 * A target inside the function counts by its offset from the start. In an executable linked
 * at fixed addresses (not PIE), an immediate or a displacement that lies in one of its
 * sections is an address too, and counts the same way. Equal digests: the same
 * instructions, referring to the same things. A callee whose own code changed, or a table whose
 * contents changed, leaves the digest as it was: the digest speaks of the function's own
 * instructions only.
 *
 * x86-64 only: elsewhere pg_codesum() returns -EOPNOTSUPP.
 *
 * Life cycle and ownership: zero-initialise (PG_CODESUMS_INIT), pg_codesum() as often as
 * needed, pg_codesums_release(). The set keeps every file it opened (its symbols, sections and
 * PLT) until it is released; a file that cannot be read is remembered as such.
 *
 *	struct pg_codesums cs = PG_CODESUMS_INIT;
 *	uint64_t d;
 *
 *	if (!pg_codesum(&cs, "/build/.libs/libjq.so.1.0.4", 0x1cf30, &d))
 *		...d is the digest of the function at 0x1cf30...
 *	pg_codesums_release(&cs);
 */
#ifndef PG_CODESUM_H
#define PG_CODESUM_H

#include <stddef.h>
#include <stdint.h>

struct pg_codesum_file;

struct pg_codesums {
	struct pg_codesum_file *v;
	size_t n, alloc;
	size_t handle;		/* Capstone's handle (csh); valid when opened is set */
	int opened;		/* 1: open, -1: cs_open failed, 0: not tried */
};

#define PG_CODESUMS_INIT { 0 }

/*
 * The digest of the function symbol (STT_FUNC, nonzero size) whose value is @addr in the ELF
 * file @path, into @digest (never 0). 0, -ENOENT (no such file or function), -ENOEXEC (not a
 * readable x86-64 ELF file), -EOPNOTSUPP (no disassembler), -ENOMEM. Logs at debug level only:
 * a function without a digest is simply not compared.
 */
int pg_codesum(struct pg_codesums *c, const char *path, uint64_t addr, uint64_t *digest);

void pg_codesums_release(struct pg_codesums *c);

#endif
