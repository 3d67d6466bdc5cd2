// SPDX-License-Identifier: MIT
/* tests/unit/test_fmt.c - the formatting helpers the reporters share (reporters/fmt.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/env.h"
#include "../../core/strv.h"
#include "../../reporters/fmt.h"

/* pg_fmt_ellipsize_pair() of copies of @a and @b: @wa and @wb */
static void pair(const char *a, size_t amax, const char *wa, const char *b, size_t bmax,
		 const char *wb)
{
	char *x = strdup(a), *y = strdup(b);

	assert_non_null(x);
	assert_non_null(y);
	pg_fmt_ellipsize_pair(x, amax, y, bmax);
	assert_string_equal(x, wa);
	assert_string_equal(y, wb);
	free(x);
	free(y);
}

static void test_fmt(void **state)
{
	char b[PG_FMT_LEN], *s;
	struct pg_meta m = { 0 };
	char *argv[] = { "./a", "it's", "", "x=1" };

	(void)state;
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 3.456), "3.46 ns");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 812.4), "812 ns");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 999.7), "1.00 us");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 45600), "45.6 us");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 2.5e6), "2.50 ms");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), 1.2e10), "12.0 s");
	assert_string_equal(pg_fmt_ns(b, sizeof(b), NAN), "-");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), 0.123), "+12.3%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), -0.0001), "+0.0%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), -0.2), "-20.0%");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), INFINITY), "+inf");
	assert_string_equal(pg_fmt_pct(b, sizeof(b), NAN), "n/a");
	assert_string_equal(pg_fmt_interval(b, sizeof(b), -INFINITY, 0.5), "[-inf, +50.0%]");
	assert_string_equal(pg_fmt_interval(b, sizeof(b), NAN, NAN), "n/a");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 120), "120");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 12.5), "12.5");
	assert_string_equal(pg_fmt_count(b, sizeof(b), 1234567), "1.23M");
	assert_string_equal(pg_fmt_commit(b, sizeof(b), NULL), "?");

	s = strdup("abcdefghijklmnopqrstuvwxyz");
	pg_fmt_ellipsize(s, 11);
	assert_string_equal(s, "abcd...wxyz");
	pg_fmt_truncate(s, 6);
	assert_string_equal(s, "abc...");
	free(s);

	/* two commands that differ in the middle: each keeps where it differs */
	pair("/tmp/perfgate-e2e.abcdef/base/imgfilter 10", 20, "...cdef/base/imgf...",
	     "/tmp/perfgate-e2e.abcdef/new/imgfilter 10", 24, "...abcdef/new/imgfilt...");
	/* where they differ is at the end, or the start: the other end is cut */
	pair("./imgfilter --frames 10 --width 640 --height 480 --seed 1", 20,
	     "...ight 480 --seed 1",
	     "./imgfilter --frames 10 --width 640 --height 480 --seed 2", 20,
	     "...ight 480 --seed 2");
	pair("/a/bench --frames 10 --width 640 --height 480", 20, "/a/bench --frames...",
	     "/b/bench --frames 10 --width 640 --height 480", 20, "/b/bench --frames...");
	/* equal ones as pg_fmt_ellipsize; short ones untouched */
	pair("abcdefghijklmnopqrstuvwxyz", 11, "abcd...wxyz",
	     "abcdefghijklmnopqrstuvwxyz", 11, "abcd...wxyz");
	pair("./bench 1", 20, "./bench 1", "./bench 2", 20, "./bench 2");

	s = pg_fmt_utf8("a\xc3\xa9\xed\xa0\x80\xf4\x90\x80\x80\x01z\xef\xbf\xbe", true);
	assert_string_equal(s, "a\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "z\xef\xbf\xbd");
	free(s);
	s = pg_fmt_token(" \t a \n\n b  ", "x");
	assert_string_equal(s, "a b");
	free(s);
	s = pg_fmt_token(" \r ", "x");
	assert_string_equal(s, "x");
	free(s);
	s = pg_fmt_ascii("a\xc3\xa9\tb\xff");
	assert_string_equal(s, "a? b?");
	free(s);

	m.argc = 4;
	m.argv = argv;
	s = pg_fmt_command(&m);
	assert_string_equal(s, "./a 'it'\\''s' '' x=1");
	free(s);
	s = pg_fmt_command(NULL);
	assert_string_equal(s, "");
	free(s);
}

/* pg_fmt_wrap() of @s into lines of @width: what it wrote, in a static buffer. */
static const char *wrapped(const char *s, size_t width)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	pg_fmt_wrap(f, "> ", "  ", s, width);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A sentence is never cut: broken at spaces within the width, a long word whole on its line. */
static void test_wrap(void **state)
{
	(void)state;
	assert_string_equal(wrapped("short", 20), "> short\n");
	assert_string_equal(wrapped("", 20), "> \n");
	/* 10 columns: 8 of text after "> " and the indent */
	assert_string_equal(wrapped("aaa bbb ccc dd", 10), "> aaa bbb\n  ccc dd\n");
	/* a break falls exactly at the room's end; runs of spaces at a break are dropped */
	assert_string_equal(wrapped("aaaa bbb   cccccccc", 10), "> aaaa bbb\n  cccccccc\n");
	/* a word longer than the room stands alone, whole */
	assert_string_equal(wrapped("a verylongwordhere b", 10), "> a\n  verylongwordhere\n  b\n");
	assert_string_equal(wrapped("verylongwordhere", 10), "> verylongwordhere\n");
}

/* The environment kept sorted by key; the differences of two, known on both sides only. */
static void test_env_diff(void **state)
{
	struct pg_run a, b;
	char *d;

	pg_run_init(&a);
	pg_run_init(&b);
	assert_int_equal(pg_env_set(&a.meta, "os", "Debian 12"), 0);
	assert_int_equal(pg_env_set(&a.meta, "cpu_flags", "fpu sse avx"), 0);
	assert_int_equal(pg_env_set(&a.meta, "compilers", "GNU C17 12.2.0 -O2"), 0);
	assert_int_equal(pg_env_set(&a.meta, "os", "Debian 13"), 0);	/* replaced */
	assert_int_equal(a.meta.nenv, 3);
	assert_string_equal(a.meta.env[0], "compilers=GNU C17 12.2.0 -O2");
	assert_string_equal(a.meta.env[2], "os=Debian 13");
	assert_true(pg_env_valid(a.meta.env, a.meta.nenv));
	assert_string_equal(pg_env_get(&a.meta, "cpu_flags"), "fpu sse avx");
	assert_null(pg_env_get(&a.meta, "cpu"));

	/* the same environment, or nothing known on one side: nothing */
	assert_int_equal(pg_strv_dup(&b.meta.env, &b.meta.nenv, a.meta.env, a.meta.nenv), 0);
	d = pg_fmt_env_diff(&a.meta, &b.meta);
	assert_string_equal(d, "");
	free(d);
	d = pg_fmt_env_diff(&a.meta, NULL);
	assert_string_equal(d, "");
	free(d);

	a.meta.kernel = strdup("6.1.0");
	b.meta.kernel = strdup("6.6.0");
	assert_int_equal(pg_env_set(&b.meta, "cpu_flags", "fpu avx avx2"), 0);
	assert_int_equal(pg_env_set(&b.meta, "compilers", "GNU C17 13.1.0 -O2"), 0);
	/* new only */
	assert_int_equal(pg_env_set(&b.meta, "ci.ImageVersion", "20250101.1"), 0);
	d = pg_fmt_env_diff(&a.meta, &b.meta);
	assert_string_equal(d, "the two sides differ: kernel 6.1.0 -> 6.6.0; CPU flags +avx2 -sse; "
			    "compilers GNU C17 12.2.0 -O2 -> GNU C17 13.1.0 -O2");
	free(d);
	pg_run_release(&a);
	pg_run_release(&b);
}

/*
 * Libraries: entries made and split; the differences name a library whose version differs,
 * else whose build-id differs, never one loaded on one side only or at another path alone.
 */
static void test_env_libs(void **state)
{
	struct pg_run a, b;
	struct pg_env_lib l;
	char *v, **items, *d;
	size_t n;

	v = pg_env_lib_value("libc6:amd64", "2.36-9", NULL, "/usr/lib/my dir/libc.so.6");
	assert_string_equal(v, "libc6:amd64 2.36-9 - /usr/lib/my dir/libc.so.6");
	assert_int_equal(pg_env_lib_parse(v, &l), 0);
	assert_string_equal(l.package, "libc6:amd64");
	assert_string_equal(l.version, "2.36-9");
	assert_null(l.build_id);
	assert_string_equal(l.path, "/usr/lib/my dir/libc.so.6");
	pg_env_lib_release(&l);
	free(v);
	v = pg_env_lib_value("a b", "", "ab12", "/x.so");	/* fields with spaces: unknown */
	assert_string_equal(v, "- - ab12 /x.so");
	free(v);
	assert_int_equal(pg_env_lib_parse("- - ab12", &l), -EINVAL);
	assert_int_equal(pg_env_lib_parse("- -  /x.so", &l), -EINVAL);

	pg_run_init(&a);
	pg_run_init(&b);
	/* versions differ; build-ids differ under one version; only a path; one side only */
	pg_env_set(&a.meta, "lib.libc.so.6", "libc6:amd64 2.36-9+deb12u4 aaaa /lib/libc.so.6");
	pg_env_set(&b.meta, "lib.libc.so.6", "libc6:amd64 2.36-9+deb12u7 bbbb /lib/libc.so.6");
	pg_env_set(&a.meta, "lib.libfoo.so.1", "- - 0123456789abcdef00 /a/libfoo.so.1");
	pg_env_set(&b.meta, "lib.libfoo.so.1", "- - f123456789abcdef00 /b/libfoo.so.1");
	pg_env_set(&a.meta, "lib.libbar.so", "- - 0123456789ab0000 /a/libbar.so");
	pg_env_set(&b.meta, "lib.libbar.so", "- - 0123456789ab1111 /b/libbar.so");
	pg_env_set(&a.meta, "lib.libm.so.6", "libc6:amd64 2.36-9 cccc /a/libm.so.6");
	pg_env_set(&b.meta, "lib.libm.so.6", "libc6:amd64 2.36-9 cccc /b/libm.so.6");
	pg_env_set(&b.meta, "lib.libz.so.1", "zlib1g:amd64 1:1.2.13 dddd /lib/libz.so.1");
	pg_env_set(&a.meta, "lib.libbad.so", "garbage");
	pg_env_set(&b.meta, "lib.libbad.so", "garbage too");
	pg_env_set(&a.meta, "os", "Debian 12");
	pg_env_set(&b.meta, "os", "Debian 13");
	assert_true(pg_env_valid(b.meta.env, b.meta.nenv));
	assert_int_equal(pg_env_diffs(&a.meta, &b.meta, &items, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(items[0], "os Debian 12 -> Debian 13");	/* the others first */
	/* 12 digits shown when they differ there, else the whole build-ids */
	assert_string_equal(items[1], "libbar.so build-id 0123456789ab0000 -> 0123456789ab1111");
	assert_string_equal(items[2], "libc.so.6 2.36-9+deb12u4 -> 2.36-9+deb12u7");
	assert_string_equal(items[3], "libfoo.so.1 build-id 0123456789ab -> f123456789ab");
	pg_strv_free(items, n);
	d = pg_fmt_env_diff(&a.meta, &b.meta);
	assert_non_null(strstr(d, "; libc.so.6 2.36-9+deb12u4 -> 2.36-9+deb12u7; "));
	free(d);
	assert_int_equal(pg_env_diffs(NULL, &b.meta, &items, &n), 0);
	assert_int_equal(n, 0);
	pg_run_release(&a);
	pg_run_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_env_diff),
		cmocka_unit_test(test_env_libs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
