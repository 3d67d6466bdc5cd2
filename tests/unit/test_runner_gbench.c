// SPDX-License-Identifier: MIT
/*
 * Unit tests of runner/launch/gbench_run.c: recognising a Google Benchmark program by what it links
 * (gbench links libbenchmark, knob does not; a missing file is an error), the executable
 * behind `env VAR=value`, and the harness kept out of the default selection
 * (pg_sym_is_runtime()). The programs are found in $PROGS (default build/progs).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../runner/launch/gbench_run.h"
#include "../../runner/select/elfsyms.h"

static char *prog(const char *name)
{
	const char *dir = getenv("PROGS");
	char *path;

	assert_true(asprintf(&path, "%s/%s", dir ? dir : "build/progs", name) > 0);
	return path;
}

static void test_detect(void **state)
{
	char *gb = prog("gbench"), *knob = prog("knob");

	assert_int_equal(pg_gb_detect(gb), 1);
	assert_int_equal(pg_gb_detect(knob), 0);
	assert_int_equal(pg_gb_detect("/nonexistent/gbench"), -ENOENT);
	free(gb);
	free(knob);
}

static void test_command_exe(void **state)
{
	char *gb = prog("gbench");
	char *argv[] = { "env", "-u", "X", "BENCHMARK_FILTER=%Y", gb, "all", NULL };
	char *none[] = { "env", "A=1", NULL };
	char *exe = pg_gb_command_exe(argv), *real = realpath(gb, NULL);

	assert_non_null(exe);
	assert_string_equal(exe, real);
	assert_null(pg_gb_command_exe(none));
	free(exe);
	free(real);
	free(gb);
}

static void test_not_candidates(void **state)
{
	assert_true(pg_sym_is_runtime("_ZN9benchmark22RunSpecifiedBenchmarksEv"));
	assert_true(pg_sym_is_runtime("_ZL7BM_hashRN9benchmark5StateE"));
	assert_false(pg_sym_is_runtime("_Z9leaf_hashm"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_command_exe),
		cmocka_unit_test(test_not_candidates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
