// SPDX-License-Identifier: MIT
/*
 * Unit tests of diff/flamediff.c (flame trees, differential statistics and colours on small
 * known inputs) and reporters/flamegraph.c (the SVG is well-formed XML and carries the colours,
 * tooltips and legend).
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
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "../../formats/folded.h"
#include "../../core/run.h"
#include "../../diff/flamediff.h"
#include "../../reporters/flamegraph.h"
#include "fixtures.h"
#include "util.h"

static void new_run(struct pg_run *run)
{
	static char *argv[] = { "./bench" };

	pg_run_init(run);
	run->meta.argc = 1;
	run->meta.argv = calloc(1, sizeof(char *));
	run->meta.argv[0] = strdup(argv[0]);
}

/* The node at path "a;b;c" (root excluded), or NULL. */
static const struct pg_flame_node *node(const struct pg_flame *f, const char *path)
{
	size_t id = 0;
	char *copy = strdup(path), *save = NULL;

	for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		size_t c = f->nodes[id].first_child;

		while (c != PG_FLAME_NONE && strcmp(f->nodes[c].name, t))
			c = f->nodes[c].next_sibling;
		if (c == PG_FLAME_NONE) {
			free(copy);
			return NULL;
		}
		id = c;
	}
	free(copy);
	return &f->nodes[id];
}

/* BASE: time split 50/50 between m;a;c and m;d;c. NEW: 30/70, and a new frame m;e. Small
 * jitter between repetitions, as sampling gives. */
static void make_runs(struct pg_run *base, struct pg_run *new, size_t nreps)
{
	char buf[256];

	new_run(base);
	new_run(new);
	for (size_t r = 0; r < nreps; r++) {
		int j = (int)(r % 3) - 1;

		snprintf(buf, sizeof(buf), "m;a;c %d\nm;d;c %d\nm %d\n", 50 + j, 50 - j,
			 2 + (int)(r % 4));
		pg_fx_stacks(base, buf);
		snprintf(buf, sizeof(buf), "m;a;c %d\nm;d;c %d\nm %d\nm;e %d\n", 30 + j, 70 - j,
			 2 + (int)((r + 1) % 4), 5);
		pg_fx_stacks(new, buf);
	}
}

static void test_build(void **state)
{
	struct pg_run run;
	struct pg_flame f;

	new_run(&run);
	pg_fx_stacks(&run, "m;a;c 10\nm;a 2\nm;d;c 5\n");
	pg_fx_stacks(&run, "m;a;c 1\nx 1\n");
	pg_flame_init(&f);
	assert_int_equal(pg_flame_build(&run, -1, &f), 0);
	assert_int_equal(f.total, 19);
	assert_int_equal(node(&f, "m")->total, 18);
	assert_int_equal(node(&f, "m")->self, 0);
	assert_int_equal(node(&f, "m;a")->total, 13);
	assert_int_equal(node(&f, "m;a")->self, 2);
	assert_int_equal(node(&f, "m;a;c")->self, 11);
	assert_int_equal(node(&f, "m;d;c")->total, 5);
	assert_int_equal(node(&f, "m;d;c")->depth, 3);
	assert_int_equal(f.max_depth, 3);
	/* children in name order */
	assert_string_equal(f.nodes[f.nodes[0].first_child].name, "m");
	assert_string_equal(f.nodes[f.nodes[f.nodes[0].first_child].next_sibling].name, "x");
	pg_flame_release(&f);
	/* one repetition */
	assert_int_equal(pg_flame_build(&run, 1, &f), 0);
	assert_int_equal(f.total, 2);
	assert_null(node(&f, "m;d"));
	pg_flame_release(&f);
	assert_int_equal(pg_flame_build(&run, 2, &f), -EINVAL);
	pg_run_release(&run);
}

static void test_diff_self(void **state)
{
	struct pg_run base, new;
	struct pg_flame f;
	char why[128];

	make_runs(&base, &new, 8);
	pg_flame_init(&f);
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_SELF, 0.05, &f, why, sizeof(why)), 0);
	assert_true(f.diff && f.tested);
	/* widths come from NEW */
	assert_int_equal(f.total, 8 * 107 + 2 * (0 + 1 + 2 + 3));
	assert_int_equal(f.base_total, 8 * 102 + 2 * (0 + 1 + 2 + 3));
	assert_int_equal(node(&f, "m;d;c")->change, PG_FLAME_GREW);
	assert_int_equal(node(&f, "m;a;c")->change, PG_FLAME_SHRANK);
	assert_true(node(&f, "m;d;c")->q <= 0.05);
	/* m;e is new: its share went from 0 to 5/107 */
	assert_true(node(&f, "m;e")->only_new);
	assert_int_equal(node(&f, "m;e")->change, PG_FLAME_GREW);
	assert_false(node(&f, "m;d;c")->only_new);
	/* no self time in m;a and m;d: not tested, neutral */
	assert_int_equal(node(&f, "m;a")->change, PG_FLAME_NEUTRAL);
	assert_true(isnan(node(&f, "m;a")->q));
	/* m's self share barely moved (~3.5/103.5 -> ~3.5/108.5): not significant */
	assert_int_equal(node(&f, "m")->change, PG_FLAME_NEUTRAL);
	/* shares are normalized by each repetition's total */
	assert_true(fabs(node(&f, "m;d;c")->base_share - 50.0 / 103.5) < 0.01);
	assert_true(fabs(node(&f, "m;d;c")->new_share - 70.0 / 108.5) < 0.01);
	assert_true(fabs(node(&f, "m;d;c")->delta - (70.0 / 108.5 - 50.0 / 103.5)) < 0.01);
	/* the largest change is drawn at full intensity */
	assert_true(fabs(node(&f, "m;a;c")->intensity - 1.0) < 0.05 ||
		    fabs(node(&f, "m;d;c")->intensity - 1.0) < 0.05);
	assert_true(node(&f, "m;e")->intensity < node(&f, "m;d;c")->intensity);
	assert_int_equal(f.ngrew, 2);
	assert_int_equal(f.nshrank, 1);
	assert_int_equal(f.nonly_new, 1);
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);
}

static void test_diff_inclusive(void **state)
{
	struct pg_run base, new;
	struct pg_flame f;
	char why[128];

	make_runs(&base, &new, 8);
	pg_flame_init(&f);
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_INCLUSIVE, 0.05, &f, why,
				       sizeof(why)), 0);
	assert_int_equal(node(&f, "m;d")->change, PG_FLAME_GREW);
	assert_int_equal(node(&f, "m;a")->change, PG_FLAME_SHRANK);
	/* m's inclusive share is 100% minus nothing: unchanged */
	assert_int_equal(node(&f, "m")->change, PG_FLAME_NEUTRAL);
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);
}

static void test_diff_noise_and_few_reps(void **state)
{
	struct pg_run base, new;
	struct pg_flame f;
	char why[128];

	/* the same profile on both sides, only jitter: everything neutral */
	new_run(&base);
	new_run(&new);
	for (int r = 0; r < 8; r++) {
		char buf[128];

		int k = (r + 3) % 8;	/* the same repetitions, in another order */

		snprintf(buf, sizeof(buf), "m;a %d\nm;b %d\n", 40 + r % 4, 60 - r % 3);
		pg_fx_stacks(&base, buf);
		snprintf(buf, sizeof(buf), "m;a %d\nm;b %d\n", 40 + k % 4, 60 - k % 3);
		pg_fx_stacks(&new, buf);
	}
	pg_flame_init(&f);
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_SELF, 0.05, &f, why, sizeof(why)), 0);
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(f.nodes[i].change, PG_FLAME_NEUTRAL);
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);

	/* one repetition a side: a big change, but no way to tell it from noise */
	make_runs(&base, &new, 1);
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_SELF, 0.05, &f, why, sizeof(why)), 0);
	assert_false(f.tested);
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(f.nodes[i].change, PG_FLAME_NEUTRAL);
	assert_true(node(&f, "m;e")->only_new);	/* still marked */
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);

	/* a run without stacks: refused with a reason */
	make_runs(&base, &new, 2);
	pg_run_release(&base);
	new_run(&base);
	pg_fx_stacks(&base, "");
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_SELF, 0.05, &f, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "base run has no sampled stacks"));
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);
}

/* The fill of the frame whose tooltip starts with @first_line (the n-th such, 0-based). */
static char *fill_of(xmlNode *n, const char *first_line, int *nth)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "g")) {
			xmlNode *t = n->children, *r = t ? t->next : NULL;

			if (t && r && !strcmp((const char *)t->name, "title")) {
				char *txt = (char *)xmlNodeGetContent(t);
				size_t len = strlen(first_line);
				bool hit = !strncmp(txt, first_line, len) && txt[len] == '\n';

				xmlFree(txt);
				if (hit && (*nth)-- == 0)
					return (char *)xmlGetProp(r, (const xmlChar *)"fill");
			}
		}
		{
			char *f = fill_of(n->children, first_line, nth);

			if (f)
				return f;
		}
	}
	return NULL;
}

static void test_svg(void **state)
{
	char path[] = "/tmp/pg-test-flame-XXXXXX";
	struct pg_run base, new;
	struct pg_flame f;
	char why[128], *fill, *all;
	xmlDoc *doc;
	int fd = mkstemp(path), nth;
	long len;

	assert_true(fd >= 0);
	close(fd);
	make_runs(&base, &new, 8);
	pg_flame_init(&f);
	assert_int_equal(pg_flame_diff(&base, &new, PG_FLAME_SELF, 0.05, &f, why, sizeof(why)), 0);
	assert_int_equal(pg_flamegraph_write(&f, &new, "diff <test> & \"quotes\"", path), 0);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	nth = 1;	/* c under a comes first (name order), then c under d */
	fill = fill_of(xmlDocGetRootElement(doc), "c", &nth);
	assert_non_null(fill);
	assert_true(!strncmp(fill, "rgb(255,", 8));	/* red: grew */
	xmlFree(fill);
	nth = 0;
	fill = fill_of(xmlDocGetRootElement(doc), "c", &nth);
	assert_non_null(fill);
	assert_non_null(strstr(fill, ",255)"));	/* blue: shrank */
	assert_null(strstr(fill, "rgb(255,"));
	xmlFree(fill);
	nth = 0;
	fill = fill_of(xmlDocGetRootElement(doc), "m", &nth);
	assert_string_equal(fill, "rgb(221,221,221)");	/* neutral */
	xmlFree(fill);
	xmlFreeDoc(doc);
	/* the legend states the direction; tooltips give both sides */
	all = pg_test_slurp(path, &len);
	assert_non_null(strstr(all, "RED: grew in NEW"));
	assert_non_null(strstr(all, "BLUE: shrank in NEW"));
	assert_non_null(strstr(all, "only in NEW"));
	assert_non_null(strstr(all, "class=\"f n"));
	/* m;d;c: 8 * 70 - (the jitter: -1, 0, 1, -1, 0, 1, -1, 0), of 868 */
	assert_non_null(strstr(all, "NEW: 561 samples (64.63%), self 561; BASE: 401 samples"));
	assert_non_null(strstr(all, "48.44% in BASE -&gt; 64.64% in NEW (+16.21 points): GREW"));
	assert_non_null(strstr(all, "e\nNEW: 40 samples (4.61%), self 40; BASE: 0 samples"));
	assert_non_null(strstr(all, "<script"));
	/* the embedded script and style (reporters/flamegraph.js, .css) and the layout it reads */
	assert_non_null(strstr(all, "function pg_init(evt)"));
	assert_non_null(strstr(all, ".f:hover rect"));
	assert_non_null(strstr(all, "data-xpad=\"10\" data-fw=\"1180\" data-char-px=\"7\""));
	assert_null(strstr(all, "http://www.w3.org/1999/xlink"));
	assert_null(strstr(all, "href"));	/* nothing to fetch */
	for (long i = 0; i < len; i++)
		assert_true((unsigned char)all[i] < 0x80);	/* ASCII */
	free(all);
	unlink(path);

	/* a plain flame graph */
	pg_flame_release(&f);
	assert_int_equal(pg_flame_build(&new, -1, &f), 0);
	assert_int_equal(pg_flamegraph_write(&f, &new, "plain", path), 0);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	unlink(path);
	pg_flame_release(&f);
	pg_run_release(&base);
	pg_run_release(&new);
}

/* Frames of compared functions take their verdicts; the others keep the sample test. */
static void test_diff_exact(void **state)
{
	char path[] = "/tmp/pg-test-flame-XXXXXX";
	struct pg_comparison cmp;
	struct pg_run base, new;
	struct pg_flame f;
	struct pg_fcmp *fc;
	char why[128], *all;
	int fd = mkstemp(path);
	long len;

	assert_true(fd >= 0);
	close(fd);
	make_runs(&base, &new, 8);
	pg_comparison_init(&cmp);
	/* the samples say c under a shrank and c under d grew: the exact verdicts win */
	fc = pg_fx_fcmp(&cmp, "bench", "c", NULL, PG_VERDICT_REGRESSION);
	fc->change = 0.5;
	fc->ci_lo = 0.4;
	fc->ci_hi = 0.6;
	fc->q = 1e-6;
	fc = pg_fx_fcmp(&cmp, "bench", "a", NULL, PG_VERDICT_IMPROVEMENT);
	fc->change = -0.25;
	fc->ci_lo = -0.3;
	fc->ci_hi = -0.2;
	fc = pg_fx_fcmp(&cmp, "bench", "d", NULL, PG_VERDICT_INCONCLUSIVE);
	snprintf(fc->reason, sizeof(fc->reason), "too wide to tell");
	pg_flame_init(&f);
	assert_int_equal(pg_flame_diff_exact(&base, &new, PG_FLAME_SELF, 0.05, &cmp, &f, why,
					     sizeof(why)), 0);
	assert_true(f.exact);
	assert_int_equal(f.nexact, 4);	/* m;a, m;a;c, m;d, m;d;c */
	assert_int_equal(f.nexact_grew, 2);
	assert_int_equal(f.nexact_shrank, 1);
	assert_int_equal(node(&f, "m;a;c")->change, PG_FLAME_GREW);
	assert_int_equal(node(&f, "m;d;c")->change, PG_FLAME_GREW);
	assert_true(isnan(node(&f, "m;a;c")->q));	/* not in the sample test */
	assert_int_equal(node(&f, "m;a")->change, PG_FLAME_SHRANK);
	assert_true(node(&f, "m;a")->intensity == 0.5);	/* 25% of the largest, 50% */
	assert_true(node(&f, "m;a;c")->intensity == 1);
	assert_int_equal(node(&f, "m;d")->change, PG_FLAME_NEUTRAL);
	assert_null(node(&f, "m;e")->exact);	/* untraced: the samples decide */
	assert_int_equal(node(&f, "m;e")->change, PG_FLAME_GREW);
	assert_int_equal(pg_flamegraph_write(&f, &new, "exact", path), 0);
	all = pg_test_slurp(path, &len);
	assert_non_null(strstr(all, "traced (exact self time per call): REGRESSION, +50.0% "
				    "[+40.0%, +60.0%], q = 1e-06"));
	assert_non_null(strstr(all, "traced (exact self time per call): INCONCLUSIVE"));
	assert_non_null(strstr(all, "too wide to tell"));
	assert_non_null(strstr(all, "; 4 frames: 2 regressed, 1 improved)"));
	assert_non_null(strstr(all, "Samples: BASE 828 in 8 repetitions (104 a repetition), NEW "
				    "868 in 8 repetitions (108 a repetition)"));
	free(all);
	unlink(path);
	pg_flame_release(&f);
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	pg_run_release(&new);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_diff_self),
		cmocka_unit_test(test_diff_inclusive),
		cmocka_unit_test(test_diff_noise_and_few_reps),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_diff_exact),
	};

	return cmocka_run_group_tests_name("flamediff", tests, NULL, NULL);
}
