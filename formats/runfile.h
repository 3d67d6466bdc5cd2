/* SPDX-License-Identifier: MIT */
/*
 * formats/runfile.h - reading and writing run files (JSON, json-c). The format is versioned
 * and documented in docs/run-format.md.
 *
 * Writing is atomic: the file is written to a temporary file in the same directory, flushed
 * with fsync, and renamed over @path; on any failure the temporary file is removed and @path is
 * untouched. Reading validates everything (format name, version, types, ranges, the invariants
 * of core/run.h) and refuses files over pg_runfile_max_bytes().
 *
 * Size limit policy: 64 MiB by default, PERFGATE_MAX_RUN_MB from 1 to 65536 MiB: the parsed
 * JSON of a version-1 or -2 file takes about 35 times the file's size in memory (version 3,
 * which perfgate writes, about 5 times with the run it holds), so the limit keeps a crafted
 * file from exhausting memory, and a user with a large recording raises it. The writer writes
 * runs up to 1 GiB (or the limit, if larger) and warns above the limit.
 *
 * Both return 0 or a negative errno, after logging one line that names the file and what is
 * wrong with it (core/log.h).
 */
#ifndef PG_RUNFILE_H
#define PG_RUNFILE_H

#include "../core/run.h"

#define PG_RUNFILE_FORMAT "perfgate-run"
/*
 * Versions read: 1 to 3; the writer writes version 3. Version 2 files say whether their latency
 * histograms hold compensated durations (pg_run.hist_compensated), which a version-1 reader
 * would misread. Version 3 keeps each repetition's statistics as one string of rows
 * (formats/runfile_stats.h) instead of an object per function, so that reading a large run
 * does not build an object tree many times the file's size.
 */
#define PG_RUNFILE_VERSION 3
#define PG_RUNFILE_MIN_VERSION 1
/* Default size limit of run files, in MiB; PERFGATE_MAX_RUN_MB overrides it (1 to 65536). */
#define PG_RUNFILE_DEFAULT_MAX_MB 64
#define PG_RUNFILE_MAX_MB_ENV "PERFGATE_MAX_RUN_MB"
/* The writer refuses only runs over this (or the limit, if larger), and warns above the limit. */
#define PG_RUNFILE_WRITE_MAX (1024LL * 1024 * 1024)

/* The one histogram scheme (core/hist.h), and the ranges of a repetition's exit status. */
#define PG_RUNFILE_HIST_SCHEME "log-linear"
#define PG_RUNFILE_EXIT_CODE_MIN (-1)	/* -1: the root process did not exit by itself */
#define PG_RUNFILE_EXIT_CODE_MAX 255
#define PG_RUNFILE_SIGNAL_MAX 127	/* WTERMSIG() is 7 bits wide */

/* The size limit in bytes for reading and writing run files (warns once if the variable is
 * not a number in range, and uses the default). */
long long pg_runfile_max_bytes(void);

/*
 * 0 when @run holds what a run file may hold (the invariants of core/run.h, unique functions,
 * ranges of the format); otherwise -EINVAL (or -ENOMEM) with the reason in @why. Nothing is
 * logged. The writer refuses, and the reader rejects, what this rejects.
 */
int pg_runfile_check(const struct pg_run *run, char *why, size_t whylen);

/* Write @run to @path atomically. */
int pg_runfile_write(const struct pg_run *run, const char *path);

/* Read @path into @run (initialised by the caller; released on failure). */
int pg_runfile_read(const char *path, struct pg_run *run);

/*
 * Parse the run file text @buf[0..len) (buf[len] must be '\0'), as pg_runfile_read() does;
 * @name names it in messages. Not limited by size: the caller decides what it reads.
 */
int pg_runfile_parse(const char *buf, size_t len, const char *name, struct pg_run *run);

#endif
