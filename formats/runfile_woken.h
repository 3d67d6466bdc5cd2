/* SPDX-License-Identifier: MIT */
/*
 * formats/runfile_woken.h - a repetition's "offcpu_wakers" in run files (docs/run-format.md):
 * who woke the threads of its off-CPU stacks (core/woken.h), as
 *
 *	"offcpu_wakers": [[stack, kind, comm, ns], ...]
 *
 * stack an index in the repetition's "offcpu_stacks", kind "same", "other", "kernel" or "irq".
 * Optional: absent when the repetition has none (no off-CPU stacks, or an older perfgate); the
 * reader leaves the invariants to pg_runfile_check().
 */
#ifndef PG_RUNFILE_WOKEN_H
#define PG_RUNFILE_WOKEN_H

#include <json-c/json.h>

#include "../core/run.h"
#include "json_read.h"

/* Add @rep's wakers to repetition object @o (nothing when it has none). 0 or -ENOMEM. */
int pg_runfile_put_woken(struct json_object *o, const struct pg_rep *rep);

/* Read the wakers of repetition object @o (at @where) into @rep. 0 or -errno, logged. */
int pg_runfile_read_woken(const struct pg_jr *rd, struct json_object *o, const char *where,
			  struct pg_rep *rep);

#endif
