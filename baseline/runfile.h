/* SPDX-License-Identifier: MIT */
/*
 * baseline/runfile.h - reading and writing run files (JSON, json-c). The format is versioned
 * and documented in docs/run-format.md.
 *
 * Writing is atomic: the file is written to a temporary file in the same directory, flushed
 * with fsync, and renamed over @path; on any failure the temporary file is removed and @path is
 * untouched. Reading validates everything (format name, version, types, ranges, the invariants
 * of core/run.h) and refuses files over PG_RUNFILE_MAX_BYTES.
 *
 * Both return 0 or a negative errno, after logging one line that names the file and what is
 * wrong with it (core/log.h).
 */
#ifndef PG_RUNFILE_H
#define PG_RUNFILE_H

#include "../core/run.h"

#define PG_RUNFILE_FORMAT "perfgate-run"
#define PG_RUNFILE_VERSION 1
#define PG_RUNFILE_MAX_BYTES (1024LL * 1024 * 1024)

/* Write @run to @path atomically. */
int pg_runfile_write(const struct pg_run *run, const char *path);

/* Read @path into @run (initialised by the caller; released on failure). */
int pg_runfile_read(const char *path, struct pg_run *run);

#endif
