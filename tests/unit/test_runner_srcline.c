// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_srcline.c - declaration file and line from DWARF (runner/select/srcline.h)
 * for the test programs: knob (clang, DWARF 5) and nested (the system cc); a stripped copy has
 * none. The programs are found in $PROGS (default build/progs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../runner/select/elfsyms.h"
#include "../../runner/select/srcline.h"

static char *prog(const char *name)
{
	const char *dir = getenv("PROGS");
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir ? dir : "build/progs", name) > 0);
	return p;
}

/* A run with every function of @path, its source lines filled. */
static void load(struct pg_run *run, const char *path)
{
	struct pg_elf_syms syms;

	assert_int_equal(pg_elf_syms_load(path, &syms), 0);
	pg_run_init(run);
	for (size_t i = 0; i < syms.n; i++)
		assert_int_equal(pg_run_add_func(run, path, syms.syms[i].name, NULL,
						 syms.syms[i].addr, syms.syms[i].offset,
						 syms.syms[i].site, false, NULL), 0);
	pg_elf_syms_release(&syms);
	assert_int_equal(pg_srcline_fill(run, 0, path), 0);
}

static const struct pg_func *func(const struct pg_run *run, const char *name)
{
	for (size_t i = 0; i < run->nfuncs; i++)
		if (!strcmp(run->funcs[i].name, name))
			return &run->funcs[i];
	fail_msg("no function %s", name);
	return NULL;
}

static void check(const char *file, const char *fn, const char *src, uint32_t line)
{
	struct pg_run run;
	char *path = prog(file);
	const struct pg_func *f;
	size_t len;

	load(&run, path);
	f = func(&run, fn);
	assert_non_null(f->src_file);
	len = strlen(f->src_file);
	assert_true(len >= strlen(src));
	assert_string_equal(f->src_file + len - strlen(src), src);
	assert_int_equal(f->src_line, line);
	pg_run_release(&run);
	free(path);
}

/* The line of the first line of @file containing @needle (1-based). */
static uint32_t line_of(const char *file, const char *needle)
{
	char buf[512], *path;
	uint32_t n = 0;
	FILE *f;

	const char *src = getenv("PERFGATE_SRCDIR");

	assert_true(asprintf(&path, "%s/%s", src ? src : ".", file) > 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, needle))
			break;
	}
	fclose(f);
	free(path);
	return n;
}

static void test_clang_dwarf5(void **state)
{
	check("knob", "leaf_hash", "tests/progs/knob.c",
	      line_of("tests/progs/knob.c", "unsigned long leaf_hash("));
	check("knob", "main", "tests/progs/knob.c", line_of("tests/progs/knob.c", "int main("));
}

static void test_cc(void **state)
{
	struct pg_run run;
	char *path = prog("nested");

	load(&run, path);
	assert_non_null(func(&run, "main")->src_file);
	assert_non_null(strstr(func(&run, "main")->src_file, "nested.c"));
	assert_true(func(&run, "main")->src_line > 0);
	pg_run_release(&run);
	free(path);
}

static void test_no_dwarf(void **state)
{
	char tmp[] = "/tmp/pg-test-srcline-XXXXXX", cmd[512];
	char *path = prog("knob");
	struct pg_run run;

	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug %s %s/knob", path, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/knob", tmp);
	load(&run, cmd);
	for (size_t i = 0; i < run.nfuncs; i++) {
		assert_null(run.funcs[i].src_file);
		assert_int_equal(run.funcs[i].src_line, 0);
	}
	pg_run_release(&run);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clang_dwarf5),
		cmocka_unit_test(test_cc),
		cmocka_unit_test(test_no_dwarf),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
