// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_excfix.c - the C++ exception fix's side in perfgate
 * (runner/probes/excfix.h): finding the preload library, and the benchmark's environment. The map
 * and the library itself are tested end to end (tests/e2e/test_stress.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/log.h"
#include "../../runner/probes/excfix.h"

static void test_env(void **state)
{
	char *base[] = { "HOME=/root", "LD_PRELOAD=libfirst.so", "PERFGATE_RETS_FD=99",
			 "PATH=/bin", "LD_PRELOAD=libsecond.so", NULL };
	char *bare[] = { "PATH=/bin", NULL };
	const char *want[] = { "HOME=/root", "PATH=/bin",
			       "LD_PRELOAD=/opt/libperfgate-preload.so:libfirst.so",
			       "PERFGATE_RETS_FD=7", "PERFGATE_RETS_MAP_ID=1234", NULL };
	char **env = pg_excfix_env(base, "/opt/libperfgate-preload.so", 7, 1234);
	size_t i;

	assert_non_null(env);
	for (i = 0; want[i]; i++)
		assert_string_equal(env[i], want[i]);
	assert_null(env[i]);
	pg_excfix_free_env(env);

	/* no LD_PRELOAD before: ours alone */
	env = pg_excfix_env(bare, "/opt/x.so", 3, 5);
	assert_non_null(env);
	assert_string_equal(env[0], "PATH=/bin");
	assert_string_equal(env[1], "LD_PRELOAD=/opt/x.so");
	assert_string_equal(env[2], "PERFGATE_RETS_FD=3");
	assert_string_equal(env[3], "PERFGATE_RETS_MAP_ID=5");
	assert_null(env[4]);
	pg_excfix_free_env(env);
}

static void test_find(void **state)
{
	char dir[] = "/tmp/pg-excfix.XXXXXX", path[64], *found;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	/* PERFGATE_PRELOAD wins, canonicalized (LD_PRELOAD must not depend on the cwd) */
	assert_int_equal(chdir(dir), 0);
	setenv("PERFGATE_PRELOAD", "./lib.so", 1);
	found = pg_excfix_find();
	assert_non_null(found);
	assert_string_equal(found, path);
	free(found);
	setenv("PERFGATE_PRELOAD", "./missing.so", 1);
	assert_null(pg_excfix_find());
	unsetenv("PERFGATE_PRELOAD");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_off(void **state)
{
	extern char **environ;
	struct pg_excfix x;
	bool unreadable = true;

	/* a path that LD_PRELOAD cannot carry: off, before touching any map */
	assert_int_equal(pg_excfix_open(&x, "/tmp/a:b/lib.so", -1), -EINVAL);
	assert_null(x.envp);
	/* off: the child execs with perfgate's environment, and release is a no-op */
	assert_ptr_equal(pg_excfix_child(&x, &unreadable), environ);
	assert_false(unreadable);
	pg_excfix_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_off),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
