// SPDX-License-Identifier: MIT
/*
 * Code digests (runner/profile/codesum.h) and the table of the functions sampled frames name
 * (runner/profile/framecode.h), on this test's own executable: two functions of the same
 * instructions at different addresses have one digest; a different constant, or a call to another
 * function, gives another; a frame name seen in two functions, or inlined, gets none.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../runner/profile/codesum.h"
#include "../../runner/profile/framecode.h"
#include "../../runner/select/elfsyms.h"

/* noipa: the compiler must neither fold the twins into one nor inline them */
__attribute__((noipa)) int twin_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noipa)) int twin_b(int x)
{
	return x * 3 + 1;
}

__attribute__((noipa)) int other(int x)
{
	return x * 5 + 2;
}

__attribute__((noipa)) int call_a(int x)
{
	return twin_a(x) + 1;
}

__attribute__((noipa)) int call_b(int x)
{
	return twin_b(x) + 1;
}

static char self[4096];
static struct pg_elf_syms syms;

static uint64_t addr_of(const char *name)
{
	for (size_t i = 0; i < syms.n; i++)
		if (!strcmp(syms.syms[i].name, name))
			return syms.syms[i].addr;
	fail_msg("no symbol %s", name);
	return 0;
}

static uint64_t digest(struct pg_codesums *cs, const char *name)
{
	uint64_t d = 0;

	assert_int_equal(pg_codesum(cs, self, addr_of(name), &d), 0);
	assert_true(d != 0);
	return d;
}

static void test_digests(void **state)
{
	struct pg_codesums cs = PG_CODESUMS_INIT;
	uint64_t d;

	(void)state;
	assert_true(addr_of("twin_a") != addr_of("twin_b"));
	assert_true(digest(&cs, "twin_a") == digest(&cs, "twin_b"));
	assert_true(digest(&cs, "twin_a") == digest(&cs, "twin_a"));
	assert_true(digest(&cs, "twin_a") != digest(&cs, "other"));
	/* the same instructions, calling functions of other names */
	assert_true(digest(&cs, "call_a") != digest(&cs, "call_b"));
	/* not the start of a function; no such file */
	assert_int_equal(pg_codesum(&cs, self, addr_of("twin_a") + 1, &d), -ENOENT);
	assert_int_equal(pg_codesum(&cs, "/nonexistent/x", 0x1000, &d), -ENOENT);
	pg_codesums_release(&cs);
	assert_true(call_a(1) == call_b(1) && other(0) == 2);	/* keep them all */
}

static void note(struct pg_framecodes *t, const char *frame, int side, const char *path,
		 const char *sym)
{
	assert_int_equal(pg_framecodes_note(t, frame, strlen(frame), side, path,
					    sym ? addr_of(sym) : PG_NO_SYM), 0);
}

static void test_frames(void **state)
{
	struct pg_framecodes t = PG_FRAMECODES_INIT;
	struct pg_codesums cs = PG_CODESUMS_INIT;
	struct pg_run base, new;
	char many[64];

	(void)state;
	pg_run_init(&base);
	pg_run_init(&new);
	note(&t, "twin", 0, self, "twin_a");
	note(&t, "twin", 0, self, "twin_a");
	note(&t, "twin", 1, self, "twin_b");
	note(&t, "two", 0, self, "twin_a");		/* one name, two functions */
	note(&t, "two", 0, self, "other");
	note(&t, "inlined", 0, NULL, NULL);		/* an inlined frame */
	note(&t, "inlined", 0, self, "other");
	note(&t, "only_new", 1, self, "other");
	/* many more names than the table's first size */
	for (int i = 0; i < 300; i++) {
		snprintf(many, sizeof(many), "f%d", i);
		note(&t, many, 0, self, "other");
	}
	assert_int_equal(pg_framecodes_fill(&t, 0, &cs, &base), 0);
	assert_int_equal(pg_framecodes_fill(&t, 1, &cs, &new), 0);
	assert_int_equal(base.ncodes, 301);
	for (size_t i = 1; i < base.ncodes; i++)	/* sorted, unique */
		assert_true(strcmp(base.codes[i - 1].frame, base.codes[i].frame) < 0);
	assert_true(pg_run_code(&base, "twin") == digest(&cs, "twin_a"));
	assert_true(pg_run_code(&base, "f299") == digest(&cs, "other"));
	assert_true(pg_run_code(&base, "two") == 0);
	assert_true(pg_run_code(&base, "inlined") == 0);
	assert_true(pg_run_code(&base, "only_new") == 0);
	/* again, as at each look of an ab session: the same table in place of the first */
	assert_int_equal(pg_framecodes_fill(&t, 0, &cs, &base), 0);
	assert_int_equal(base.ncodes, 301);
	assert_true(pg_run_code(&base, "twin") == digest(&cs, "twin_a"));
	assert_int_equal(new.ncodes, 2);
	assert_true(pg_run_code(&new, "twin") == pg_run_code(&base, "twin"));
	assert_true(pg_run_code(&new, "only_new") == digest(&cs, "other"));
	pg_run_release(&base);
	pg_run_release(&new);
	pg_codesums_release(&cs);
	pg_framecodes_release(&t);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	self[n] = '\0';
	return pg_elf_syms_load(self, &syms);
}

static int teardown(void **state)
{
	(void)state;
	pg_elf_syms_release(&syms);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digests),
		cmocka_unit_test(test_frames),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
