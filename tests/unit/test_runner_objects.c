// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_objects.c - the objects a benchmark's processes mapped
 * (runner/select/objects.h): library names answering to the files of a build tree, the system's
 * files told from the project's, and which objects a default selection takes its candidates
 * from; and the program words of a command (runner/launch/resolve.h, pg_command_env()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../runner/launch/resolve.h"
#include "../../runner/select/objects.h"

static void test_names(void **state)
{
	assert_true(pg_object_name_matches("libjq.so.1.0.4", "libjq.so.1"));
	assert_true(pg_object_name_matches("libjq.so.1.0.4", "libjq"));
	assert_true(pg_object_name_matches("jq", "jq"));
	assert_false(pg_object_name_matches("libjq.so.1.0.4", "libj"));
	assert_false(pg_object_name_matches("libjq.so.1.0.4", "libjq.so.10"));
	assert_false(pg_object_name_matches("jq", "jq2"));
}

static void test_system(void **state)
{
	assert_true(pg_object_is_system("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_true(pg_object_is_system("/lib/x86_64-linux-gnu/libjq.so.1.0.4"));
	assert_true(pg_object_is_system("/usr/bin/env"));
	assert_true(pg_object_is_system("[vdso]"));
	assert_false(pg_object_is_system("/home/u/jq/.libs/libjq.so.1.0.4"));
	assert_false(pg_object_is_system("/usr/local/lib/libfoo.so"));
	assert_false(pg_object_is_system("/libfoo.so"));
}

/* The build tree's library of a name before the system's, however the counts fall; the
 * project's code from 0.5% of the samples, the system's from 10%. */
static void test_candidates(void **state)
{
	struct pg_objects s = PG_OBJECTS_INIT;
	bool take[5];

	assert_non_null(pg_objects_note(&s, "/b/.libs/jq", "aa", true, 1));
	assert_non_null(pg_objects_note(&s, "/b/.libs/libjq.so.1.0.4", NULL, false, 1));
	assert_non_null(pg_objects_note(&s, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL, false, 1));
	assert_non_null(pg_objects_note(&s, "/usr/lib/x86_64-linux-gnu/libm.so.6", NULL, false, 1));
	assert_non_null(pg_objects_note(&s, "/usr/bin/bash", NULL, true, 1));
	assert_int_equal(pg_objects_count_self(&s, "/b/.libs/jq", 4), 0);	/* 0.4% */
	assert_int_equal(pg_objects_count_self(&s, "/b/.libs/libjq.so.1.0.4", 700), 0);
	assert_int_equal(pg_objects_count_self(&s, "/usr/lib/x86_64-linux-gnu/libc.so.6", 200), 0);
	assert_int_equal(pg_objects_count_self(&s, "/usr/lib/x86_64-linux-gnu/libm.so.6", 90), 0);
	assert_int_equal(pg_objects_count_self(&s, "/usr/bin/bash", 6), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(pg_objects_candidates(&s, take), 2);
	assert_false(take[0]);	/* the program's own 0.4% */
	assert_true(take[1] && take[2]);
	assert_false(take[3] || take[4]);	/* 9% of a system library; a shell */
	assert_string_equal(pg_objects_by_name(&s, "libjq.so.1")->path, "/b/.libs/libjq.so.1.0.4");
	assert_null(pg_objects_by_name(&s, "libz.so.1"));
	assert_string_equal(pg_objects_find(&s, "/b/.libs/jq")->build_id, "aa");
	/* a second repetition: counted once per repetition */
	assert_non_null(pg_objects_note(&s, "/b/.libs/jq", NULL, false, 2));
	assert_non_null(pg_objects_note(&s, "/b/.libs/jq", NULL, false, 2));
	assert_int_equal(pg_objects_find(&s, "/b/.libs/jq")->reps, 2);
	assert_true(pg_objects_find(&s, "/b/.libs/jq")->exe);
	pg_objects_release(&s);
}

/* The program of a command: after VAR=value words, and after env VAR=value... */
static void test_command_env(void **state)
{
	char *a[] = { "LD_LIBRARY_PATH=/x", "A_1=", "./prog", "B=2", NULL };
	char *b[] = { "env", "X=1", "./prog", NULL };
	char *c[] = { "V=1", "env", "-i", "./prog", NULL };
	char *d[] = { "V=1", NULL };
	char *e[] = { "./prog", "X=1", NULL };
	char *f[] = { "1X=2", "./prog", NULL };
	size_t n;

	assert_int_equal(pg_command_env(a, &n), 2);
	assert_int_equal(n, 2);
	assert_int_equal(pg_command_env(b, &n), 2);
	assert_string_equal(pg_command_program(b), "./prog");
	assert_int_equal(pg_command_env(c, &n), 1);	/* env with options: a program */
	assert_string_equal(pg_command_program(c), "env");
	assert_int_equal(pg_command_env(d, &n), 1);
	assert_string_equal(pg_command_program(d), "");
	assert_int_equal(pg_command_env(e, &n), 0);
	assert_int_equal(pg_command_env(f, &n), 0);	/* not a variable name */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_command_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
