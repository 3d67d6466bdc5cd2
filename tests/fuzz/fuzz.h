/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz.h - helpers shared by the libFuzzer targets (make fuzz, docs/fuzzing.md).
 */
#ifndef PG_FUZZ_H
#define PG_FUZZ_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char fuzz_tmp_path[96];

/* Remove the fuzz_tmp() file, or the directory and the files in it, at exit. */
static inline void fuzz_tmp_cleanup(void)
{
	DIR *d = opendir(fuzz_tmp_path);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[sizeof(fuzz_tmp_path) + 256];

		snprintf(p, sizeof(p), "%s/%s", fuzz_tmp_path, e->d_name);
		if (e->d_name[0] != '.')
			unlink(p);
	}
	if (d)
		closedir(d);
	remove(fuzz_tmp_path);
}

/*
 * A new file (or directory, @dir) on tmpfs, else in /tmp, for writers that take a path;
 * removed at exit. One per target.
 */
static inline const char *fuzz_tmp(const char *what, bool dir)
{
	static const char *const bases[] = { "/dev/shm", "/tmp" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		int fd;

		snprintf(fuzz_tmp_path, sizeof(fuzz_tmp_path), "%s/pg-fuzz-%s-XXXXXX", bases[i],
			 what);
		if (dir && mkdtemp(fuzz_tmp_path))
			break;
		if (!dir && (fd = mkstemp(fuzz_tmp_path)) >= 0) {
			close(fd);
			break;
		}
		fuzz_tmp_path[0] = '\0';
	}
	if (!fuzz_tmp_path[0])
		abort();
	atexit(fuzz_tmp_cleanup);
	return fuzz_tmp_path;
}

/* Only errors are logged (libFuzzer's -close_fd_mask=2 hides them while fuzzing). */
static inline void fuzz_quiet(void)
{
	pg_log_set_level(PG_LOG_ERROR);
}

#endif
