// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_kshare.c - the share of a function's time that is the kernel's
 * (diff/kshare.h): samples owned by the innermost traced frame or the innermost frame of the
 * program, perfgate's probes left out, the blocked part, and too few samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "../../diff/kshare.h"

/* Both runs' stacks: a reader whose self time is a read(2) and a worker computing. The
 * worker's one probe firing (a breakpoint trap) is perfgate's, not the kernel's work. */
static const char *const stacks =
	"main;pool;read_job;__libc_read;entry_SYSCALL_64 [k];vfs_read [k];copy_to_iter [k] 9\n"
	"main;pool;read_job 1\n"
	"main;pool;work;crunch 18\n"
	"main;pool;work;crunch;asm_exc_page_fault [k];handle_mm_fault [k] 2\n"
	"main;pool;work;asm_exc_int3 [k];exc_int3 [k];do_int3_user [k];handle_swbp [k] 5\n"
	"main;few;write [k] 2\n";

struct fx {
	struct pg_run base, new;
	struct pg_comparison c;
};

static void entry(struct pg_comparison *c, enum pg_origin origin, const char *name)
{
	struct pg_fcmp *f = &c->f[c->n++];

	pg_fcmp_init(f);
	f->origin = origin;
	f->name = pg_fx_strdup(name);
	f->display = pg_fx_strdup(name);
	f->binary = pg_fx_strdup("prog");
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	pg_run_init(&x->base);
	pg_run_init(&x->new);
	pg_fx_stacks(&x->base, stacks);
	pg_fx_stacks(&x->new, stacks);
	assert_int_equal(pg_comparison_reserve(&x->c, 8), 0);
	entry(&x->c, PG_ORIGIN_EXACT, "read_job");
	entry(&x->c, PG_ORIGIN_EXACT, "work");
	entry(&x->c, PG_ORIGIN_EXACT, "pool");
	entry(&x->c, PG_ORIGIN_SAMPLED, "crunch");
	entry(&x->c, PG_ORIGIN_EXACT, "few");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	pg_comparison_release(&x->c);
	pg_run_release(&x->base);
	pg_run_release(&x->new);
	free(x);
	return 0;
}

static void test_self(void **state)
{
	struct fx *x = *state;

	assert_int_equal(pg_kshare(&x->c, &x->base, &x->new), 0);
	/* read_job owns 10 samples a run, 9 of them in the kernel */
	assert_float_equal(pg_fx_find(&x->c, "read_job")->kernel_share, 0.9, 1e-12);
	assert_true(pg_kshare_kernel(pg_fx_find(&x->c, "read_job")));
	/* work owns crunch's 20 (its probe's 5 are perfgate's and count as user time) and the
	 * 5 of its probe: 2 of the 25 are a page fault */
	assert_float_equal(pg_fx_find(&x->c, "work")->kernel_share, 2.0 / 25, 1e-12);
	assert_false(pg_kshare_kernel(pg_fx_find(&x->c, "work")));
	/* pool owns nothing of its own: not known */
	assert_true(isnan(pg_fx_find(&x->c, "pool")->kernel_share));
	assert_false(pg_kshare_kernel(pg_fx_find(&x->c, "pool")));
	/* the sampled crunch holds its own 18 and the 2 of its page faults */
	assert_float_equal(pg_fx_find(&x->c, "crunch")->kernel_share, 0.1, 1e-12);
	/* few: 4 samples, all the kernel's: PG_KSHARE_MIN_SAMPLES is enough */
	assert_float_equal(pg_fx_find(&x->c, "few")->kernel_share, 1, 1e-12);
}

static void test_blocked(void **state)
{
	struct fx *x = *state;
	struct pg_fcmp *work = (struct pg_fcmp *)pg_fx_find(&x->c, "work");
	struct pg_fcmp *pool = (struct pg_fcmp *)pg_fx_find(&x->c, "pool");

	/* work blocked half of its time: half plus the kernel's share of the rest */
	work->blocked_share = 0.5;
	/* pool has no samples of its own but is blocked 70% of its time */
	pool->blocked_share = 0.7;
	assert_int_equal(pg_kshare(&x->c, &x->base, &x->new), 0);
	assert_float_equal(work->kernel_share, 0.5 + 0.5 * 2.0 / 25, 1e-12);
	assert_float_equal(pool->kernel_share, 0.7, 1e-12);
	/* judged on-CPU: the blocked part is not in its time */
	work->by_cpu = true;
	pool->blocked_share = 0.3;
	assert_int_equal(pg_kshare(&x->c, &x->base, &x->new), 0);
	assert_float_equal(work->kernel_share, 2.0 / 25, 1e-12);
	assert_true(isnan(pool->kernel_share));
}

static void test_total(void **state)
{
	struct fx *x = *state;

	x->c.opts.metric = PG_METRIC_TOTAL;
	assert_int_equal(pg_kshare(&x->c, &x->base, &x->new), 0);
	/* pool's inclusive samples: 10 + 20 + 5 a run, 9 + 2 of them the kernel's */
	assert_float_equal(pg_fx_find(&x->c, "pool")->kernel_share, 11.0 / 35, 1e-12);
	assert_float_equal(pg_fx_find(&x->c, "read_job")->kernel_share, 0.9, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
