// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_program.c - the whole program's CPU time between two recordings against the
 * machine's speed its functions tell (diff/program.h, pg_program_settle()): which verdicts
 * the drift turns inconclusive, and which it leaves.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../diff/program.h"

/* @f, the program's CPU time of two recordings whose functions say the machine ran @shift,
 * after pg_program_settle(). */
static struct pg_fcmp settle(struct pg_fcmp f, double shift)
{
	char name[] = PG_PROGRAM_CPU;
	struct pg_comparison c;

	memset(&c, 0, sizeof(c));
	c.opts.min_effect = 0.05;
	c.speed_runs = c.speed_applied = true;
	c.speed_shift = shift;
	c.program_spin = NAN;
	f.origin = PG_ORIGIN_PROGRAM;
	f.name = name;
	c.f = &f;
	c.n = 1;
	pg_program_settle(&c);
	f.name = NULL;
	return f;
}

static void test_settle(void **state)
{
	struct pg_fcmp f = { .change = 0.002, .ci_lo = -0.04, .ci_hi = 0.045,
			     .verdict = PG_VERDICT_UNCHANGED };

	/* unchanged stays unchanged when the machine ran slower or about the same: less that
	 * speed the program was faster ([-20.0%, -12.9%] for +20%) or still within 5% */
	assert_int_equal(settle(f, 0.2).verdict, PG_VERDICT_UNCHANGED);
	assert_int_equal(settle(f, 0.004).verdict, PG_VERDICT_UNCHANGED);
	/* but the functions ran 18.4% faster and the spin saw nothing: less that, the program
	 * was [+17.6%, +28.1%] slower: not ruled out, the drift its reason */
	assert_int_equal(settle(f, -0.184).verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(settle(f, -0.184).cause, PG_CAUSE_DRIFT);
	/* the kept zstd session: -15.0% [-21.2%, -3.0%] with the functions -18.4%: less that,
	 * [-3.4%, +18.9%] */
	f = (struct pg_fcmp){ .change = -0.15, .ci_lo = -0.212, .ci_hi = -0.03,
			      .verdict = PG_VERDICT_UNCHANGED };
	assert_int_equal(settle(f, -0.184).verdict, PG_VERDICT_INCONCLUSIVE);
	/* with the functions -4%: less that, [-17.9%, +1.0%], within 5% of no change */
	assert_int_equal(settle(f, -0.04).verdict, PG_VERDICT_UNCHANGED);
	/* a regression the machine's +25% explains: inconclusive, drift */
	f = (struct pg_fcmp){ .change = 0.28, .ci_lo = 0.16, .ci_hi = 0.42,
			      .verdict = PG_VERDICT_REGRESSION };
	assert_int_equal(settle(f, 0.25).verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(settle(f, 0.25).cause, PG_CAUSE_DRIFT);
	/* one it does not explain (the machine +1%): stays */
	assert_int_equal(settle(f, 0.01).verdict, PG_VERDICT_REGRESSION);
	/* too wide already, the machine +40% the same way: the drift its reason */
	f = (struct pg_fcmp){ .change = 0.37, .ci_lo = 0.04, .ci_hi = 0.79,
			      .verdict = PG_VERDICT_INCONCLUSIVE, .cause = PG_CAUSE_WIDE };
	assert_int_equal(settle(f, 0.4).verdict, PG_VERDICT_INCONCLUSIVE);
	assert_int_equal(settle(f, 0.4).cause, PG_CAUSE_DRIFT);
	/* the machine -40%, the other way: too wide stays its reason */
	assert_int_equal(settle(f, -0.4).cause, PG_CAUSE_WIDE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
