// SPDX-License-Identifier: MIT
/*
 * reporters/junit.c - the JUnit XML report of `perfgate compare` (reporters/compare_out.h),
 * valid against the Ant JUnit schema (tests/data/JUnit.xsd):
 *
 *	<testsuite name="perfgate" timestamp hostname tests failures errors skipped time>
 *	  <properties> <property name value/>... </properties>
 *	  (a function's source: <property name="file:CLASSNAME/NAME" value="FILE:LINE"/>)
 *	  <testcase classname="BINARY" name="FUNCTION" [file="PATH" line="N"] time="SECONDS">
 *	    [<failure> | <skipped/>]
 *	  </testcase>...
 *	  <system-out>the comparison table (every function)</system-out>
 *	  <system-err>the warnings, one a line</system-err>
 *	</testsuite>
 *
 * The schema allows nothing inside a testcase but one of skipped, error or failure, and no
 * attributes but name, classname, time and the file and line that GitLab, pytest's xunit and
 * the common GitHub JUnit reporters read (the declaration of the function, relative to the
 * repository root; also a suite property, and in its failure or skipped text); it requires
 * system-out and system-err (possibly empty) after the testcases. docs/compare-format.md has
 * the mapping. Every string goes through pg_fmt_utf8/pg_fmt_token first: libxml2 escapes
 * markup characters but would pass invalid UTF-8 and control characters through.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/version.h"
#include "../diff/cpusplit.h"
#include "compare_out.h"
#include "fmt.h"
#include "xmlw.h"

/* JUnit text: valid UTF-8 without the characters XML 1.0 forbids. */
static char *junit_clean(const char *s)
{
	return pg_fmt_utf8(s, true);
}

static void property(struct pg_xmlw *j, const char *name, const char *value)
{
	pg_xmlw_start(j, "property");
	pg_xmlw_attr(j, "name", name);
	pg_xmlw_attr(j, "value", value ? value : "");
	pg_xmlw_end(j);
}

/* A property whose value is short (at most 255 characters): a number. */
static void __attribute__((format(printf, 3, 4)))
propertyf(struct pg_xmlw *j, const char *name, const char *fmt, ...)
{
	va_list ap;

	pg_xmlw_start(j, "property");
	pg_xmlw_attr(j, "name", name);
	va_start(ap, fmt);
	pg_xmlw_vattrf(j, "value", fmt, ap);
	va_end(ap);
	pg_xmlw_end(j);
}

/*
 * The schema's timestamp is an xs:dateTime without a time zone: the start of the new run
 * (ISO 8601, "2026-11-21T10:22:22Z", fractions and offsets accepted) converted to UTC, or now.
 */
static void junit_timestamp(const char *start, char *buf, size_t len)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:dd";
	struct tm tm = { 0 }, back;
	const char *p = start;
	time_t t = 0;
	bool ok = start && strlen(start) >= sizeof(pat) - 1;

	for (size_t i = 0; ok && i < sizeof(pat) - 1; i++)
		ok = pat[i] == 'd' ? start[i] >= '0' && start[i] <= '9' : start[i] == pat[i];
	if (ok) {
		tm.tm_year = atoi(start) - 1900;
		tm.tm_mon = atoi(start + 5) - 1;
		tm.tm_mday = atoi(start + 8);
		tm.tm_hour = atoi(start + 11);
		tm.tm_min = atoi(start + 14);
		tm.tm_sec = atoi(start + 17);
		back = tm;
		t = timegm(&back);
		/* timegm normalises out-of-range fields: a changed field means an invalid date */
		ok = t != (time_t)-1 && back.tm_mday == tm.tm_mday && back.tm_mon == tm.tm_mon &&
		     back.tm_hour == tm.tm_hour && back.tm_min == tm.tm_min &&
		     back.tm_sec == tm.tm_sec;
		p = start + sizeof(pat) - 1;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
	}
	if (ok && (*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		int off = (atoi(p + 1) * 60 + atoi(p + 4)) * 60;

		t -= *p == '+' ? off : -off;
	} else if (ok && strcmp(p, "Z") && *p) {
		ok = false;
	}
	if (!ok)
		t = time(NULL);
	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00");
}

/* Seconds the new run's repetitions took, for the suite's time attribute. */
static double suite_seconds(const struct pg_comparison *c, const struct pg_run *new)
{
	double ns = 0;

	if (new) {
		for (size_t r = 0; r < new->nreps; r++)
			ns += new->reps[r].wall_ns;
	} else if (isfinite(c->wall.new_ns) && c->wall.new_ns > 0) {
		ns = c->wall.new_ns * c->new_reps;
	}
	return ns / 1e9;
}

/*
 * Where each function is declared, as compare.json has it: "file:CLASSNAME/NAME" =
 * "FILE:LINE", the testcase's classname (a basename: no '/') and name, so that the property
 * names its testcase unambiguously.
 */
static void write_sources(struct pg_xmlw *j, const struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n && !j->err; i++) {
		const struct pg_fcmp *f = &c->f[i];
		char *bin, *name, *key = NULL, *loc = NULL;

		if (!f->src_file || !f->src_line)
			continue;
		bin = pg_fmt_token(f->binary, "unknown");
		name = pg_fmt_token(f->display && *f->display ? f->display : f->name, "?");
		if (!bin || !name || asprintf(&key, "file:%s/%s", bin, name) < 0)
			key = NULL;
		if (asprintf(&loc, "%s:%u", f->src_file, f->src_line) < 0)
			loc = NULL;
		if (key && loc)
			property(j, key, loc);
		else
			j->err = -ENOMEM;
		free(bin);
		free(name);
		free(key);
		free(loc);
	}
}

static void write_properties(struct pg_xmlw *j, const struct pg_comparison *c,
			     const struct pg_run *base, const struct pg_run *new)
{
	const struct pg_run *runs[2] = { base, new };
	static const char *const sides[2] = { "base", "new" };
	size_t reps[2] = { c->base_reps, c->new_reps };
	char name[64], *cmd;

	pg_xmlw_start(j, "properties");
	property(j, "perfgate.version", PERFGATE_VERSION);
	property(j, "overall", pg_overall_name(c->overall));
	property(j, "overall_reason", c->overall_reason);
	propertyf(j, "alpha", "%g", c->opts.alpha);
	propertyf(j, "min_effect", "%g", c->opts.min_effect);
	propertyf(j, "min_impact", "%g", c->opts.min_impact);
	property(j, "metric", pg_metric_name(c->opts.metric));
	propertyf(j, "min_reps", "%u", c->opts.min_reps);
	if (c->paired)
		propertyf(j, "pairs", "%zu", c->npairs);
	if (c->paired || c->speed_refs)
		property(j, "speed_correction", c->speed_applied ? "applied" : "off");
	for (int s = 0; s < 2; s++) {
		const struct pg_meta *m = runs[s] ? &runs[s]->meta : NULL;

		snprintf(name, sizeof(name), "%s.repetitions", sides[s]);
		propertyf(j, name, "%zu", reps[s]);
		snprintf(name, sizeof(name), "%s.commit", sides[s]);
		property(j, name, m ? m->git_commit : NULL);
		snprintf(name, sizeof(name), "%s.host", sides[s]);
		property(j, name, m ? m->host : NULL);
		snprintf(name, sizeof(name), "%s.start_time", sides[s]);
		property(j, name, m ? m->start_time : NULL);
		cmd = pg_fmt_command(m);
		if (!cmd && !j->err)
			j->err = -ENOMEM;
		snprintf(name, sizeof(name), "%s.command", sides[s]);
		property(j, name, cmd);
		free(cmd);
	}
	write_sources(j, c);
	pg_xmlw_end(j);
}

static void write_failure(struct pg_xmlw *j, const struct pg_comparison *c, const struct pg_fcmp *f)
{
	char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], a[PG_FMT_LEN], b[PG_FMT_LEN];
	char ca[PG_FMT_LEN], cb[PG_FMT_LEN], split[96];
	char *body = NULL;
	size_t size = 0;
	FILE *m;

	pg_fmt_pct(ch, sizeof(ch), f->change);
	pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi);
	pg_xmlw_start(j, "failure");
	pg_xmlw_attr(j, "type", "regression");
	pg_cpusplit_words(f, split, sizeof(split));	/* diff/cpusplit.h */
	pg_xmlw_attrf(j, "message", "%s slower %s (%s time%s), %g%% interval %s, q=%.2g%s%s%s%s",
		      ch, f->origin == PG_ORIGIN_EXACT ? "per call" : "a repetition",
		      f->origin == PG_ORIGIN_PROGRAM ? "the whole program's" :
		      pg_metric_name(c->opts.metric),
		      f->origin == PG_ORIGIN_SAMPLED ? ", sampled" : "",
		      (1 - c->opts.alpha) * 100, in, f->q, *split ? ": " : "", split,
		      f->why[0] ? "; cause: " : "", f->why);

	m = open_memstream(&body, &size);
	if (!m) {
		j->err = -ENOMEM;
		return;
	}
	fprintf(m, "function: %s\n", f->display ? f->display : "");
	fprintf(m, "symbol: %s\n", f->name ? f->name : "");
	if (f->src_file && f->src_line)
		fprintf(m, "source: %s:%u\n", f->src_file, f->src_line);
	fprintf(m, "base: %s per call (median of %zu repetition%s), %s calls per repetition\n",
		pg_fmt_ns(a, sizeof(a), f->base_ns), f->n_base, pg_plural(f->n_base),
		pg_fmt_count(ca, sizeof(ca), f->base_calls));
	fprintf(m, "new: %s per call (median of %zu repetition%s), %s calls per repetition\n",
		pg_fmt_ns(b, sizeof(b), f->new_ns), f->n_new, pg_plural(f->n_new),
		pg_fmt_count(cb, sizeof(cb), f->new_calls));
	fprintf(m, "change: %s, %g%% interval %s, p=%.3g, q=%.3g (alpha %g, min effect %g%%)\n",
		ch, (1 - c->opts.alpha) * 100, in, f->p, f->q, c->opts.alpha,
		c->opts.min_effect * 100);
	if (!isnan(f->impact_ns)) {
		fprintf(m, "per repetition: +%s", pg_fmt_ns(a, sizeof(a), fabs(f->impact_ns)));
		if (!isnan(f->impact))
			fprintf(m, ", %.3g%% of the median repetition's wall time "
				"(min impact %g%%)", 100 * f->impact, 100 * c->opts.min_impact);
		fputc('\n', m);
	}
	fprintf(m, "repetitions: base %zu, new %zu\n", c->base_reps, c->new_reps);
	if (f->calls_changed)
		fprintf(m, "calls per repetition changed: %s -> %s\n", ca, cb);
	if (f->origin == PG_ORIGIN_SAMPLED)
		fprintf(m, "sampled: not traced; its time a repetition estimated from %llu samples "
			"(the times above are a repetition's, not a call's)\n",
			(unsigned long long)f->samples);
	if (f->reason[0])
		fprintf(m, "%s\n", f->reason);
	if (f->explain[0])
		fprintf(m, "%s\n", f->explain);
	if (pg_fmt_code_note(c, f))
		fprintf(m, "%s\n", pg_fmt_code_note(c, f));
	if (f->why[0])
		fprintf(m, "cause: %s\n", f->why);
	if (fclose(m)) {
		free(body);
		j->err = -ENOMEM;
		return;
	}
	pg_xmlw_text(j, body);
	free(body);
	pg_xmlw_end(j);
}

/* "inconclusive: REASON (FILE:LINE)", the parts that are known */
static void skipped_message(struct pg_xmlw *j, const struct pg_fcmp *f)
{
	char *msg = NULL;
	int n;

	if (f->src_file && f->src_line)
		n = asprintf(&msg, "inconclusive%s%s (%s:%u)", f->reason[0] ? ": " : "",
			     f->reason, f->src_file, f->src_line);
	else
		n = asprintf(&msg, "inconclusive%s%s", f->reason[0] ? ": " : "", f->reason);
	if (n < 0) {
		j->err = -ENOMEM;
		return;
	}
	pg_xmlw_attr(j, "message", msg);
	free(msg);
}

static void write_testcase(struct pg_xmlw *j, const struct pg_comparison *c,
			   const struct pg_fcmp *f, const char *root)
{
	/* removed, or traced in the base run only */
	double ns = f->verdict == PG_VERDICT_REMOVED || isnan(f->new_ns) ? f->base_ns : f->new_ns;

	pg_xmlw_start(j, "testcase");
	pg_xmlw_attr_take(j, "name",
			  pg_fmt_token(f->display && *f->display ? f->display : f->name, "?"));
	/* a sampled function's object (in files of before: none); the program its own class */
	pg_xmlw_attr_take(j, "classname", pg_fmt_token(f->origin == PG_ORIGIN_SAMPLED &&
						       !*f->binary ? "sampled" : f->binary,
						       "unknown"));
	if (f->src_file && *f->src_file && f->src_line) {
		pg_xmlw_attr(j, "file", pg_fmt_relative(f->src_file, root));
		pg_xmlw_attrf(j, "line", "%u", f->src_line);
	}
	/* xs:decimal: no exponent; the per-call time, so that CI history graphs follow it */
	pg_xmlw_attrf(j, "time", "%.9f", isfinite(ns) && ns > 0 ? ns / 1e9 : 0.0);
	if (f->verdict == PG_VERDICT_REGRESSION) {
		write_failure(j, c, f);
	} else if (f->verdict == PG_VERDICT_INCONCLUSIVE) {
		pg_xmlw_start(j, "skipped");
		skipped_message(j, f);
		pg_xmlw_end(j);
	}
	pg_xmlw_end(j);
}

/* The comparison table (every function) as the suite's system-out. */
static void write_system_out(struct pg_xmlw *j, const struct pg_comparison *c,
			     const struct pg_run *base, const struct pg_run *new)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m;
	int err;

	if (j->err)
		return;
	m = open_memstream(&text, &size);
	if (!m) {
		j->err = -ENOMEM;
		return;
	}
	err = pg_compare_write_text(c, base, new, 1, m);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (err) {
		j->err = err;
		free(text);
		return;
	}
	pg_xmlw_start(j, "system-out");
	pg_xmlw_text(j, text);
	pg_xmlw_end(j);
	free(text);
}

static void write_doc(struct pg_xmlw *j, const struct pg_comparison *c,
		      const struct pg_run *base, const struct pg_run *new, const char *root)
{
	const struct pg_meta *nm = new ? &new->meta : NULL;
	size_t failures = 0, skipped = 0, i;
	char ts[32];

	for (i = 0; i < c->n; i++) {
		failures += c->f[i].verdict == PG_VERDICT_REGRESSION;
		skipped += c->f[i].verdict == PG_VERDICT_INCONCLUSIVE;
	}
	junit_timestamp(nm ? nm->start_time : NULL, ts, sizeof(ts));

	pg_xmlw_start(j, "testsuite");
	pg_xmlw_attr(j, "name", "perfgate");
	pg_xmlw_attr(j, "timestamp", ts);
	pg_xmlw_attr_take(j, "hostname", pg_fmt_token(nm ? nm->host : NULL, "localhost"));
	pg_xmlw_attrf(j, "tests", "%zu", c->n);
	pg_xmlw_attrf(j, "failures", "%zu", failures);
	pg_xmlw_attr(j, "errors", "0");
	pg_xmlw_attrf(j, "skipped", "%zu", skipped);
	pg_xmlw_attrf(j, "time", "%.3f", suite_seconds(c, new));

	write_properties(j, c, base, new);
	for (i = 0; i < c->n; i++)
		write_testcase(j, c, &c->f[i], root);
	write_system_out(j, c, base, new);
	pg_xmlw_start(j, "system-err");
	for (i = 0; i < c->nwarnings; i++) {
		pg_xmlw_text(j, "warning: ");
		pg_xmlw_text(j, c->warnings[i]);
		pg_xmlw_text(j, "\n");
	}
	pg_xmlw_end(j);
	pg_xmlw_end(j);	/* testsuite */
}

int pg_compare_write_junit(const struct pg_comparison *c, const struct pg_run *base,
			   const struct pg_run *new, const char *root, const char *path)
{
	struct pg_xmlw x;

	if (pg_xmlw_init(&x, path, true, junit_clean))
		return -ENOMEM;
	write_doc(&x, c, base, new, root);
	return pg_xmlw_finish(&x, path, "JUnit report");
}
