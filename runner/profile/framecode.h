/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/framecode.h - which function of which object a sampled frame names, so that its
 * machine code can be summed up (runner/profile/codesum.h) and compared between two builds.
 *
 * A sampled verdict is about the function whose machine code holds its samples (inlined
 * code included: runner/profile/ownsamples.h), by its frame name. The sampler notes, for each
 * sample, that name, the side it was recorded for (0, or perfgate ab's base and new: 0 and 1)
 * and the function symbol the sample's address lies in. A name gets a digest for one side
 * only when all of that side's samples of it lay in one function of one object: a name that
 * two objects share (a static function of two libraries) has none, and is then not
 * compared.
 *
 * Life cycle and ownership: zero-initialise (PG_FRAMECODES_INIT), pg_framecodes_note() for
 * each sample, pg_framecodes_fill() per side whenever a run needs its digests (each function
 * is digested once, however often), pg_framecodes_release(). The table copies the names and
 * paths it is given.
 */
#ifndef PG_FRAMECODE_H
#define PG_FRAMECODE_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"
#include "codesum.h"
#include "symbolize.h"

#define PG_FRAMECODE_SIDES 2

struct pg_framecode;

struct pg_framecodes {
	struct pg_framecode *v;
	size_t n, alloc;
	size_t *slots;		/* open addressing over v by frame name; index + 1, 0 = free */
	size_t cap;
};

#define PG_FRAMECODES_INIT { 0 }

/*
 * A sample of @side whose own time is function @frame[0..len)'s, the function symbol at ELF
 * address @addr of @path (PG_NO_SYM and @path NULL: unknown). 0 or -ENOMEM.
 */
int pg_framecodes_note(struct pg_framecodes *t, const char *frame, size_t len, int side,
		       const char *path, uint64_t addr);

/*
 * The digests of @side's frames so far in place of @run->codes, sorted by frame. Frames
 * without one are left out. 0 or -ENOMEM.
 */
int pg_framecodes_fill(struct pg_framecodes *t, int side, struct pg_codesums *cs,
		       struct pg_run *run);

void pg_framecodes_release(struct pg_framecodes *t);

#endif
