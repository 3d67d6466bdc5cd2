/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/ownsamples.h - each sample's own time by the function symbol whose machine
 * code holds it (struct pg_own), as perf and pprof attribute addresses: the innermost user
 * frame's function, inlined code included, of its object, in the process of its executable;
 * and each function's inclusive time the same way (the samples whose stack holds it).
 *
 * A folded stack names frames only, so the same name in two objects (an event loop of a server
 * and of its load generator, built from one source file), or in two files of one object (a
 * static helper), would be one frame there; here they are apart. A name that several
 * functions of one object have gets " [scope]" appended, the scope exact tracing gives them
 * (pg_func.scope: the translation unit), so that "step [a.c]" is the same function in the
 * samples and in the traced functions.
 *
 * Object indices are the table's, stable over the whole recording (both sides of perfgate
 * ab): the table only grows. A run takes a copy of it (pg_owntab_objects()) whenever its
 * repetitions' own samples are to be read.
 *
 * Life cycle: zero-initialise (PG_OWNTAB_INIT); per repetition pg_owntab_note() for each
 * sample and pg_owntab_frame() for each frame of its stack then pg_owntab_stack_end(), then
 * pg_owntab_take() into the repetition (or pg_owntab_drop() to discard);
 * pg_owntab_release() at the end. The table copies what it is given.
 */
#ifndef PG_OWNSAMPLES_H
#define PG_OWNSAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"

struct pg_owntab_file;

struct pg_owntab {
	char **paths;			/* the objects, by index */
	size_t npaths;
	struct pg_owntab_file *files;	/* per path: its symbols' scopes, loaded once */
	size_t nfiles, allocfiles;
	struct pg_own *pend;		/* this repetition's samples, one entry each */
	size_t npend, allocpend;
	struct pg_own *incl;		/* its inclusive samples, an entry a stack and function */
	size_t nincl, allocincl;
	size_t mergedincl;		/* entries after incl was last added up */
	struct pg_own *stk;		/* the functions of the stack being noted */
	size_t nstk, allocstk;
	uint64_t *stksym;		/* their symbols' addresses (nstk) */
	size_t allocstksym;
	/* the last object, program and file found, tried first: a stack's frames lie in few */
	size_t hint_obj, hint_exe, hint_file;
};

#define PG_OWNTAB_INIT { 0 }

/*
 * A sample whose innermost user frame lies in the function symbol at ELF address @sym of
 * @object (absolute path), named @frame[0..len) (its symbol's frame name), in a process
 * running @exe (NULL: unknown, taken as @object). *@name (may be NULL) is set to the name the
 * sample is kept under (with its scope), valid until the next call. 0 or -ENOMEM.
 */
int pg_owntab_note(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		   size_t len, uint64_t sym, const char **name);

/*
 * A frame of a sample's stack lies in the function symbol at ELF address @sym of @object,
 * named @frame[0..len), in a process running @exe (NULL: @object): the sample counts in that
 * function's inclusive time (pg_rep.incl), with the name pg_owntab_note() would give it. Once
 * a stack however often the function recurs: pg_owntab_stack_end() after the stack's last
 * frame. 0 or -ENOMEM.
 */
int pg_owntab_frame(struct pg_owntab *t, const char *object, const char *exe, const char *frame,
		    size_t len, uint64_t sym);

/* The stack's frames noted since the last call join this repetition's inclusive samples. 0 or
 * -ENOMEM. */
int pg_owntab_stack_end(struct pg_owntab *t);

/* This repetition's samples into @rep->own and its inclusive samples into @rep->incl (both
 * empty before), sorted and counted; the table is left empty. 0 or -ENOMEM. */
int pg_owntab_take(struct pg_owntab *t, struct pg_rep *rep);

/* Forget this repetition's samples. */
void pg_owntab_drop(struct pg_owntab *t);

/* A copy of the object table in place of @run->objects. 0 or -ENOMEM. */
int pg_owntab_objects(const struct pg_owntab *t, struct pg_run *run);

void pg_owntab_release(struct pg_owntab *t);

#endif
