// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_runner_elfsyms.c - the kind of probe site of a function's first instruction
 * (pg_classify_site(), runner/select/elfsyms.h): every 5-byte nop the kernel optimizes is nop5
 * (gcc's `nopl 0x0(%rax,%rax,1)` and clang's patchable entry `nopl 0x8(%rax,%rax,1)` among
 * them), shorter and longer nops and `push` are emulated, anything else single-stepped; a
 * leading endbr64 is skipped. The knob test program (clang -fpatchable-function-entry=5) is
 * found in $PROGS (default build/progs).
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

struct site_case {
	const char *what;
	unsigned char code[8];
	size_t len;
	enum pg_site site;
};

static const struct site_case cases[] = {
	{ "gcc -pg -mfentry -mnop-mcount", { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 }, 6,
	  PG_SITE_NOP5 },
	{ "clang -fpatchable-function-entry=5", { 0x0f, 0x1f, 0x44, 0x00, 0x08, 0x55 }, 6,
	  PG_SITE_NOP5 },
	{ "nopl 0x7f(%rcx,%rax,1)", { 0x0f, 0x1f, 0x44, 0x01, 0x7f }, 5, PG_SITE_NOP5 },
	{ "nopw 0x0(%rax)", { 0x66, 0x0f, 0x1f, 0x40, 0x00 }, 5, PG_SITE_NOP5 },
	{ "data16 nopw (%rax)", { 0x66, 0x66, 0x0f, 0x1f, 0x00 }, 5, PG_SITE_NOP5 },
	{ "rex.w nopl 0x0(%rax)", { 0x48, 0x0f, 0x1f, 0x40, 0x00 }, 5, PG_SITE_NOP5 },
	{ "data16 nopw %ax", { 0x66, 0x66, 0x0f, 0x1f, 0xc0 }, 5, PG_SITE_NOP5 },
	{ "data16 x4 nop", { 0x66, 0x66, 0x66, 0x66, 0x90 }, 5, PG_SITE_NOP5 },
	{ "endbr64; nopl 0x8(...)", { 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00 }, 8,
	  PG_SITE_EMULATED },	/* cut short: not all 5 bytes */
	{ "nopl 0x0(%rax) (4 bytes)", { 0x0f, 0x1f, 0x40, 0x00, 0x90 }, 5, PG_SITE_EMULATED },
	{ "nopw 0x0(%rax,%rax,1) (6 bytes)", { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 6,
	  PG_SITE_EMULATED },
	{ "nopl 0x0(%rax) (7 bytes)", { 0x0f, 0x1f, 0x80, 0, 0, 0, 0 }, 7, PG_SITE_EMULATED },
	{ "nopl with reg 1 (not a nop)", { 0x0f, 0x1f, 0x4c, 0x00, 0x00 }, 5, PG_SITE_EMULATED },
	{ "gcc -fpatchable-function-entry=5", { 0x90, 0x90, 0x90, 0x90, 0x90 }, 5,
	  PG_SITE_EMULATED },
	{ "xchg %rax,%r8", { 0x49, 0x90, 0x90, 0x90, 0x90 }, 5, PG_SITE_SSTEP },
	{ "push %rbp", { 0x55, 0x48, 0x89, 0xe5 }, 4, PG_SITE_EMULATED },
	{ "sub $8,%rsp", { 0x48, 0x83, 0xec, 0x08 }, 4, PG_SITE_SSTEP },
	{ "truncated nop5", { 0x0f, 0x1f, 0x44, 0x00 }, 4, PG_SITE_EMULATED },
	{ "empty", { 0 }, 0, PG_SITE_UNKNOWN },
};

static void test_classify(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool endbr = true;
		enum pg_site got = pg_classify_site(cases[i].code, cases[i].len, &endbr);

		if (got != cases[i].site)
			fail_msg("%s: %s, want %s", cases[i].what, pg_site_name(got),
				 pg_site_name(cases[i].site));
		assert_int_equal(endbr, cases[i].code[0] == 0xf3);
	}
}

static void test_endbr(void **state)
{
	static const unsigned char c[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00, 0x08 };
	bool endbr = false;

	assert_int_equal(pg_classify_site(c, sizeof(c), &endbr), PG_SITE_NOP5);
	assert_true(endbr);
}

/* clang's patchable entries, as built: every traced function of knob is a nop5 site */
static void test_clang_patchable(void **state)
{
	const char *dir = getenv("PROGS");
	struct pg_elf_syms syms;
	char *path;
	size_t n = 0;

	assert_true(asprintf(&path, "%s/knob", dir ? dir : "build/progs") > 0);
	assert_int_equal(pg_elf_syms_load(path, &syms), 0);
	for (size_t i = 0; i < syms.n; i++) {
		const char *name = syms.syms[i].name;

		if (strcmp(name, "main") && strcmp(name, "checksum") && strncmp(name, "leaf_", 5))
			continue;
		assert_int_equal(syms.syms[i].site, PG_SITE_NOP5);
		n++;
	}
	assert_int_equal(n, 4);
	pg_elf_syms_release(&syms);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_endbr),
		cmocka_unit_test(test_clang_patchable),
	};

	pg_log_set_level(PG_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
