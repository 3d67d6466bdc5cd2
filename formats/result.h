/* SPDX-License-Identifier: MIT */
/*
 * formats/result.h - the compare result: the JSON file `perfgate compare --json` writes and
 * `perfgate vote` reads back (format "perfgate-compare" version 1, docs/compare-format.md:
 * keep the two in step). Reader and writer of struct pg_comparison (core/comparison.h) and the
 * two runs' metadata; nothing here depends on the statistics (diff/).
 *
 * Writing: every key is always present, in a fixed order. Numbers that are NAN or infinite are
 * written as null (JSON has neither); doubles in their shortest form that reads back to the
 * same value. Strings are valid UTF-8 (invalid bytes become U+FFFD, core/utf8.h). Atomic:
 * a temporary file renamed over @path, nothing left behind on failure (core/atomic.h).
 *
 * Reading (formats/json_read.h): "format", "version", "overall", "options", "base", "new",
 * "counts", "warnings", "wall", "functions" and each entry's verdict, repetition counts and
 * "calls_changed" must be there with their types; the strings and numbers a comparison may
 * not have (a function's name in "wall", an interval not estimated, a run's host) may be null
 * or absent. Null interval ends of an estimated change read as -inf / +inf. The runs get their
 * metadata only (command, host, commit, start time, kernel, perfgate version), no functions
 * or repetitions. Messages: "PATH: not a usable perfgate compare result: WHERE: why".
 *
 * Size limit policy: PG_RESULT_MAX_BYTES, fixed. A result holds one entry of some 600 bytes
 * per function compared, so even a program of 100,000 functions is far below it; unlike a run
 * file, nothing legitimate grows with the length of a recording.
 *
 * Both return 0 or a negative errno after logging one line (core/log.h).
 *
 *	struct pg_comparison c;
 *	struct pg_run base, new;
 *
 *	pg_comparison_init(&c);
 *	pg_run_init(&base);
 *	pg_run_init(&new);
 *	if (!pg_result_read("result.json", false, &c, &base, &new))
 *		printf("%s\n", pg_overall_name(c.overall));
 *	pg_comparison_release(&c);
 *	pg_run_release(&base);
 *	pg_run_release(&new);
 */
#ifndef PG_RESULT_H
#define PG_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/comparison.h"
#include "../core/run.h"

#define PG_RESULT_FORMAT "perfgate-compare"
#define PG_RESULT_VERSION 1
#define PG_RESULT_MAX_BYTES ((size_t)256 << 20)

/* Write @c of runs @base and @new (either may be NULL: its side is written empty) to @path. */
int pg_result_write(const struct pg_comparison *c, const struct pg_run *base,
		    const struct pg_run *new, const char *path);

/*
 * Read @path into @c, @base and @new (initialised by the caller; released on failure). Returns
 * 0; -ENOENT when the file does not exist (logged unless @quiet_enoent); -EINVAL when it is
 * not a perfgate compare result of a version this perfgate reads, or is malformed; -EFBIG
 * over PG_RESULT_MAX_BYTES; -ENOMEM; another negative errno when it cannot be read.
 */
int pg_result_read(const char *path, bool quiet_enoent, struct pg_comparison *c,
		   struct pg_run *base, struct pg_run *new);

/*
 * Parse the result text @buf[0..len) (buf[len] must be '\0') as pg_result_read() does; @name
 * names it in messages. Not limited by size: the caller decides what it reads.
 */
int pg_result_parse(const char *buf, size_t len, const char *name, struct pg_comparison *c,
		    struct pg_run *base, struct pg_run *new);

#endif
