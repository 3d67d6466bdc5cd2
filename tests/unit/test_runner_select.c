// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_select.c - which functions record traces (runner/select/select.h), without
 * BPF: -f [BINARY:]GLOB parsing (the C++ "::" rule), filters, excludes, globs over demangled
 * names, aliases, the default selection and its cap, and --functions-of, over a synthetic
 * symbol table given to the selection with pg_selection_add(); the default selection once
 * over the real symbols of the test program nested ($PROGS, default build/progs).
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

#include "../../core/log.h"
#include "../../runner/select/select.h"

#define EXE "/nonexistent/bin/prog"

struct symspec {
	const char *name, *display;
	uint64_t addr;
};

/* sorted by address, then name, as pg_elf_syms_load() sorts them */
static const struct symspec prog_syms[] = {
	{ "_start", NULL, 0x1000 },
	{ "main", NULL, 0x1100 },
	{ "parse_header", NULL, 0x1200 },
	{ "parse_body", NULL, 0x1300 },
	{ "alias_of_lex", NULL, 0x1400 },
	{ "lex", NULL, 0x1400 },
	{ "_ZN2ns3fooEi", "ns::foo(int)", 0x1500 },
	{ "_ZN2ns3barEv", "ns::bar()", 0x1600 },
	{ "frame_dummy", NULL, 0x1700 },
};
#define NPROG (sizeof(prog_syms) / sizeof(prog_syms[0]))

/* A selection for the executable EXE whose symbols are prog_syms. */
static void sel_init(struct pg_selection *sel)
{
	struct pg_elf_syms syms = { 0 };

	memset(sel, 0, sizeof(*sel));
	sel->exe = strdup(EXE);
	assert_non_null(sel->exe);
	syms.path = strdup(EXE);
	syms.syms = calloc(NPROG, sizeof(*syms.syms));
	assert_non_null(syms.syms);
	for (size_t i = 0; i < NPROG; i++) {
		struct pg_sym *s = &syms.syms[i];

		s->name = strdup(prog_syms[i].name);
		s->display = prog_syms[i].display ? strdup(prog_syms[i].display) : NULL;
		s->addr = prog_syms[i].addr;
		s->offset = prog_syms[i].addr;
		s->site = PG_SITE_NOP5;
		s->global = true;
	}
	syms.n = NPROG;
	assert_int_equal(pg_selection_add(sel, EXE, &syms), 0);
	assert_int_equal(syms.n, 0);	/* taken over */
}

static const struct pg_record_opts default_opts = { .max_funcs = PG_DEFAULT_MAX_FUNCS };

/*
 * Select with filters @f (NULL-terminated, may be NULL) and excludes @x and build @run;
 * returns the first error.
 */
static int select_run(struct pg_record_opts o, char **f, char **x, struct pg_run *run)
{
	struct pg_selection sel;
	size_t sites[PG_SITE_COUNT] = { 0 };
	int err;

	for (o.nfilters = 0; f && f[o.nfilters]; o.nfilters++)
		;
	for (o.nexcludes = 0; x && x[o.nexcludes]; o.nexcludes++)
		;
	o.filters = f;
	o.excludes = x;
	sel_init(&sel);
	pg_run_init(run);
	err = pg_select(&sel, &o);
	err = err ?: pg_selection_build(&sel, run, sites);
	if (!err)
		assert_int_equal(sites[PG_SITE_NOP5], run->nfuncs);
	pg_selection_release(&sel);
	assert_null(sel.bins);
	return err;
}

/* The run's functions' names, in order, ","-joined into @buf. */
static const char *names(const struct pg_run *run, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < run->nfuncs; i++) {
		assert_string_equal(run->funcs[i].binary, EXE);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "",
				       run->funcs[i].name);
		assert_true(at < len);
	}
	return buf;
}

/* Select with one filter and excludes, expecting success and exactly the functions @want. */
static void expect(const char *filter, const char *exclude, const char *want)
{
	char *f[] = { (char *)filter, NULL }, *x[] = { (char *)exclude, NULL };
	struct pg_run run;
	char buf[512];

	assert_int_equal(select_run(default_opts, filter ? f : NULL, exclude ? x : NULL, &run),
			 0);
	assert_string_equal(names(&run, buf, sizeof(buf)), want);
	pg_run_release(&run);
}

/* Select expecting the error @err. */
static void expect_err(const char *filter, const char *exclude, int err)
{
	char *f[] = { (char *)filter, NULL }, *x[] = { (char *)exclude, NULL };
	struct pg_run run;

	assert_int_equal(select_run(default_opts, filter ? f : NULL, exclude ? x : NULL, &run),
			 err);
	pg_run_release(&run);
}

static void parse_ok(const char *spec, const char *binary, const char *glob)
{
	char *b = (char *)"unset", *g = (char *)"unset";

	assert_int_equal(pg_parse_filter(spec, &b, &g), 0);
	if (binary)
		assert_string_equal(b, binary);
	else
		assert_null(b);
	assert_string_equal(g, glob);
	free(b);
	free(g);
}

static void parse_bad(const char *spec)
{
	char *b = (char *)"unset", *g = (char *)"unset";

	assert_int_equal(pg_parse_filter(spec, &b, &g), -EINVAL);
	assert_null(b);
	assert_null(g);
}

static void test_parse_filter(void **state)
{
	(void)state;
	parse_ok("main", NULL, "main");
	parse_ok("libz.so.1:inflate*", "libz.so.1", "inflate*");
	parse_ok("./build/app:parse_*", "./build/app", "parse_*");
	/* C++ scopes are not a BINARY: prefix, before or after one */
	parse_ok("ns::foo", NULL, "ns::foo");
	parse_ok("a::b::c*", NULL, "a::b::c*");
	parse_ok("app:ns::foo", "app", "ns::foo");
	parse_ok("ns::f:x", "ns::f", "x");	/* the first single ':' splits */
	parse_ok("lib:a:b", "lib", "a:b");
	parse_bad("");
	parse_bad(":main");
	parse_bad("app:");
}

static void test_filters(void **state)
{
	(void)state;
	expect("parse_*", NULL, "parse_header,parse_body");
	expect("main", NULL, "main");
	/* several filters add up */
	{
		char *f[] = { "main", "parse_body", NULL };
		struct pg_run run;
		char buf[256];

		assert_int_equal(select_run(default_opts, f, NULL, &run), 0);
		assert_string_equal(names(&run, buf, sizeof(buf)), "main,parse_body");
		pg_run_release(&run);
	}
	/* the executable's own base name as BINARY: prefix */
	expect("prog:lex", NULL, "lex");
}

/* Globs match the symbol name, the demangled name, and the demangled name without params. */
static void test_demangled(void **state)
{
	(void)state;
	expect("ns::foo", NULL, "_ZN2ns3fooEi");
	expect("ns::*", NULL, "_ZN2ns3fooEi,_ZN2ns3barEv");
	expect("ns::bar()", NULL, "_ZN2ns3barEv");
	expect("_ZN2ns3bar*", NULL, "_ZN2ns3barEv");
	expect_err("ns::baz", NULL, -ENOENT);
}

/* One function per address: aliases chosen together are traced once, under the first name. */
static void test_aliases(void **state)
{
	(void)state;
	expect("*lex", NULL, "alias_of_lex");
	expect("*lex", "alias_of_lex", "lex");
	expect("*lex", "lex", "alias_of_lex");
}

static void test_excludes(void **state)
{
	(void)state;
	expect("parse_*", "*_body", "parse_header");
	expect("parse_*", "prog:parse_header", "parse_body");
}

static void test_errors(void **state)
{
	(void)state;
	expect_err("nothing_matches*", NULL, -ENOENT);
	expect_err(":main", NULL, -EINVAL);
	expect_err("parse_*", ":x", -EINVAL);
	expect_err("main", "main", -ENOENT);	/* every match excluded */
	/* a library that is nowhere */
	expect_err("libpg_no_such_library.so.7:f", NULL, -ENOENT);
	expect_err("main", "libpg_no_such_library.so.7:f", -ENOENT);
}

/* Without -f: every function but the C run-time helpers, up to max_funcs by address. */
static void test_default(void **state)
{
	struct pg_record_opts o = { .max_funcs = 3 };
	struct pg_run run;
	char buf[512];

	(void)state;
	expect(NULL, NULL, "main,parse_header,parse_body,alias_of_lex,_ZN2ns3fooEi,_ZN2ns3barEv");
	expect(NULL, "parse_*", "main,alias_of_lex,_ZN2ns3fooEi,_ZN2ns3barEv");
	assert_int_equal(select_run(o, NULL, NULL, &run), 0);
	assert_string_equal(names(&run, buf, sizeof(buf)), "main,parse_header,parse_body");
	pg_run_release(&run);
}

/* --functions-of: by symbol name, the binary by base name; what is gone is left out. */
static void test_functions_of(void **state)
{
	struct pg_run src, run;
	struct pg_record_opts o = default_opts;
	char buf[512];

	(void)state;
	pg_run_init(&src);
	assert_int_equal(pg_run_add_func(&src, "/old/checkout/prog", "parse_body", NULL, 0x10, 0x10,
					 PG_SITE_NOP5, false, NULL), 0);
	assert_int_equal(pg_run_add_func(&src, "/old/checkout/prog", "lex", NULL, 0x20, 0x20,
					 PG_SITE_NOP5, false, NULL), 0);
	assert_int_equal(pg_run_add_func(&src, "/old/checkout/prog", "removed_since", NULL, 0x30,
					 0x30, PG_SITE_NOP5, false, NULL), 0);
	assert_int_equal(pg_run_add_func(&src, "/old/lib/libpg_gone.so.3", "g", NULL, 0x10, 0x10,
					 PG_SITE_NOP5, false, NULL), 0);
	o.functions_of = &src;
	o.functions_of_path = "old.json";
	/* -f and -x are not used: --functions-of excludes them in the command line */
	assert_int_equal(select_run(o, NULL, NULL, &run), 0);
	/* by symbol name: lex, not its alias */
	assert_string_equal(names(&run, buf, sizeof(buf)), "parse_body,lex");
	pg_run_release(&run);
	pg_run_release(&src);

	/* none of its functions left: an error */
	pg_run_init(&src);
	assert_int_equal(pg_run_add_func(&src, "/old/checkout/prog", "removed_since", NULL, 0x30,
					 0x30, PG_SITE_NOP5, false, NULL), 0);
	o.functions_of = &src;
	assert_int_equal(select_run(o, NULL, NULL, &run), -ENOENT);
	pg_run_release(&run);
	pg_run_release(&src);
}

/* An executable that cannot be read has nothing to select. */
static void test_unreadable_exe(void **state)
{
	struct pg_selection sel = { 0 };

	(void)state;
	sel.exe = strdup("/nonexistent/bin/other");
	assert_int_equal(pg_select(&sel, &default_opts), -ENOENT);
	assert_int_equal(sel.nbins, 0);
	pg_selection_release(&sel);
}

/* The default selection over a real program's symbols. */
static void test_real_binary(void **state)
{
	const char *dir = getenv("PROGS");
	struct pg_selection sel = { 0 };
	size_t sites[PG_SITE_COUNT] = { 0 }, nsites = 0;
	struct pg_run run;
	char *path;
	bool seen_main = false;

	(void)state;
	assert_true(asprintf(&path, "%s/nested", dir ? dir : "build/progs") > 0);
	assert_int_equal(pg_selection_init(&sel, path, NULL), 0);
	assert_non_null(strstr(sel.exe, "/nested"));
	pg_run_init(&run);
	assert_int_equal(pg_select(&sel, &default_opts), 0);
	assert_int_equal(pg_selection_build(&sel, &run, sites), 0);
	for (size_t i = 0; i < run.nfuncs; i++) {
		assert_false(pg_sym_is_runtime(run.funcs[i].name));
		assert_string_equal(run.funcs[i].binary, sel.exe);
		seen_main |= !strcmp(run.funcs[i].name, "main");
	}
	assert_true(seen_main);
	assert_int_equal(run.nfuncs, 5);	/* spin, inner, outer, fib, main */
	for (int k = 0; k < PG_SITE_COUNT; k++)
		nsites += sites[k];
	assert_int_equal(nsites, 5);
	pg_run_release(&run);
	pg_selection_release(&sel);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_filter),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_demangled),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_excludes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_functions_of),
		cmocka_unit_test(test_unreadable_exe),
		cmocka_unit_test(test_real_binary),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
