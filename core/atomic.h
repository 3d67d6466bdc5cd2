/* SPDX-License-Identifier: MIT */
/*
 * core/atomic.h - write a file so that readers see either the old file or the complete new one.
 *
 *	struct pg_atomic a;
 *	FILE *f = pg_atomic_open(&a, "out.json");	// NULL on failure (logged)
 *	... write to f ...
 *	err = pg_atomic_commit(&a);			// flush, fsync, rename; 0 or -errno
 *	// or pg_atomic_abort(&a) to drop the temporary file
 *
 * The temporary file lives in the target's directory (".out.json.XXXXXX"). After commit or
 * abort the struct holds nothing; both are safe to call once on an opened struct.
 */
#ifndef PG_ATOMIC_H
#define PG_ATOMIC_H

#include <stdio.h>

struct pg_atomic {
	FILE *f;
	char *path;	/* target */
	char *tmp;	/* temporary file */
};

FILE *pg_atomic_open(struct pg_atomic *a, const char *path);
int pg_atomic_commit(struct pg_atomic *a);
void pg_atomic_abort(struct pg_atomic *a);

/* Write @len bytes of @buf to @path atomically. 0 or -errno (logged). */
int pg_atomic_write(const char *path, const void *buf, size_t len);

#endif
