// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_libs.c - the shared libraries of a run (runner/session/libs.h): which
 * mapped objects are listed, for which side, and their Debian packages and versions read from
 * a dpkg database made here (merged /usr, two lists naming one file, a status file with other
 * architectures and a package that is not installed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../../core/run.h"
#include "../../runner/session/libs.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void make_db(char *dir)
{
	char info[300];

	assert_non_null(mkdtemp(dir));
	snprintf(info, sizeof(info), "%s/info", dir);
	assert_int_equal(mkdir(info, 0700), 0);
	/* the list names the file as installed before /lib was merged into /usr/lib */
	put(info, "libc6:amd64.list",
	    "/.\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libc.so.6\n");
	put(info, "zz-diverted:amd64.list", "/lib/x86_64-linux-gnu/libc.so.6\n");
	put(info, "libfoo1.list", "/usr/lib/libfoo.so.1.2\n");
	put(info, "libc6:amd64.md5sums", LIBC "\n");	/* not a list */
	put(dir, "status",
	    "Package: libc6\nStatus: install ok installed\nArchitecture: i386\nVersion: 2.36-1\n\n"
	    "Package: libc6\nStatus: deinstall ok config-files\nArchitecture: amd64\n"
	    "Version: 2.30\n\n"
	    "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nMulti-Arch: same\n"
	    "Version: 2.36-9+deb12u4\nDescription: GNU C Library\n more text\n\n"
	    "Package: libfoo1\nStatus: install ok installed\nArchitecture: all\nVersion: 1.2-3\n");
}

static void drop_db(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_lookup(void **state)
{
	char dir[] = "/tmp/pg-dpkg.XXXXXX", *pkgs[3], *versions[3];
	char *paths[] = { LIBC, "/usr/lib/libfoo.so.1.2", "/home/u/build/libfoo.so.1.2" };

	make_db(dir);
	assert_int_equal(pg_dpkg_lookup(dir, paths, 3, pkgs, versions), 0);
	assert_string_equal(pkgs[0], "libc6:amd64");	/* the smaller name of the two */
	assert_string_equal(versions[0], "2.36-9+deb12u4");	/* installed, of its arch */
	assert_string_equal(pkgs[1], "libfoo1");
	assert_string_equal(versions[1], "1.2-3");
	assert_null(pkgs[2]);
	assert_null(versions[2]);
	for (int i = 0; i < 3; i++) {
		free(pkgs[i]);
		free(versions[i]);
	}
	/* no database: unknown, not an error */
	assert_int_equal(pg_dpkg_lookup("/nonexistent", paths, 3, pkgs, versions), 0);
	assert_null(pkgs[0]);
	assert_null(versions[0]);
	drop_db(dir);
}

/* The shared objects of the side asked for; no program, preload library or other file. */
static void test_libraries(void **state)
{
	char dir[] = "/tmp/pg-dpkg.XXXXXX";
	struct pg_objects objs = PG_OBJECTS_INIT;
	struct pg_run a, b;

	make_db(dir);
	pg_objects_note(&objs, "/bin/prog.so", NULL, true, 1)->sides = 3;
	pg_objects_note(&objs, LIBC, "aa11", false, 1)->sides = 3;
	pg_objects_note(&objs, "/opt/new/libfoo.so.1", NULL, false, 1)->sides = 2;
	pg_objects_note(&objs, "/b/libperfgate-preload.so", NULL, false, 1)->sides = 3;
	pg_objects_note(&objs, "/b/data.bin", NULL, false, 1)->sides = 3;
	pg_objects_note(&objs, "/b/libsome.so.txt", NULL, false, 1)->sides = 3;
	pg_run_init(&a);
	pg_run_init(&b);
	assert_int_equal(pg_meta_libraries(&a.meta, &objs, 0, dir), 0);
	assert_int_equal(a.meta.nenv, 1);
	assert_string_equal(pg_env_get(&a.meta, "lib.libc.so.6"),
			    "libc6:amd64 2.36-9+deb12u4 aa11 " LIBC);
	assert_int_equal(pg_meta_libraries(&b.meta, &objs, 1, dir), 0);
	assert_int_equal(b.meta.nenv, 2);
	assert_string_equal(pg_env_get(&b.meta, "lib.libfoo.so.1"), "- - - /opt/new/libfoo.so.1");
	pg_run_release(&a);
	pg_run_release(&b);
	pg_objects_release(&objs);
	drop_db(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_libraries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
