// SPDX-License-Identifier: MIT
/*
 * Unit tests of Google Benchmark's figures (docs/gbench.md): its JSON output read into values
 * (formats/gbench.c: aggregates left out, in-process repetitions pooled by their median, time
 * units, counters, errors, bad input refused), the run file's "gbench" table round trip and
 * its checks, the harness predicate, and the comparison of benchmarks (diff/gbench.c: judged
 * in the functions' family, added and removed, errored runs).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/gbench.h"
#include "../../diff/compare.h"
#include "../../diff/gbench.h"
#include "../../formats/gbench.h"
#include "../../formats/runfile.h"
#include "fixtures.h"
#include "util.h"

static const char output[] =
	"{\"context\": {\"executable\": \"./b\"}, \"benchmarks\": ["
	"{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\","
	" \"repetitions\": 3, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 100,"
	" \"real_time\": 3.0, \"cpu_time\": 2.0, \"time_unit\": \"us\", \"items\": 10},"
	"{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\","
	" \"repetitions\": 3, \"repetition_index\": 1, \"threads\": 1, \"iterations\": 90,"
	" \"real_time\": 5.0, \"cpu_time\": 4.0, \"time_unit\": \"us\", \"items\": 30},"
	"{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\","
	" \"repetitions\": 3, \"repetition_index\": 2, \"threads\": 1, \"iterations\": 80,"
	" \"real_time\": 4.0, \"cpu_time\": 3.0, \"time_unit\": \"us\", \"items\": 20},"
	"{\"name\": \"BM_a_mean\", \"run_name\": \"BM_a\", \"run_type\": \"aggregate\","
	" \"aggregate_name\": \"mean\", \"iterations\": 3, \"real_time\": 99.0,"
	" \"cpu_time\": 99.0, \"time_unit\": \"us\"},"
	"{\"name\": \"BM_err/8\", \"run_name\": \"BM_err/8\", \"run_type\": \"iteration\","
	" \"iterations\": 0, \"real_time\": 0, \"cpu_time\": 0, \"time_unit\": \"ns\","
	" \"error_occurred\": true, \"error_message\": \"no input\"},"
	"{\"name\": \"BM_0\", \"iterations\": 7, \"real_time\": 1.5, \"cpu_time\": 1.25,"
	" \"time_unit\": \"ms\", \"label\": \"text\", \"rate\": Infinity, \"nan\": NaN}"
	"]}";

static void test_parse_output(void **state)
{
	struct pg_gb_value *v;
	size_t n;

	assert_int_equal(pg_gb_parse_output(output, strlen(output), "t", &v, &n), 0);
	assert_int_equal(n, 3);
	/* sorted by name; aggregates left out */
	assert_string_equal(v[0].name, "BM_0");
	assert_string_equal(v[1].name, "BM_a");
	assert_string_equal(v[2].name, "BM_err/8");
	/* units to ns; no counters from strings, nor infinite or NaN ones */
	assert_true(fabs(v[0].real_ns - 1.5e6) < 1e-6 && fabs(v[0].cpu_ns - 1.25e6) < 1e-6);
	assert_int_equal(v[0].iterations, 7);
	assert_int_equal(v[0].ncounters, 0);
	assert_int_equal(v[0].inproc_reps, 1);
	/* three runs in the process: the median of each figure */
	assert_int_equal(v[1].inproc_reps, 3);
	assert_true(fabs(v[1].real_ns - 4000) < 1e-9 && fabs(v[1].cpu_ns - 3000) < 1e-9);
	assert_int_equal(v[1].iterations, 90);
	assert_int_equal(v[1].ncounters, 1);
	assert_string_equal(v[1].counters[0].name, "items");
	assert_true(v[1].counters[0].value == 20);
	/* an error, with its message */
	assert_int_equal(v[2].state, PG_GB_ERROR);
	assert_string_equal(v[2].message, "no input");
	assert_int_equal(pg_gb_check(v, n, NULL, 0), 0);
	pg_gb_values_free(v, n);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"context\": {}}",
		"{\"benchmarks\": [{\"name\": \"x\", \"iterations\": 1, \"real_time\": 1,"
		" \"cpu_time\": 1, \"time_unit\": \"fortnights\"}]}",
		"{\"benchmarks\": [{\"name\": \"x\", \"iterations\": 1, \"cpu_time\": 1}]}",
		"{\"benchmarks\": [{\"name\": \"\", \"iterations\": 1, \"real_time\": 1,"
		" \"cpu_time\": 1}]}",
		"{\"benchmarks\": [{\"name\": \"x\", \"iterations\": 1, \"real_time\": -1,"
		" \"cpu_time\": 1}]}",
		"{\"benchmarks\": [], \"x\": 1} trailing",
	};
	struct pg_gb_value *v;
	size_t n;

	pg_log_set_level(PG_LOG_ERROR - 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(pg_gb_parse_output(bad[i], strlen(bad[i]), "t", &v, &n), -EINVAL);
		assert_null(v);
		assert_int_equal(n, 0);
	}
	pg_log_set_level(PG_LOG_INFO);
}

/* Two benchmarks registered under one name, each run twice in the process (spdlog's
 * formatter-bench registers "%l" twice): told apart by their family, each pooled */
static void test_parse_same_name(void **state)
{
	static const char dup[] =
		"{\"benchmarks\": ["
		"{\"name\": \"%l\", \"family_index\": 0, \"per_family_instance_index\": 0,"
		" \"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 0,"
		" \"iterations\": 10, \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"ns\"},"
		"{\"name\": \"%l\", \"family_index\": 0, \"per_family_instance_index\": 0,"
		" \"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 1,"
		" \"iterations\": 10, \"real_time\": 3, \"cpu_time\": 3, \"time_unit\": \"ns\"},"
		"{\"name\": \"%v\", \"family_index\": 1, \"per_family_instance_index\": 0,"
		" \"iterations\": 10, \"real_time\": 5, \"cpu_time\": 5, \"time_unit\": \"ns\"},"
		"{\"name\": \"%l\", \"family_index\": 2, \"per_family_instance_index\": 0,"
		" \"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 0,"
		" \"iterations\": 10, \"real_time\": 7, \"cpu_time\": 7, \"time_unit\": \"ns\"},"
		"{\"name\": \"%l\", \"family_index\": 2, \"per_family_instance_index\": 0,"
		" \"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 1,"
		" \"iterations\": 10, \"real_time\": 9, \"cpu_time\": 9, \"time_unit\": \"ns\"}"
		"]}";
	struct pg_gb_value *v;
	size_t n;

	pg_log_set_level(PG_LOG_ERROR - 1);
	assert_int_equal(pg_gb_parse_output(dup, strlen(dup), "t", &v, &n), 0);
	pg_log_set_level(PG_LOG_INFO);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "%l");
	assert_int_equal(v[0].inproc_reps, 2);
	assert_true(v[0].cpu_ns == 2);
	assert_string_equal(v[1].name, "%l#2");
	assert_int_equal(v[1].inproc_reps, 2);
	assert_true(v[1].cpu_ns == 8);
	assert_string_equal(v[2].name, "%v");
	assert_int_equal(pg_gb_check(v, n, NULL, 0), 0);
	pg_gb_values_free(v, n);
}

static void test_harness(void **state)
{
	assert_true(pg_gb_harness("_ZN9benchmark5State16StartKeepRunningEv"));
	assert_true(pg_gb_harness("benchmark::RunSpecifiedBenchmarks()"));
	assert_true(pg_gb_harness("_ZL7BM_hashRN9benchmark5StateE"));
	assert_true(pg_gb_body("BM_hash(benchmark::State&)"));
	/* std::map<std::string, benchmark::Counter>::_M_insert_node, compiled into the program */
	assert_true(pg_gb_harness("_ZNSt8_Rb_treeINSt7__cxx1112basic_stringIcSt11char_traitsIcE"
				  "SaIcEEESt4pairIKS5_N9benchmark7CounterEESt10_Select1stISA_E"
				  "St4lessIS5_ESaISA_EE14_M_insert_nodeEPSt18_Rb_tree_node_baseSI_"
				  "PSt13_Rb_tree_nodeISA_E"));
	assert_false(pg_gb_harness("_ZN11mybenchmark3runEv"));
	assert_false(pg_gb_harness("_Z9leaf_hashm"));
	assert_false(pg_gb_harness("main"));
	assert_false(pg_gb_body("benchmarker"));
	/* a body with arguments of its own, as spdlog's formatter-bench registers one */
	assert_true(pg_gb_body("bench_formatter(benchmark::State&, std::__cxx11::basic_string<char,"
			       " std::char_traits<char>, std::allocator<char> >)"));
	assert_false(pg_gb_body("f(benchmark::State&&)"));
	assert_false(pg_gb_body("g(benchmark::Stateful&)"));
	/* the harness frames around such a body name its type, and are none */
	assert_false(pg_gb_body("benchmark::internal::LambdaBenchmark<benchmark::RegisterBenchmark<"
				"void (*)(benchmark::State&, int), int&>(char const*, void (*&&)("
				"benchmark::State&, int), int&)::{lambda(benchmark::State&)#1}>::"
				"Run(benchmark::State&)"));
	assert_false(pg_gb_body("benchmark::internal::Benchmark* benchmark::RegisterBenchmark<"
				"void (*)(benchmark::State&, int), int&>(char const*, void (*&&)("
				"benchmark::State&, int), int&)"));
	assert_true(pg_gb_body("main::{lambda(benchmark::State&)#1}::operator()("
			       "benchmark::State&) const"));
}

/* Benchmark @name with CPU time @ns in repetition @rep (kept sorted by the caller) */
static void add_bench(struct pg_rep *rep, const char *name, double ns, enum pg_gb_state st)
{
	struct pg_gb_value *v;

	rep->bench = realloc(rep->bench, (rep->nbench + 1) * sizeof(*rep->bench));
	assert_non_null(rep->bench);
	v = &rep->bench[rep->nbench++];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->state = st;
	v->real_ns = ns * 1.01;
	v->cpu_ns = ns;
	v->iterations = (uint64_t)(1e8 / ns);
	v->inproc_reps = 1;
	v->threads = 1;
	if (st == PG_GB_ERROR)
		v->message = strdup("boom");
}

/* @reps repetitions: BM_a at 1000 ns (times @slow), BM_b at 500 ns (errored in the new run's
 * first with @err), BM_only (only with @only) */
static void make_run(struct pg_run *run, int reps, double slow, bool err, bool only, uint64_t seed)
{
	pg_run_init(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(2, sizeof(char *));
	run->meta.argv[0] = strdup("./b");
	run->meta.repetitions = (uint32_t)reps;
	pg_fx_func(run, "/bin/b", "main", NULL, PG_SITE_NOP5);
	for (int r = 0; r < reps; r++) {
		struct pg_rep *rep = pg_fx_rep(run, 100000000);
		static const uint64_t one[] = { 100000000 };

		pg_fx_stat(rep, 0, one, 1);
		add_bench(rep, "BM_a", 1000 * slow * (1 + 0.01 * pg_fx_uniform(&seed)), PG_GB_OK);
		add_bench(rep, "BM_b", 500 * (1 + 0.01 * pg_fx_uniform(&seed)),
			  err && r == 0 ? PG_GB_ERROR : PG_GB_OK);
		if (only)
			add_bench(rep, "BM_only", 10, PG_GB_OK);
	}
}

static void test_runfile_roundtrip(void **state)
{
	char dir[] = "/tmp/pg-test-gbench-XXXXXX", path[64], *text;
	struct pg_run run, back;
	struct pg_gb_value *c;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	make_run(&run, 2, 1, true, false, 7);
	c = &run.reps[1].bench[0];
	c->counters = calloc(2, sizeof(*c->counters));
	c->counters[0] = (struct pg_gb_counter){ strdup("bytes"), 1.5e9 };
	c->counters[1] = (struct pg_gb_counter){ strdup("items"), 0.25 };
	c->ncounters = 2;
	assert_int_equal(pg_runfile_write(&run, path), 0);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	for (size_t r = 0; r < 2; r++) {
		assert_int_equal(back.reps[r].nbench, 2);
		for (size_t i = 0; i < 2; i++) {
			const struct pg_gb_value *a = &run.reps[r].bench[i];
			const struct pg_gb_value *b = &back.reps[r].bench[i];

			assert_string_equal(a->name, b->name);
			assert_int_equal(a->state, b->state);
			assert_true(a->cpu_ns == b->cpu_ns && a->real_ns == b->real_ns);
			assert_int_equal(a->iterations, b->iterations);
			assert_int_equal(a->ncounters, b->ncounters);
		}
	}
	assert_string_equal(back.reps[0].bench[1].message, "boom");
	assert_string_equal(back.reps[1].bench[0].counters[1].name, "items");
	assert_true(back.reps[1].bench[0].counters[0].value == 1.5e9);
	pg_run_release(&back);

	/* out of order: refused with a message */
	text = pg_test_slurp(path, NULL);
	assert_non_null(strstr(text, "\"name\":\"BM_a\""));
	memcpy(strstr(text, "\"name\":\"BM_a\"") + 8, "BM_c", 4);
	pg_log_set_level(PG_LOG_ERROR - 1);
	pg_run_init(&back);
	assert_int_equal(pg_runfile_parse(text, strlen(text), "t", &back), -EINVAL);
	pg_log_set_level(PG_LOG_INFO);
	free(text);
	pg_run_release(&run);
	unlink(path);
	rmdir(dir);
}

static void test_compare(void **state)
{
	struct pg_run base, new;
	struct pg_comparison c;
	const struct pg_fcmp *a, *b, *only;

	make_run(&base, 10, 1, false, false, 1);
	make_run(&new, 10, 1.2, true, true, 2);
	pg_comparison_init(&c);
	assert_int_equal(pg_compare(&base, &new, NULL, &c), 0);
	a = pg_fx_find(&c, "BM_a");
	b = pg_fx_find(&c, "BM_b");
	only = pg_fx_find(&c, "BM_only");
	assert_true(pg_gb_is_bench(a) && pg_gb_is_bench(b) && pg_gb_is_bench(only));
	assert_int_equal(a->verdict, PG_VERDICT_REGRESSION);
	assert_true(a->change > 0.15 && a->change < 0.25);
	assert_true(a->impact == a->change);	/* its own program */
	assert_int_equal(b->n_new, 9);		/* the errored repetition gives no value */
	assert_int_not_equal(b->verdict, PG_VERDICT_REGRESSION);
	assert_int_equal(only->verdict, PG_VERDICT_ADDED);
	assert_int_equal(c.overall, PG_OVERALL_REGRESSION);
	/* one family: main, the two benchmarks and the program's wall time tested together */
	assert_int_equal(c.ntested, 4);
	pg_comparison_release(&c);
	pg_run_release(&base);
	pg_run_release(&new);
}

/* The reason of function @name after pg_gb_finish() on runs whose stacks are @stacks */
static void attributed(const char *stacks, const char *name, const char *want)
{
	struct pg_run base, new;
	struct pg_comparison c;
	const struct pg_fcmp *f;

	pg_run_init(&base);
	pg_run_init(&new);
	pg_fx_stacks(&new, stacks);
	pg_comparison_init(&c);
	pg_fx_fcmp(&c, "/bin/b", "pad2", NULL, PG_VERDICT_REGRESSION);
	pg_fx_fcmp(&c, "/bin/b", "leaf", NULL, PG_VERDICT_REGRESSION);
	pg_fx_fcmp(&c, PG_GB_BINARY, "[%Y-%m-%d] %v/iterations:2500000", NULL,
		   PG_VERDICT_REGRESSION);
	pg_fx_fcmp(&c, PG_GB_BINARY, "[%Y-%m-%d] [%t] %v/iterations:2500000", NULL,
		   PG_VERDICT_REGRESSION);
	assert_int_equal(pg_gb_finish(&base, &new, &c), 0);
	assert_true(pg_gb_is_bench(&c.f[0]) && pg_gb_is_bench(&c.f[1]));	/* led */
	f = pg_fx_find(&c, name);
	assert_non_null(f);
	if (want)
		assert_non_null(strstr(f->reason, want));
	else
		assert_null(strstr(f->reason, "on the stacks of"));
	pg_comparison_release(&c);
	pg_run_release(&base);
	pg_run_release(&new);
}

/* Functions attributed to the benchmarks whose bodies they sit in, a body that takes arguments
 * of its own and runs every benchmark (spdlog's formatter-bench) included */
static void test_attribute(void **state)
{
	static const char one[] =
		"main;benchmark::internal::LambdaBenchmark<benchmark::RegisterBenchmark<void (*)("
		"benchmark::State&, std::string)>(char const*)::{lambda(benchmark::State&)#1}>::"
		"Run(benchmark::State&);bench_formatter(benchmark::State&, std::string);format;"
		"pad2 30\n"
		"main;benchmark::internal::LambdaBenchmark<benchmark::RegisterBenchmark<void (*)("
		"benchmark::State&, std::string)>(char const*)::{lambda(benchmark::State&)#1}>::"
		"Run(benchmark::State&);format 3\n"
		"main;bench_formatter(benchmark::State&, std::string);format 50\n"
		"main;setup;leaf 5\n";
	static const char two[] =
		"main;bench_formatter(benchmark::State&, std::string);pad2 30\n"
		"main;BM_x(benchmark::State&);leaf 50\n";

	attributed(one, "pad2", "; on the stacks of every benchmark (all 2 run by "
		   "bench_formatter)");
	attributed(one, "leaf", NULL);	/* outside any body */
	/* two bodies: the one that runs no benchmark of its name is said, not every benchmark */
	attributed(two, "pad2", "; on the stacks of the benchmarks of bench_formatter");
	attributed(two, "leaf", "; on the stacks of the benchmarks of BM_x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_output),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_same_name),
		cmocka_unit_test(test_harness),
		cmocka_unit_test(test_runfile_roundtrip),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_attribute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
