/* SPDX-License-Identifier: MIT */
/*
 * runner/session/meta.h - a run's metadata (struct pg_meta, core/run.h): facts about the machine
 * and the working directory, and the options the run was recorded with.
 *
 * Ownership: every string and string vector put into @m is malloc'd and owned by the run
 * (released with it). On failure what was filled stays, for the run's release to free.
 *
 *	err = pg_meta_collect(&run->meta);
 *	err = err ?: pg_meta_record_opts(&run->meta, opts);
 */
#ifndef PG_META_H
#define PG_META_H

#include "../../core/run.h"
#include "recorder.h"

/*
 * Fill @m's version, start time (now), host, kernel, CPU model, cwd and git commit (HEAD of the
 * repository holding the working directory; NULL outside one or without git), and its
 * environment's "os", "cpu_flags" and "ci.NAME" entries. 0 or -ENOMEM.
 */
int pg_meta_collect(struct pg_meta *m);

/*
 * Record @o into @m: the command, the repetitions, and how the functions were chosen (the
 * options, or with --functions-of the source run's options and its file name). 0 or -ENOMEM.
 */
int pg_meta_record_opts(struct pg_meta *m, const struct pg_record_opts *o);

/*
 * perfgate ab, whose two sides may be builds in two work trees: @m's git commit is HEAD of the
 * repository holding the directory of the executable @argv0 runs, when there is one (else it
 * stays the working directory's). 0.
 */
int pg_meta_git_commit_of(struct pg_meta *m, const char *argv0);

/*
 * The "compilers" of @run's environment: the distinct DW_AT_producer strings (libdw) of the
 * compilation units of its program and of the binaries of its functions, at most 8; none for
 * binaries without DWARF. 0 or -ENOMEM.
 */
int pg_meta_compilers(struct pg_run *run);

#endif
