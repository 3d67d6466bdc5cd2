// SPDX-License-Identifier: MIT
/* Unit tests of formats/pprof.c: the protobuf bytes of tiny profiles, computed by hand from the
 * field numbers of profile.proto (go tool pprof decodes real ones in tests/e2e/test_pprof.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../formats/pprof.h"
#include "../../core/run.h"

/* one stack "main" with 3 samples, no sampling rate, nothing else known */
static void test_minimal(void **state)
{
	static const unsigned char want[] = {
		/* sample_type (1): ValueType { type (1) = "samples", unit (2) = "count" } */
		0x0a, 0x04, 0x08, 0x03, 0x10, 0x01,
		/* sample (2): { location_id (1) packed [1], value (2) packed [3] } */
		0x12, 0x06, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x03,
		/* location (4): { id (1) = 1, line (4) = { function_id (1) = 1 } } */
		0x22, 0x06, 0x08, 0x01, 0x22, 0x02, 0x08, 0x01,
		/* function (5): { id = 1, name (2) = "main", system_name (3) = "main" } */
		0x2a, 0x06, 0x08, 0x01, 0x10, 0x02, 0x18, 0x02,
		/* string_table (6), sorted: "", "count", "main", "samples" */
		0x32, 0x00,
		0x32, 0x05, 'c', 'o', 'u', 'n', 't',
		0x32, 0x04, 'm', 'a', 'i', 'n',
		0x32, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's',
	};
	struct pg_stack st = { (char *)"main", 3 };
	struct pg_run run;
	unsigned char *out;
	size_t len;

	pg_run_init(&run);
	assert_int_equal(pg_pprof_encode(&run, &st, 1, &out, &len), 0);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	free(out);
	pg_run_release(&run);
}

static void expect_bytes(const unsigned char *out, size_t len, const unsigned char *want,
			 size_t n)
{
	assert_non_null(memmem(out, len, want, n));
}

/* leaf-first locations, the cpu value from the rate, multi-byte varints, the period */
static void test_rate(void **state)
{
	/* strings: "" count cpu f main nanoseconds samples; f has id 1, main id 2 */
	static const unsigned char types[] = {
		0x0a, 0x04, 0x08, 0x06, 0x10, 0x01,	/* samples/count */
		0x0a, 0x04, 0x08, 0x02, 0x10, 0x05,	/* cpu/nanoseconds */
	};
	static const unsigned char sample[] = {
		0x12, 0x0a, 0x0a, 0x02, 0x01, 0x02,	/* locations f, main */
		0x12, 0x04, 0x02, 0x80, 0x89, 0x7a,	/* 2 samples, 2,000,000 ns */
	};
	static const unsigned char tail[] = {
		0x5a, 0x04, 0x08, 0x02, 0x10, 0x05,	/* period_type (11) cpu/nanoseconds */
		0x60, 0xc0, 0x84, 0x3d,			/* period (12) 1,000,000 */
		0x70, 0x02,				/* default_sample_type (14) "cpu" */
	};
	struct pg_stack st = { (char *)"main;f", 2 };
	struct pg_run run;
	unsigned char *out;
	size_t len;

	pg_run_init(&run);
	run.meta.sample_hz = 1000;
	assert_int_equal(pg_pprof_encode(&run, &st, 1, &out, &len), 0);
	assert_memory_equal(out, types, sizeof(types));
	expect_bytes(out, len, sample, sizeof(sample));
	assert_true(len >= sizeof(tail));
	assert_memory_equal(out + len - sizeof(tail), tail, sizeof(tail));
	free(out);
	pg_run_release(&run);
}

/* mappings: the kernel for "[k]" frames, the module and address of module+0xADDR */
static void test_mappings(void **state)
{
	/* strings: "" [kernel.kallsyms] count libx.so libx.so+0x1234 main samples x [k] */
	static const unsigned char kernel[] = {
		0x1a, 0x0a, 0x08, 0x01, 0x28, 0x01, 0x38, 0x01, 0x40, 0x01, 0x48, 0x01,
	};
	static const unsigned char module[] = {
		0x1a, 0x0a, 0x08, 0x02, 0x28, 0x03, 0x38, 0x01, 0x40, 0x01, 0x48, 0x01,
	};
	/* location 1 = libx.so+0x1234: mapping 2, address 0x1234 */
	static const unsigned char loc[] = {
		0x22, 0x0b, 0x08, 0x01, 0x10, 0x02, 0x18, 0xb4, 0x24, 0x22, 0x02, 0x08, 0x01,
	};
	struct pg_stack st[] = {
		{ (char *)"main;libx.so+0x1234", 1 },
		{ (char *)"main;x [k]", 1 },
	};
	struct pg_run run;
	unsigned char *out;
	size_t len;

	pg_run_init(&run);
	assert_int_equal(pg_pprof_encode(&run, st, 2, &out, &len), 0);
	expect_bytes(out, len, kernel, sizeof(kernel));
	expect_bytes(out, len, module, sizeof(module));
	expect_bytes(out, len, loc, sizeof(loc));
	free(out);
	pg_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_mappings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
