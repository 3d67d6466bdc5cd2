/* SPDX-License-Identifier: MIT */
/*
 * runner/select/select.h - which functions a recording traces (step 1 of
 * runner/session/recorder.h).
 *
 * A selection is the set of binaries the filters named, each with its symbol table
 * (runner/select/elfsyms.h) and one "chosen" flag per symbol. Choosing touches no BPF: it reads ELF
 * files (and `ld.so --list` to find a library), and a selection whose binaries were added with
 * pg_selection_add() reads nothing at all, which is how the unit tests reach it.
 *
 * Invariants: sel->exe is the command's executable (canonical path), set before anything is
 * chosen; every binary is in sel->bins once, by canonical path; bins[i].chosen has
 * bins[i].syms.n entries. The order of the choices (pg_select()):
 *   --functions-of FILE: the source run's functions, by symbol name, binary by base name;
 *   else every -f [BINARY:]GLOB (each must match something), or without -f the functions
 *   of the objects that hold the first pass's samples (pg_objects_candidates()) that are
 *   on its stacks, up to opts.max_funcs (without a first pass: the first opts.max_funcs
 *   functions of the executable that are not C run-time helpers);
 *   then every -x [BINARY:]GLOB unchooses what it matches (in its binary, or in all).
 * pg_selection_build() turns the choice into the run's function table: one function per
 * address, grouped by binary in the order the binaries were loaded.
 *
 * Files of runner/select/ (what may be traced; none touches BPF):
 *   select.c/.h    the filters (-f, -x, --functions-of, the default) over the binaries' symbols
 *   elfsyms.c/.h   one ELF file's functions, their probe offsets and the kind of site there
 *   objects.c/.h   the objects the sampled processes mapped, with their samples: the default
 *                  selection's candidates
 *   srcline.c/.h   each chosen function's declaration file and line (DWARF)
 * What then survives the budget is decided in runner/budget/.
 *
 * Life cycle and ownership: zero the struct, pg_selection_init() (or set exe and exe_interp
 * to malloc'd strings yourself), choose, build, pg_selection_release(). The selection owns
 * its strings, binaries and symbol tables; struct pg_run copies what it keeps.
 *
 *	struct pg_selection sel = { 0 };
 *	size_t sites[PG_SITE_COUNT] = { 0 };
 *
 *	err = pg_selection_init(&sel, opts->argv[0], disc);
 *	err = err ?: pg_select(&sel, opts);
 *	err = err ?: pg_selection_build(&sel, run, sites);
 *	pg_selection_release(&sel);
 *	if (!err)
 *		pg_explain_sites(sites);
 *
 * Every function logs why it fails; the messages name the -f/-x/--functions-of argument.
 */
#ifndef PG_SELECT_H
#define PG_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/run.h"
#include "../session/discover.h"
#include "../session/recorder.h"
#include "elfsyms.h"

/* One binary of a selection. */
struct pg_bin {
	char *path;		/* canonical */
	struct pg_elf_syms syms;
	bool *chosen;		/* per symbol */
};

struct pg_selection {
	char *exe;		/* the command's executable: the program the processes ran */
	char *exe_interp;	/* its PT_INTERP, NULL for a static executable */
	char *named;		/* the file the command names (a script, when not exe) */
	bool script;		/* that file is not an ELF executable */
	/* the sampled first pass (runner/session/discover.h), or NULL: what the processes mapped */
	const struct pg_discovery *disc;
	char **frames;		/* its stacks' frame names, sorted (core/strv.h) */
	size_t nframes;
	char **leaves;		/* the innermost user frame of each of its stacks, sorted */
	size_t nleaves;
	size_t nbins, alloc;
	struct pg_bin *bins;
};

/*
 * Split "[BINARY:]GLOB" at its first single ':' (C++ "::" does not count).
 * *binary is NULL when there is no prefix; both are malloc'd. 0 or -ENOMEM/-EINVAL (an empty
 * spec, BINARY or GLOB; nothing is allocated then).
 */
int pg_parse_filter(const char *spec, char **binary, char **glob);

/*
 * Find the executable @argv0 runs and its interpreter. With @disc (a sampled first pass that
 * ran, or NULL), the executable is the program the processes ran (the one holding the most
 * samples) when @argv0 names a script or a program that runs another, and library names
 * resolve to the files the processes mapped. 0, -ENOENT (logged) or -ENOMEM.
 */
int pg_selection_init(struct pg_selection *sel, const char *argv0,
		      const struct pg_discovery *disc);

/*
 * Add the binary at canonical @path with its symbol table @syms, taken over (*syms is zeroed):
 * later lookups of @path use it instead of reading the file. 0 or -ENOMEM (@syms released).
 */
int pg_selection_add(struct pg_selection *sel, const char *path, struct pg_elf_syms *syms);

/*
 * The binary at canonical @path, its symbols read on first use; NULL when it cannot be read
 * (pg_elf_syms_load() logged why) or on -ENOMEM.
 */
struct pg_bin *pg_selection_bin(struct pg_selection *sel, const char *path);

/*
 * Choose as opts asks (filters, excludes, max_funcs, functions_of, quiet are read). 0, or
 * -EINVAL (a malformed -f/-x), -ENOENT (a binary not found, a filter matching nothing, none
 * of --functions-of's functions found) or -ENOMEM; logged.
 */
int pg_select(struct pg_selection *sel, const struct pg_record_opts *opts);

/*
 * Add the chosen functions to @run (initialised, no functions yet) with their source lines,
 * and count them per kind of probe site into site_count[PG_SITE_COUNT]. 0, -ENOENT when
 * nothing is chosen (logged), or -ENOMEM.
 */
int pg_selection_build(struct pg_selection *sel, struct pg_run *run, size_t site_count[]);

void pg_selection_release(struct pg_selection *sel);

/* Warn about functions on single-stepped sites; the counts per site at debug level. */
void pg_explain_sites(const size_t site_count[]);

#endif
