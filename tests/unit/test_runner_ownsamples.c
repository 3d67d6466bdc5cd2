// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_ownsamples.c - a repetition's own and inclusive samples by function,
 * object and program (runner/profile/ownsamples.h): a name two objects have stays two
 * functions, a function recurring in a stack counts once, and a table added up as it grows
 * keeps every count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../core/run.h"
#include "../../runner/profile/ownsamples.h"

/* Object paths that are no readable file: their names stay unscoped. */
#define SRV "/nonexistent/server"
#define CLI "/nonexistent/client"
#define LIBC "/nonexistent/libc.so.6"

/*
 * One stack of frames f[0..n) (root first), each in object obj[k], in the function symbol at
 * sym[k] (NULL: one per name's first letter), its leaf noted as own.
 */
static void stack(struct pg_owntab *t, const char *exe, const char *const *obj,
		  const char *const *f, const uint64_t *sym, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t a = sym ? sym[k] : 0x1000 + (uint64_t)f[k][0];

		assert_int_equal(pg_owntab_frame(t, obj[k], exe, f[k], strlen(f[k]), a), 0);
		if (k == n - 1)
			assert_int_equal(pg_owntab_note(t, obj[k], exe, f[k], strlen(f[k]), a,
							NULL), 0);
	}
	assert_int_equal(pg_owntab_stack_end(t), 0);
}

/* The count of (@obj, @exe, @frame) in v[0..n) (indices of @run's objects), 0 when absent. */
static uint64_t count_of(const struct pg_run *run, const struct pg_own *v, size_t n,
			 const char *obj, const char *exe, const char *frame)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(run->objects[v[i].object], obj) &&
		    !strcmp(run->objects[v[i].exe], exe) && !strcmp(v[i].frame, frame))
			return v[i].count;
	return 0;
}

static void test_incl(void **state)
{
	struct pg_owntab t = PG_OWNTAB_INIT;
	struct pg_run run;
	struct pg_rep *rep;
	/*
	 * the server's loop recursing once, and the client's loop: one name, two objects; the
	 * client's two unscoped helpers of one name (static functions of two files): one
	 */
	const char *const so[] = { LIBC, SRV, SRV, SRV }, *const sf[] = { "__libc_start_main",
		"loop", "loop", "step" };
	const char *const co[] = { LIBC, CLI, CLI, CLI, CLI }, *const cf[] = {
		"__libc_start_main", "main", "loop", "help", "help" };
	const uint64_t csym[] = { 0x10, 0x20, 0x30, 0x40, 0x50 };

	(void)state;
	pg_run_init(&run);
	rep = pg_run_add_rep(&run);
	assert_non_null(rep);
	for (int i = 0; i < 3; i++)
		stack(&t, SRV, so, sf, NULL, 4);
	stack(&t, CLI, co, cf, csym, 5);
	assert_int_equal(pg_owntab_take(&t, rep), 0);
	assert_int_equal(pg_owntab_objects(&t, &run), 0);
	assert_int_equal(rep->nincl, 7);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, CLI, CLI, "help"), 1);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, SRV, SRV, "loop"), 3);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, SRV, SRV, "step"), 3);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, CLI, CLI, "loop"), 1);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, CLI, CLI, "main"), 1);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, LIBC, SRV, "__libc_start_main"),
			 3);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, LIBC, CLI, "__libc_start_main"),
			 1);
	for (size_t i = 1; i < rep->nincl; i++)
		assert_true(pg_own_cmp(&rep->incl[i - 1], &rep->incl[i]) < 0);
	/* own samples: the leaves alone */
	assert_int_equal(rep->nown, 2);
	assert_int_equal(count_of(&run, rep->own, rep->nown, SRV, SRV, "step"), 3);
	assert_int_equal(count_of(&run, rep->own, rep->nown, CLI, CLI, "help"), 1);
	/* the table is empty for the next repetition */
	rep = pg_run_add_rep(&run);
	assert_int_equal(pg_owntab_take(&t, rep), 0);
	assert_int_equal(rep->nincl + rep->nown, 0);
	pg_owntab_release(&t);
	pg_run_release(&run);
}

/* Many stacks: the inclusive table is added up on the way, and every sample still counts. */
static void test_many(void **state)
{
	struct pg_owntab t = PG_OWNTAB_INIT;
	struct pg_run run;
	struct pg_rep *rep;
	const char *const o[] = { SRV, SRV }, *const f[] = { "main", "loop" };
	const char *const o2[] = { SRV, SRV }, *const f2[] = { "main", "idle" };

	(void)state;
	pg_run_init(&run);
	rep = pg_run_add_rep(&run);
	assert_non_null(rep);
	for (int i = 0; i < 20000; i++)
		stack(&t, NULL, i % 4 ? o : o2, i % 4 ? f : f2, NULL, 2);
	assert_int_equal(pg_owntab_take(&t, rep), 0);
	assert_int_equal(pg_owntab_objects(&t, &run), 0);
	assert_int_equal(rep->nincl, 3);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, SRV, SRV, "main"), 20000);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, SRV, SRV, "loop"), 15000);
	assert_int_equal(count_of(&run, rep->incl, rep->nincl, SRV, SRV, "idle"), 5000);
	pg_owntab_release(&t);
	pg_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incl),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
