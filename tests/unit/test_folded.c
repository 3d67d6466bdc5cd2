// SPDX-License-Identifier: MIT
/* Unit tests of formats/folded.c: parsing folded stacks (hostile input too), writing them back,
 * merging repetitions, and pg_folded_valid(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../formats/folded.h"
#include "../../core/run.h"

static int parse(const char *text, struct pg_stack **v, size_t *n, char *why)
{
	return pg_folded_parse(text, strlen(text), v, n, why, 128);
}

static void test_parse_basic(void **state)
{
	struct pg_stack *v;
	char why[128];
	size_t n;

	assert_int_equal(parse("main;parse;lex 123\nmain;a 1\n\nmain;parse;lex 7\r\nb 2", &v, &n,
			       why), 0);
	assert_int_equal(n, 3);
	/* sorted, duplicates added */
	assert_string_equal(v[0].folded, "b");
	assert_int_equal(v[0].count, 2);
	assert_string_equal(v[1].folded, "main;a");
	assert_string_equal(v[2].folded, "main;parse;lex");
	assert_int_equal(v[2].count, 130);
	pg_stacks_free(v, n);

	/* frames with spaces: the count follows the last one */
	assert_int_equal(parse("main;ns::f(int, char) [k] 5\n", &v, &n, why), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].folded, "main;ns::f(int, char) [k]");
	assert_int_equal(v[0].count, 5);
	pg_stacks_free(v, n);

	assert_int_equal(parse("", &v, &n, why), 0);
	assert_int_equal(n, 0);
	pg_stacks_free(v, n);
	assert_int_equal(parse("a 18446744073709551615\n", &v, &n, why), 0);
	assert_true(v[0].count == UINT64_MAX);
	pg_stacks_free(v, n);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"main;a\n",			/* no count */
		"main;a \n",			/* empty count */
		"main;a 0\n",			/* zero */
		"main;a -1\n",
		"main;a 1.5\n",
		"main;a 12x\n",
		"main;a 18446744073709551616\n",	/* 2^64 */
		"main;a 99999999999999999999999\n",
		" 3\n",				/* no stack */
		"3\n",
		";a 1\n",			/* empty frames */
		"a; 1\n",
		"a;;b 1\n",
		"a\tb 1\n",			/* control character */
		"ok 1\nmain;a\n",		/* second line broken */
		"a 18446744073709551615\na 1\n",	/* the sum overflows */
	};
	struct pg_stack *v = (void *)1;
	char why[128];
	size_t n = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(parse(bad[i], &v, &n, why), -EINVAL);
		assert_null(v);
		assert_int_equal(n, 0);
		assert_true(why[0] != '\0');
	}
	/* the line number is named */
	assert_int_equal(parse("ok 1\n\nmain;a\n", &v, &n, why), -EINVAL);
	assert_non_null(strstr(why, "line 3"));
	/* a NUL byte inside the stack, and no terminating NUL: never read past len */
	{
		const char text[] = { 'a', '\0', 'b', ' ', '1', '\n' };
		char *tight = malloc(4);

		assert_int_equal(pg_folded_parse(text, sizeof(text), &v, &n, why, sizeof(why)),
				 -EINVAL);
		memcpy(tight, "a 12", 4);
		assert_int_equal(pg_folded_parse(tight, 4, &v, &n, NULL, 0), 0);
		assert_int_equal(v[0].count, 12);
		pg_stacks_free(v, n);
		free(tight);
	}
}

static void test_write_parse_round_trip(void **state)
{
	struct pg_stack in[] = {
		{ "_start;main;a;b;c", 291 },
		{ "_start;main;a;b;c;asm_sysvec_apic_timer_interrupt [k]", 2 },
		{ "_start;main;libfoo.so.1+0x1234", 1 },
	}, *out;
	char *buf = NULL, why[128];
	size_t len = 0, n;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(pg_folded_write(f, in, 3), 0);
	fclose(f);
	assert_string_equal(buf, "_start;main;a;b;c 291\n"
			    "_start;main;a;b;c;asm_sysvec_apic_timer_interrupt [k] 2\n"
			    "_start;main;libfoo.so.1+0x1234 1\n");
	assert_int_equal(pg_folded_parse(buf, len, &out, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(out[i].folded, in[i].folded);
		assert_int_equal(out[i].count, in[i].count);
	}
	pg_stacks_free(out, n);
	free(buf);
}

static void test_merge(void **state)
{
	struct pg_stack r0[] = { { "a;b", 2 }, { "a;c", 1 } }, r1[] = { { "a;b", 3 }, { "x", 4 } };
	struct pg_rep reps[2] = { { .nstacks = 2, .stacks = r0 }, { .nstacks = 2, .stacks = r1 } };
	struct pg_run run = { .nreps = 2, .reps = reps };
	struct pg_stack *v;
	size_t n;

	assert_int_equal(pg_stacks_merge(&run, -1, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].folded, "a;b");
	assert_int_equal(v[0].count, 5);
	assert_string_equal(v[2].folded, "x");
	pg_stacks_free(v, n);
	assert_int_equal(pg_stacks_merge(&run, 1, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].count, 3);
	pg_stacks_free(v, n);
	assert_int_equal(pg_stacks_merge(&run, 2, &v, &n), -EINVAL);
}

static void test_valid(void **state)
{
	assert_true(pg_folded_valid("main"));
	assert_true(pg_folded_valid("main;a b;c [k]"));
	assert_false(pg_folded_valid(""));
	assert_false(pg_folded_valid(NULL));
	assert_false(pg_folded_valid(";a"));
	assert_false(pg_folded_valid("a;"));
	assert_false(pg_folded_valid("a;;b"));
	assert_false(pg_folded_valid("a\nb"));
	assert_false(pg_folded_valid("a\x7f"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_write_parse_round_trip),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_valid),
	};

	return cmocka_run_group_tests_name("folded", tests, NULL, NULL);
}
