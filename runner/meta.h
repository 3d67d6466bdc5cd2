/* SPDX-License-Identifier: MIT */
/*
 * runner/meta.h - facts about the machine and the working directory for a run's metadata.
 */
#ifndef PG_META_H
#define PG_META_H

#include "../core/run.h"

/*
 * Fill @m's version, start time (now), host, kernel, CPU model, cwd and git commit (HEAD of the
 * repository holding the working directory; NULL outside one or without git). 0 or -ENOMEM.
 */
int pg_meta_collect(struct pg_meta *m);

#endif
