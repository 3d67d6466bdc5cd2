/* SPDX-License-Identifier: MIT */
/*
 * formats/runfile_spin.h - "meta.reference_spin" in run files (docs/run-format.md): the
 * reference spin run before each repetition (core/run.h struct pg_spin), as
 *
 *	"reference_spin": {"workload": name, "wall_ns": [...], "cpu_ns": [...],
 *			   "runq_ns": [...], "cpus": [[[cpu, wall_ns, cpu_ns, runq_ns, samples],
 *			   ...], ...]}
 *
 * one value (or one list of CPUs) per repetition. "runq_ns" and "cpus" are optional (absent:
 * 0, and spins that ran unpinned); a repetition's list of CPUs may be empty. The reader leaves
 * the invariants to pg_runfile_check().
 */
#ifndef PG_RUNFILE_SPIN_H
#define PG_RUNFILE_SPIN_H

#include <json-c/json.h>

#include "../core/run.h"
#include "json_read.h"

/* @m's reference spin as a new object; NULL when out of memory. */
struct json_object *pg_runfile_new_spin(const struct pg_meta *m);

/* Read "meta.reference_spin" object @o into @m (spin_workload, nspin, spin). 0 or -errno,
 * logged. */
int pg_runfile_read_spin(const struct pg_jr *rd, struct json_object *o, struct pg_meta *m);

#endif
