/* SPDX-License-Identifier: MIT */
/*
 * core/env.h - the environment a run was recorded in (struct pg_meta env, core/run.h): the
 * entries of the shared libraries its processes loaded, and what differs between two runs'
 * environments.
 *
 * A library's entry: key "lib.SONAME" (PG_ENV_LIB_PREFIX, then the object's DT_SONAME, or its
 * file name when it has none), value "PACKAGE VERSION BUILD_ID PATH": the Debian package that
 * owns the file and its version, the GNU build-id in hex, each "-" when unknown, then the path
 * as the processes mapped it (the rest of the value: it may hold spaces). Two runs' libraries
 * pair by soname.
 *
 *	char *v = pg_env_lib_value("libc6:amd64", "2.36-9", "8a0b...", "/usr/lib/.../libc.so.6");
 *	pg_env_set(m, "lib.libc.so.6", v);
 *	struct pg_env_lib l;
 *	if (!pg_env_lib_parse(pg_env_get(m, "lib.libc.so.6"), &l)) ... pg_env_lib_release(&l);
 */
#ifndef PG_ENV_H
#define PG_ENV_H

#include <stddef.h>

#include "run.h"

#define PG_ENV_LIB_PREFIX "lib."

/* A library entry's fields: pointers into buf, which the struct owns; NULL when unknown. */
struct pg_env_lib {
	char *buf;
	const char *package, *version, *build_id, *path;
};

/*
 * The value of a library's entry (NULL fields are unknown; @path not NULL). A NULL return:
 * -ENOMEM. A field with a space in it (only @path may have one) is taken as unknown.
 */
char *pg_env_lib_value(const char *package, const char *version, const char *build_id,
		       const char *path);

/* Split a library entry's @value into @l. 0, or -EINVAL (not four fields) or -ENOMEM. */
int pg_env_lib_parse(const char *value, struct pg_env_lib *l);
void pg_env_lib_release(struct pg_env_lib *l);

/*
 * What differs between two runs' environments, each item known on both sides, in this order:
 * "kernel A -> B", "CPU A -> B", "CPU flags +added -removed" (at most 6 flags named, then
 * "(N more)"), each other entry of @new's environment that @base has with another value
 * "KEY A -> B", then each library both loaded (by soname) whose version differs,
 * "libc.so.6 2.36-9+deb12u4 -> 2.36-9+deb12u7", or, the versions being unknown or equal, whose
 * build-id differs, "libfoo.so.1 build-id 8a0b1c2d3e4f -> 0f1e2d3c4b5a" (12 hex digits of
 * each). A library only one side loaded, or only at another path, is not an item.
 * Sets *@items (a string vector, core/strv.h; the caller frees it with pg_strv_free()) and *@n,
 * none when a side is NULL. 0 or -ENOMEM (nothing set).
 */
int pg_env_diffs(const struct pg_meta *base, const struct pg_meta *new, char ***items, size_t *n);

#endif
