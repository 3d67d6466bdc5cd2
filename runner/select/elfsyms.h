/* SPDX-License-Identifier: MIT */
/*
 * runner/select/elfsyms.h - the functions of one ELF file, read with libelf, and where to probe
 * them.
 *
 * pg_elf_syms_load() reads .symtab and .dynsym, keeps defined STT_FUNC symbols with a nonzero
 * address, demangles C++ names (__cxa_demangle), computes the probe's file offset (after a
 * leading endbr64) and classifies the instruction there (enum pg_site). Symbols that share an
 * address (aliases) are all kept; `addr` tells them apart from distinct functions.
 *
 * Ownership: struct pg_elf_syms owns its path, array and strings; release with
 * pg_elf_syms_release().
 */
#ifndef PG_ELFSYMS_H
#define PG_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"

struct pg_sym {
	char *name;		/* as in the symbol table */
	char *display;		/* demangled, or NULL for a C name */
	uint64_t addr;		/* st_value */
	uint64_t size;		/* st_size */
	uint64_t offset;	/* file offset of the probe */
	enum pg_site site;
	bool endbr;
	bool global;		/* STB_GLOBAL or STB_WEAK */
	char *tu;		/* a local symbol's translation unit: the base name of the
				 * STT_FILE entry before it in .symtab ("a.c"), or NULL */
	/*
	 * NULL when no other function of the file has this name; else what tells them apart,
	 * stable across builds of one source: tu, or "#N" without one, with "#2", "#3"... after
	 * it (in address order) for the second and later of one tu (core/run.h, pg_func.scope)
	 */
	char *scope;
};

struct pg_elf_syms {
	char *path;
	bool is_dyn;		/* ET_DYN (PIE or shared library) */
	char *interp;		/* PT_INTERP, or NULL */
	size_t n;
	struct pg_sym *syms;	/* sorted by address, then name */
};

/*
 * Load the functions of @path. Returns 0, -ENOENT (no such file), -ENOEXEC (not an ELF file,
 * or not x86-64), -ENODATA (no symbols at all: stripped) or another negative errno; the
 * reason is logged.
 */
int pg_elf_syms_load(const char *path, struct pg_elf_syms *out);
void pg_elf_syms_release(struct pg_elf_syms *s);

/* Classify the instruction bytes @code[0..len) at a function's entry (exposed for tests). */
enum pg_site pg_classify_site(const unsigned char *code, size_t len, bool *endbr);

/*
 * Does @pattern (fnmatch glob) match @sym? Tried against the symbol name, the demangled name,
 * and the demangled name without its parameter list ("ns::f" matches "ns::f(int)").
 */
bool pg_sym_matches(const struct pg_sym *sym, const char *pattern);

/* A name perfgate skips by default: C runtime start-up and teardown helpers. */
bool pg_sym_is_runtime(const char *name);



/* PT_INTERP of @path (malloc'd), or NULL when it has none or is not ELF. Logs nothing. */
char *pg_elf_interp(const char *path);

#endif
