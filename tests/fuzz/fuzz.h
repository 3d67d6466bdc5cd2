/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz.h - helpers shared by the libFuzzer targets (make fuzz, docs/fuzzing.md).
 */
#ifndef PG_FUZZ_H
#define PG_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"

/* A NUL-terminated copy of @data (the parsers want buf[len] == '\0'). Aborts on ENOMEM. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	return buf;
}

/* Where the targets write what they produce: nowhere. */
static inline FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* Only errors are logged (libFuzzer's -close_fd_mask=2 hides them while fuzzing). */
static inline void fuzz_quiet(void)
{
	pg_log_set_level(PG_LOG_ERROR);
}

#endif
