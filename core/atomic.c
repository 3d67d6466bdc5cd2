// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "log.h"

FILE *pg_atomic_open(struct pg_atomic *a, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t dirlen = base ? (size_t)(base - path + 1) : 0;
	int fd;

	memset(a, 0, sizeof(*a));
	base = base ? base + 1 : path;
	if (!*base) {
		pg_err("%s: not a file name", path);
		return NULL;
	}
	a->path = strdup(path);
	a->tmp = malloc(strlen(path) + 16);
	if (!a->path || !a->tmp) {
		pg_err("%s: out of memory", path);
		goto fail;
	}
	sprintf(a->tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
	fd = mkstemp(a->tmp);
	if (fd < 0) {
		pg_err("cannot create %s: %s", path, strerror(errno));
		free(a->tmp);
		a->tmp = NULL;
		goto fail;
	}
	if (fchmod(fd, 0644))
		pg_debug("chmod %s: %s", a->tmp, strerror(errno));
	a->f = fdopen(fd, "w");
	if (!a->f) {
		pg_err("cannot write %s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	return a->f;
fail:
	pg_atomic_abort(a);
	return NULL;
}

void pg_atomic_abort(struct pg_atomic *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

int pg_atomic_commit(struct pg_atomic *a)
{
	int err = 0;

	if (!a->f)
		return -EINVAL;
	if (fflush(a->f) || ferror(a->f) || fsync(fileno(a->f)))
		err = -errno ? -errno : -EIO;
	if (fclose(a->f) && !err)
		err = -errno;
	a->f = NULL;
	if (!err && rename(a->tmp, a->path))
		err = -errno;
	if (err) {
		pg_err("cannot write %s: %s", a->path, strerror(-err));
		pg_atomic_abort(a);
		return err;
	}
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
	return 0;
}

int pg_atomic_write(const char *path, const void *buf, size_t len)
{
	struct pg_atomic a;
	FILE *f = pg_atomic_open(&a, path);

	if (!f)
		return -EIO;
	if (len && fwrite(buf, 1, len, f) != len) {
		int err = errno ? -errno : -EIO;

		pg_err("cannot write %s: %s", path, strerror(-err));
		pg_atomic_abort(&a);
		return err;
	}
	return pg_atomic_commit(&a);
}
