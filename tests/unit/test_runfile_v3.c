// SPDX-License-Identifier: MIT
/*
 * Unit tests of the version-3 run file encoding (formats/runfile_stats.h): the rows of a
 * repetition's statistics, decoded and encoded, each way a row can be wrong, and whole files:
 * a version-2 file read, written as version 3 and read back holds the same run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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

#include "../../formats/runfile.h"
#include "../../formats/runfile_stats.h"
#include "fixtures.h"

static void cols_of(struct pg_statcols *c, const char *const *names, size_t n)
{
	char why[128];

	c->n = 0;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pg_statcols_add(c, names[i], why, sizeof(why)), 0);
	assert_int_equal(pg_statcols_check(c, why, sizeof(why)), 0);
}

static const char *const required[] = { "id", "calls", "total_ns", "self_ns", "min_ns",
					 "max_ns" };

/* Decode @rows in the required columns into a repetition of a 2-function run. */
static int decode(const char *rows, struct pg_rep *rep, char *why, size_t whylen)
{
	struct pg_statcols c;

	cols_of(&c, required, 6);
	memset(rep, 0, sizeof(*rep));
	return pg_stats_decode(rows, strlen(rows), &c, 2, rep, why, whylen);
}

static void test_column_names(void **state)
{
	char name[32];

	for (int k = 0; k < PG_SITE_COUNT; k++) {
		snprintf(name, sizeof(name), "desc.%s", pg_site_name((enum pg_site)k));
		assert_string_equal(pg_statcol_name(PG_STATCOL_DESC + k), name);
		snprintf(name, sizeof(name), "kids.%s", pg_site_name((enum pg_site)k));
		assert_string_equal(pg_statcol_name(PG_STATCOL_KIDS + k), name);
		snprintf(name, sizeof(name), "tails.%s", pg_site_name((enum pg_site)k));
		assert_string_equal(pg_statcol_name(PG_STATCOL_TAILS + k), name);
		snprintf(name, sizeof(name), "desc_tails.%s", pg_site_name((enum pg_site)k));
		assert_string_equal(pg_statcol_name(PG_STATCOL_DESC_TAILS + k), name);
	}
	assert_string_equal(pg_statcol_name(PG_STATCOL_KIDS_PROBE), "kids_probe_ns");
}

static void test_decode_rows(void **state)
{
	struct pg_rep rep;
	char why[256] = "";

	assert_int_equal(decode("0 3 300 200 90 110 90:1 100:2;1 1 50 50 50 50 50:1", &rep, why,
				sizeof(why)), 0);
	assert_int_equal(rep.nstats, 2);
	assert_int_equal(rep.stats[0].func, 0);
	assert_int_equal(rep.stats[0].calls, 3);
	assert_int_equal(rep.stats[0].total_ns, 300);
	assert_int_equal(rep.stats[0].self_ns, 200);
	assert_int_equal(rep.stats[0].min_ns, 90);
	assert_int_equal(rep.stats[0].max_ns, 110);
	assert_int_equal(rep.stats[0].hist.n, 2);
	assert_int_equal(rep.stats[0].hist.idx[1], 100);
	assert_int_equal(rep.stats[0].hist.count[1], 2);
	assert_int_equal(rep.stats[1].func, 1);
	assert_int_equal(rep.stats[1].hist.count[0], 1);
	pg_rep_release(&rep);

	/* no statistics: the empty string */
	assert_int_equal(decode("", &rep, why, sizeof(why)), 0);
	assert_int_equal(rep.nstats, 0);
	pg_rep_release(&rep);

	/* the largest number there is */
	assert_int_equal(decode("0 18446744073709551615 18446744073709551615 0 1 1 "
				"0:18446744073709551615", &rep, why, sizeof(why)), 0);
	assert_true(rep.stats[0].calls == UINT64_MAX);
	pg_rep_release(&rep);
}

static void test_decode_bad_rows(void **state)
{
	static const struct {
		const char *rows, *expect;
	} cases[] = {
		{ "0 3 300 200 90 110", "row 0: expected a histogram" },
		{ "0 3 300 200 90 110 ", "histogram pair 0 is not bucket:count" },
		{ "0 3 300 200 90 110 90:1 100:2;", "row 1: column \"id\" must be an unsigned" },
		{ ";0 1 50 50 50 50 50:1", "row 0: column \"id\" must be an unsigned" },
		{ "0 3 300 200 90 110 90:1 100:1",
		  "row 0: \"hist\" holds 2 calls, \"calls\" is 3" },
		{ "00 1 50 50 50 50 50:1", "column \"id\" must be an unsigned decimal" },
		{ "0 01 50 50 50 50 50:1", "column \"calls\" must be" },
		{ "-0 1 50 50 50 50 50:1", "not '-'" },
		{ "0 1 +50 50 50 50 50:1", "column \"total_ns\" must be" },
		{ "0  1 50 50 50 50 50:1", "column \"calls\" must be" },
		{ "0 1 50 50 50 50  50:1", "histogram pair 0 is not bucket:count" },
		{ "0 1 50 50 50 50 50:1 ", "histogram pair 1 is not bucket:count" },
		{ "0 1 50 50 50 50 50", "expected ':' after histogram bucket 50" },
		{ "0 1 50 50 50 50 50:01", "histogram pair 0 is not bucket:count" },
		{ "0 18446744073709551616 50 50 50 50 50:1", "column \"calls\" must be" },
		{ "0 1 50 50 50 50 50:1x", "row 0: expected ';' or the end of the string after "
		  "the histogram, not 'x'" },
		{ "0 1 50 50 50 50 50:1,1 1 50 50 50 50 50:1", "not ','" },
		{ "0 1 50 50 50\t50 50:1", "expected a space before column \"max_ns\"" },
		{ "0 3 300 200 90 110 100:1 90:2", "strictly increasing (90 after 100)" },
		{ "0 3 300 200 90 110 90:1 90:2", "strictly increasing (90 after 90)" },
		{ "0 3 300 200 90 110 2368:3", "bucket 2368 is out of range" },
		{ "0 3 300 200 90 110 90:0 100:3", "bucket 90 has count 0" },
		{ "0 3 300 200 90 110 90:18446744073709551615 100:2", "counts overflow" },
		{ "1 1 50 50 50 50 50:1;0 1 50 50 50 50 50:1",
		  "row 1: functions must be sorted by id (0 after 1)" },
		{ "1 1 50 50 50 50 50:1;1 1 50 50 50 50 50:1", "row 1: function 1 appears twice" },
		{ "2 1 50 50 50 50 50:1", "\"id\" 2 is not a function of this run (it has 2)" },
		{ "4294967296 1 50 50 50 50 50:1", "\"id\" 4294967296 is out of range" },
		{ "0 0 50 50 50 50 50:1", "\"calls\" is 0" },
		{ "0 1 50 60 50 50 50:1", "\"self_ns\" 60 is larger than \"total_ns\" 50" },
		{ "0 1 50 50 60 50 50:1", "\"min_ns\" 60 is larger than \"max_ns\" 50" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pg_rep rep;
		char why[256] = "";

		print_message("  %s\n", cases[i].rows);
		assert_int_equal(decode(cases[i].rows, &rep, why, sizeof(why)), -EINVAL);
		if (!strstr(why, cases[i].expect))
			fail_msg("\"%s\": expected \"%s\" in \"%s\"", cases[i].rows,
				 cases[i].expect, why);
		pg_rep_release(&rep);
	}
	/* a NUL byte inside the string (json-c keeps it) is refused */
	{
		static const char rows[] = "0 1 50 50 50 50 50:1\0;1 1 50 50 50 50 50:1";
		struct pg_statcols c;
		struct pg_rep rep = { 0 };
		char why[256] = "";

		cols_of(&c, required, 6);
		assert_int_equal(pg_stats_decode(rows, sizeof(rows) - 1, &c, 2, &rep, why,
						 sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "not byte 0x00"));
		/* what came before the bad row is kept, for the caller to release */
		assert_int_equal(rep.nstats, 1);
		pg_rep_release(&rep);
	}
}

static void test_columns(void **state)
{
	static const char *const with_future[] = { "id", "calls", "x_future", "total_ns",
						    "self_ns", "min_ns", "max_ns", "desc.sstep",
						    "kids.sstep", "desc_probe_ns", "kids_probe_ns",
						    "probe_ns", "x_later" };
	static const char *const with_tails[] = { "id", "calls", "total_ns", "self_ns", "min_ns",
						   "max_ns", "desc.sstep", "kids.sstep",
						   "tails.sstep", "desc_tails.sstep" };
	static const char *const partial[] = { "id", "calls", "total_ns", "self_ns", "max_ns" };
	struct pg_statcols c;
	struct pg_rep rep = { 0 };
	char why[256] = "";

	/* unknown columns are read and skipped; known ones in any order */
	cols_of(&c, with_future, 13);
	assert_int_equal(c.col[2], PG_STATCOL_UNKNOWN);
	assert_int_equal(pg_stats_decode("0 3 7 300 200 90 110 2 1 20 10 30 0 90:1 100:2", 46, &c,
					 1, &rep, why, sizeof(why)), 0);
	assert_int_equal(rep.nstats, 1);
	assert_int_equal(rep.stats[0].total_ns, 300);
	assert_int_equal(rep.stats[0].desc[PG_SITE_SSTEP], 2);
	assert_int_equal(rep.stats[0].kids[PG_SITE_SSTEP], 1);
	assert_int_equal(rep.stats[0].desc_probe_ns, 20);
	assert_int_equal(rep.stats[0].kids_probe_ns, 10);
	assert_int_equal(rep.stats[0].probe_ns, 30);
	pg_rep_release(&rep);
	/* the checks of the optional columns */
	assert_int_equal(pg_stats_decode("0 3 7 300 200 90 110 1 2 20 10 30 0 90:1 100:2", 46, &c,
					 1, &rep, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"kids\" counts more sstep calls than \"desc\""));
	pg_rep_release(&rep);
	assert_int_equal(pg_stats_decode("0 3 7 300 200 90 110 2 1 20 21 30 0 90:1 100:2", 46, &c,
					 1, &rep, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"kids_probe_ns\" is larger"));
	pg_rep_release(&rep);
	assert_int_equal(pg_stats_decode("0 3 7 300 200 90 110 0 0 20 10 30 0 90:1 100:2", 46, &c,
					 1, &rep, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"desc_probe_ns\" without traced calls"));
	pg_rep_release(&rep);
	/* tail calls: read where present, checked against kids and desc */
	cols_of(&c, with_tails, 10);
	assert_int_equal(pg_stats_decode("0 3 300 200 90 110 2 1 1 1 90:1 100:2", 37, &c, 1,
					 &rep, why, sizeof(why)), 0);
	assert_int_equal(rep.stats[0].tails[PG_SITE_SSTEP], 1);
	assert_int_equal(rep.stats[0].desc_tails[PG_SITE_SSTEP], 1);
	pg_rep_release(&rep);
	assert_int_equal(pg_stats_decode("0 3 300 200 90 110 2 1 2 2 90:1 100:2", 37, &c, 1,
					 &rep, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"tails\" or \"desc_tails\" counts more sstep calls"));
	pg_rep_release(&rep);
	assert_int_equal(pg_stats_decode("0 3 300 200 90 110 2 1 0 3 90:1 100:2", 37, &c, 1,
					 &rep, why, sizeof(why)), -EINVAL);
	pg_rep_release(&rep);

	/* a required column missing, a column named twice, too many */
	c.n = 0;
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(pg_statcols_add(&c, partial[i], why, sizeof(why)), 0);
	assert_int_equal(pg_statcols_check(&c, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "column \"min_ns\" is missing");
	assert_int_equal(pg_statcols_add(&c, "calls", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "column \"calls\" is named twice");
	while (c.n < PG_STATCOLS_MAX)
		assert_int_equal(pg_statcols_add(&c, "x", why, sizeof(why)), 0);
	assert_int_equal(pg_statcols_add(&c, "x", why, sizeof(why)), -EINVAL);
}

/* Every kind of value through encode and decode, with the columns the writer picks. */
static void test_encode_decode(void **state)
{
	static const uint64_t v[] = { 10, 20, 5000, 70000000000ULL };
	struct pg_strbuf sb = PG_STRBUF_INIT;
	struct pg_statcols c;
	struct pg_run run;
	struct pg_rep *rep, back = { 0 };
	struct pg_fstat *s;
	char why[256] = "";

	pg_run_init(&run);
	pg_fx_func(&run, "/bin/p", "a", NULL, PG_SITE_NOP5);
	pg_fx_func(&run, "/bin/p", "b", NULL, PG_SITE_NOP5);
	pg_fx_func(&run, "/bin/p", "c", NULL, PG_SITE_NOP5);
	rep = pg_fx_rep(&run, 1000);
	pg_fx_stat(rep, 0, v, 4);
	s = pg_fx_stat(rep, 2, v, 2);
	s->desc[PG_SITE_EMULATED] = 3;
	s->kids[PG_SITE_EMULATED] = 2;
	s->desc_probe_ns = 9;
	s->kids_probe_ns = 8;
	s->self_ns -= 5;

	/* only the optional columns some statistic needs */
	pg_statcols_for_run(&run, &c);
	assert_int_equal(c.n, 10);
	assert_int_equal(c.col[6], PG_STATCOL_DESC + PG_SITE_EMULATED);
	assert_int_equal(c.col[7], PG_STATCOL_KIDS + PG_SITE_EMULATED);
	assert_int_equal(c.col[8], PG_STATCOL_DESC_PROBE);
	assert_int_equal(c.col[9], PG_STATCOL_KIDS_PROBE);
	/* tail calls add their columns, after the others */
	s->tails[PG_SITE_EMULATED] = 1;
	s->desc_tails[PG_SITE_EMULATED] = 2;
	pg_statcols_for_run(&run, &c);
	assert_int_equal(c.n, 12);
	assert_int_equal(c.col[10], PG_STATCOL_TAILS + PG_SITE_EMULATED);
	assert_int_equal(c.col[11], PG_STATCOL_DESC_TAILS + PG_SITE_EMULATED);
	assert_int_equal(pg_stats_encode(rep, &c, &sb), 0);
	assert_int_equal(pg_stats_decode(sb.s, sb.len, &c, run.nfuncs, &back, why, sizeof(why)),
			 0);
	assert_int_equal(back.nstats, 2);
	/* one row a statistic: the repetition's array is allocated to its size, once */
	assert_int_equal(back.astats, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct pg_fstat *a = &rep->stats[i], *b = &back.stats[i];

		assert_int_equal(a->func, b->func);
		assert_true(a->calls == b->calls && a->total_ns == b->total_ns &&
			    a->self_ns == b->self_ns && a->min_ns == b->min_ns &&
			    a->max_ns == b->max_ns && a->probe_ns == b->probe_ns &&
			    a->desc_probe_ns == b->desc_probe_ns &&
			    a->kids_probe_ns == b->kids_probe_ns);
		assert_memory_equal(a->desc, b->desc, sizeof(a->desc));
		assert_memory_equal(a->kids, b->kids, sizeof(a->kids));
		assert_memory_equal(a->tails, b->tails, sizeof(a->tails));
		assert_memory_equal(a->desc_tails, b->desc_tails, sizeof(a->desc_tails));
		assert_int_equal(a->hist.n, b->hist.n);
		assert_memory_equal(a->hist.idx, b->hist.idx, a->hist.n * sizeof(*a->hist.idx));
		assert_memory_equal(a->hist.count, b->hist.count,
				    a->hist.n * sizeof(*a->hist.count));
		/* read histograms are allocated to their size */
		assert_int_equal(b->hist.alloc, b->hist.n);
	}
	pg_rep_release(&back);
	pg_strbuf_release(&sb);
	pg_run_release(&run);
}

/* A version-2 file (desc, kids, probe times, a sampled profile) and the same run in version 3. */
static const char v2_json[] =
	"{\"format\":\"perfgate-run\",\"version\":2,"
	"\"meta\":{\"perfgate_version\":\"0.1.0\",\"command\":[\"./bench\",\"-n\",\"3\"],"
	"\"start_time\":\"2026-11-21T10:22:22Z\",\"host\":\"box\",\"kernel\":\"6.1.0\","
	"\"cpu_model\":\"cpu\",\"git_commit\":null,\"cwd\":\"/src\","
	"\"options\":{\"repetitions\":2,\"functions\":[\"foo*\"],\"exclude\":[]}},"
	"\"histogram\":{\"scheme\":\"log-linear\",\"sub_bucket_bits\":6,\"max_exponent\":41,"
	"\"durations\":\"compensated\"},"
	"\"calibration\":{\"unknown\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2},"
	"\"nop5\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1},"
	"\"emulated\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1.5},"
	"\"sstep\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2}},"
	"\"functions\":["
	"{\"id\":0,\"name\":\"foo\",\"display\":\"foo\",\"binary\":\"/bin/b\","
	"\"address\":\"0x1139\",\"offset\":4409,\"site\":\"nop5\",\"endbr\":false},"
	"{\"id\":1,\"name\":\"bar\",\"display\":\"bar\",\"binary\":\"/bin/b\","
	"\"address\":\"0x1200\",\"offset\":4608,\"site\":\"sstep\",\"endbr\":true,"
	"\"file\":\"/src/b.c\",\"line\":12}],"
	"\"repetitions\":[{\"wall_ns\":1000000,\"exit_code\":0,\"signal\":0,\"functions\":["
	"{\"id\":0,\"calls\":3,\"total_ns\":300,\"self_ns\":200,\"min_ns\":90,\"max_ns\":110,"
	"\"desc\":{\"sstep\":1},\"kids\":{\"sstep\":1},\"probe_ns\":30,\"desc_probe_ns\":20,"
	"\"kids_probe_ns\":20,\"hist\":[[90,1],[100,2]]},"
	"{\"id\":1,\"calls\":1,\"total_ns\":50,\"self_ns\":50,\"min_ns\":50,\"max_ns\":50,"
	"\"hist\":[[50,1]]}],"
	"\"samples\":10,\"samples_lost\":1,\"samples_truncated\":0,"
	"\"stacks\":[[\"main;foo\",7],[\"main;foo;bar\",2]]},"
	"{\"wall_ns\":900000,\"exit_code\":0,\"signal\":0,\"functions\":[]}],"
	"\"frame_sources\":[[\"foo\",\"/src/b.c\",3]]}\n";

static char *write_read_text(const struct pg_run *run, size_t *len)
{
	char dir[] = "/tmp/pg-test-v3-XXXXXX", path[64], *text;
	FILE *f;
	long n;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(pg_runfile_write(run, path), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	rmdir(dir);
	*len = (size_t)n;
	return text;
}

static void test_v2_to_v3(void **state)
{
	struct pg_run a, b;
	char *t1, *t2;
	size_t n1, n2;

	pg_run_init(&a);
	pg_run_init(&b);
	assert_int_equal(pg_runfile_parse(v2_json, strlen(v2_json), "v2", &a), 0);
	t1 = write_read_text(&a, &n1);
	assert_non_null(strstr(t1, "\"version\":3,"));
	assert_non_null(strstr(t1, "\"stat_columns\":[\"id\",\"calls\",\"total_ns\",\"self_ns\","
			       "\"min_ns\",\"max_ns\",\"desc.sstep\",\"kids.sstep\",\"probe_ns\","
			       "\"desc_probe_ns\",\"kids_probe_ns\"]"));
	assert_non_null(strstr(t1, "\"stats\":\"0 3 300 200 90 110 1 1 30 20 20 90:1 100:2;"
			       "1 1 50 50 50 50 0 0 0 0 0 50:1\""));
	assert_non_null(strstr(t1, "\"stats\":\"\""));
	assert_null(strstr(t1, "\"hist\""));
	assert_int_equal(pg_runfile_parse(t1, n1, "v3", &b), 0);
	/* the same run: it writes the same bytes, and the values are there */
	t2 = write_read_text(&b, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	assert_true(b.hist_compensated);
	assert_int_equal(b.nreps, 2);
	assert_int_equal(b.reps[0].nstats, 2);
	assert_int_equal(b.reps[0].stats[0].desc[PG_SITE_SSTEP], 1);
	assert_int_equal(b.reps[0].stats[0].probe_ns, 30);
	assert_int_equal(b.reps[0].nstacks, 2);
	assert_int_equal(b.reps[1].nstats, 0);
	assert_int_equal(b.funcs[1].src_line, 12);
	assert_int_equal(b.nsources, 1);
	free(t1);
	free(t2);
	pg_run_release(&a);
	pg_run_release(&b);
}

/* A version-3 file as docs/run-format.md shows it, and what is wrong with its variants. */
static const char v3_json[] =
	"{\"format\":\"perfgate-run\",\"version\":3,"
	"\"meta\":{\"perfgate_version\":\"0.1.0\",\"command\":[\"./bench\"],"
	"\"start_time\":null,\"host\":null,\"kernel\":null,\"cpu_model\":null,"
	"\"git_commit\":null,\"cwd\":null,"
	"\"options\":{\"repetitions\":1,\"functions\":[],\"exclude\":[]}},"
	"\"histogram\":{\"scheme\":\"log-linear\",\"sub_bucket_bits\":6,\"max_exponent\":41,"
	"\"durations\":\"raw\"},"
	"\"functions\":["
	"{\"id\":0,\"name\":\"foo\",\"display\":\"foo\",\"binary\":\"/bin/b\","
	"\"address\":\"0x1139\",\"offset\":4409,\"site\":\"nop5\",\"endbr\":false}],"
	"\"stat_columns\":[\"id\",\"calls\",\"total_ns\",\"self_ns\",\"min_ns\",\"max_ns\"],"
	"\"repetitions\":[{\"wall_ns\":1000,\"exit_code\":0,\"signal\":0,"
	"\"stats\":\"0 3 300 300 90 110 90:1 100:2\"}]}\n";

static int parse_edited(const char *from, const char *to)
{
	char *at = strstr(v3_json, from), *text;
	struct pg_run run;
	int err;

	assert_non_null(at);
	assert_true(asprintf(&text, "%.*s%s%s", (int)(at - v3_json), v3_json, to,
			     at + strlen(from)) > 0);
	pg_run_init(&run);
	err = pg_runfile_parse(text, strlen(text), "v3", &run);
	if (err)
		assert_int_equal(run.nreps, 0);
	pg_run_release(&run);
	free(text);
	return err;
}

static void test_v3_file(void **state)
{
	struct pg_run run;

	pg_run_init(&run);
	assert_int_equal(pg_runfile_parse(v3_json, strlen(v3_json), "v3", &run), 0);
	assert_int_equal(run.reps[0].stats[0].calls, 3);
	pg_run_release(&run);
	assert_int_equal(parse_edited("\"version\":3", "\"version\":3"), 0);
	/* stat_columns is required, its names strings, the required ones present */
	assert_int_equal(parse_edited("\"stat_columns\"", "\"x_stat_columns\""), -EINVAL);
	assert_int_equal(parse_edited("[\"id\",", "[\"id\",7,"), -EINVAL);
	assert_int_equal(parse_edited("\"min_ns\",", ""), -EINVAL);
	/* an unknown column is skipped */
	assert_int_equal(parse_edited("\"max_ns\"]", "\"max_ns\",\"x_new\"]"), -EINVAL);
	assert_int_equal(parse_edited("\"max_ns\"],\"repetitions\":[{\"wall_ns\":1000,"
				      "\"exit_code\":0,\"signal\":0,"
				      "\"stats\":\"0 3 300 300 90 110 ",
				      "\"max_ns\",\"x_new\"],\"repetitions\":[{\"wall_ns\":1000,"
				      "\"exit_code\":0,\"signal\":0,"
				      "\"stats\":\"0 3 300 300 90 110 "
				      "123456 "), 0);
	/* a repetition's statistics are the "stats" string, not the older array */
	assert_int_equal(parse_edited("\"stats\":\"0 3 300 300 90 110 90:1 100:2\"",
				      "\"functions\":[]"), -EINVAL);
	assert_int_equal(parse_edited("\"stats\":\"0 3 300 300 90 110 90:1 100:2\"",
				      "\"stats\":[]"), -EINVAL);
	assert_int_equal(parse_edited("90:1 100:2", "90:1 100:1"), -EINVAL);
	/* a file-level check after the rows: total_ns within calls x [min, max] */
	assert_int_equal(parse_edited("0 3 300 300 90 110", "0 3 400 300 90 110"), -EINVAL);
	/* durations are required from version 2 on */
	assert_int_equal(parse_edited(",\"durations\":\"raw\"", ""), -EINVAL);
}

/* perfgate ab's pairing: written, read back, and checked (side iff session; unique pairs) */
static void test_ab_pairing(void **state)
{
	char path[] = "/tmp/pg_ab_XXXXXX", why[256];
	struct pg_run run, back;
	struct pg_rep *rep;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	pg_run_init(&run);
	pg_run_init(&back);
	run.meta.argv = calloc(2, sizeof(char *));
	run.meta.argv[0] = pg_fx_strdup("./bench");
	run.meta.argc = 1;
	pg_fx_func(&run, "/bin/b", "foo", NULL, PG_SITE_NOP5);
	for (uint32_t i = 0; i < 3; i++) {
		rep = pg_fx_rep(&run, 1000 + i);
		rep->pair = 2 - i;
		rep->seq = 2 * i + 1;
	}
	run.meta.ab_session = pg_fx_strdup("s1");
	assert_int_equal(pg_runfile_check(&run, why, sizeof(why)), -EINVAL);	/* no side */
	run.meta.ab_side = PG_AB_NEW;
	assert_int_equal(pg_runfile_write(&run, path), 0);
	assert_int_equal(pg_runfile_read(path, &back), 0);
	assert_string_equal(back.meta.ab_session, "s1");
	assert_int_equal(back.meta.ab_side, PG_AB_NEW);
	for (size_t r = 0; r < 3; r++) {
		assert_int_equal(back.reps[r].pair, 2 - r);
		assert_int_equal(back.reps[r].seq, 2 * r + 1);
	}
	run.reps[2].pair = run.reps[0].pair;
	assert_int_equal(pg_runfile_check(&run, why, sizeof(why)), -EINVAL);
	run.reps[2].pair = 0;
	run.reps[2].seq = run.reps[1].seq;
	assert_int_equal(pg_runfile_check(&run, why, sizeof(why)), -EINVAL);
	unlink(path);
	pg_run_release(&run);
	pg_run_release(&back);
	/* a file without them reads as an ordinary run; a bad side is refused */
	assert_int_equal(parse_edited("\"cwd\":null,", "\"cwd\":null,\"ab\":{\"session\":\"x\","
				      "\"side\":\"base\"},"), 0);
	assert_int_equal(parse_edited("\"cwd\":null,", "\"cwd\":null,\"ab\":{\"session\":\"x\","
				      "\"side\":\"old\"},"), -EINVAL);
	assert_int_equal(parse_edited("\"cwd\":null,", "\"cwd\":null,\"ab\":{\"session\":\"\","
				      "\"side\":\"new\"},"), -EINVAL);
	/* a pair in an ordinary run means nothing: read, not checked */
	assert_int_equal(parse_edited("\"signal\":0,", "\"signal\":0,\"pair\":1,"), 0);
	assert_int_equal(parse_edited("\"signal\":0,", "\"signal\":0,\"pair\":-1,"), -EINVAL);
	/* "ab" after "options" */
	assert_int_equal(parse_edited("\"exclude\":[]}}",
				      "\"exclude\":[]},\"ab\":{\"session\":\"x\","
				      "\"side\":\"new\"}}"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_column_names),
		cmocka_unit_test(test_decode_rows),
		cmocka_unit_test(test_decode_bad_rows),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_v2_to_v3),
		cmocka_unit_test(test_v3_file),
		cmocka_unit_test(test_ab_pairing),
	};

	return cmocka_run_group_tests_name("runfile_v3", tests, NULL, NULL);
}
