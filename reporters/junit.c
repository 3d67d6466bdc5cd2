// SPDX-License-Identifier: MIT
/*
 * reporters/junit.c - the JUnit XML report of `perfgate compare` (reporters/compare_out.h),
 * valid against the Ant JUnit schema (tests/data/JUnit.xsd):
 *
 *	<testsuite name="perfgate" timestamp hostname tests failures errors skipped time>
 *	  <properties> <property name value/>... </properties>
 *	  <testcase classname="BINARY" name="FUNCTION" time="SECONDS">
 *	    [<failure> | <skipped/>]
 *	  </testcase>...
 *	  <system-out>the comparison table (every function)</system-out>
 *	  <system-err>the warnings, one a line</system-err>
 *	</testsuite>
 *
 * The schema allows nothing inside a testcase but one of skipped, error or failure, and requires
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

#include <libxml/xmlwriter.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "../core/version.h"
#include "compare_out.h"
#include "fmt.h"

struct jw {
	xmlTextWriterPtr w;
	int err;		/* first error: -ENOMEM or -EIO */
};

static void jw_check(struct jw *j, int rc)
{
	if (rc < 0 && !j->err)
		j->err = -EIO;
}

static void jw_start(struct jw *j, const char *name)
{
	if (!j->err)
		jw_check(j, xmlTextWriterStartElement(j->w, BAD_CAST name));
}

static void jw_end(struct jw *j)
{
	if (!j->err)
		jw_check(j, xmlTextWriterEndElement(j->w));
}

/* An attribute of type xs:string (any text). */
static void jw_attr(struct jw *j, const char *name, const char *value)
{
	char *v;

	if (j->err)
		return;
	v = pg_fmt_utf8(value, true);
	if (!v) {
		j->err = -ENOMEM;
		return;
	}
	jw_check(j, xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST v));
	free(v);
}

/* An attribute of type xs:token (with minLength 1: @fallback when @value collapses to ""). */
static void jw_attr_token(struct jw *j, const char *name, const char *value,
			  const char *fallback)
{
	char *v;

	if (j->err)
		return;
	v = pg_fmt_token(value, fallback);
	if (!v) {
		j->err = -ENOMEM;
		return;
	}
	jw_check(j, xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST v));
	free(v);
}

static void __attribute__((format(printf, 3, 4)))
jw_attrf(struct jw *j, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jw_attr(j, name, buf);
}

static void jw_text(struct jw *j, const char *text)
{
	char *v;

	if (j->err)
		return;
	v = pg_fmt_utf8(text, true);
	if (!v) {
		j->err = -ENOMEM;
		return;
	}
	jw_check(j, xmlTextWriterWriteString(j->w, BAD_CAST v));
	free(v);
}

static void jw_property(struct jw *j, const char *name, const char *value)
{
	jw_start(j, "property");
	jw_attr(j, "name", name);
	jw_attr(j, "value", value ? value : "");
	jw_end(j);
}

static void __attribute__((format(printf, 3, 4)))
jw_propertyf(struct jw *j, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jw_property(j, name, buf);
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

static void write_properties(struct jw *j, const struct pg_comparison *c,
			     const struct pg_run *base, const struct pg_run *new)
{
	const struct pg_run *runs[2] = { base, new };
	static const char *const sides[2] = { "base", "new" };
	size_t reps[2] = { c->base_reps, c->new_reps };
	char name[64], *cmd;

	jw_start(j, "properties");
	jw_property(j, "perfgate.version", PERFGATE_VERSION);
	jw_property(j, "overall", pg_overall_name(c->overall));
	jw_property(j, "overall_reason", c->overall_reason);
	jw_propertyf(j, "alpha", "%g", c->opts.alpha);
	jw_propertyf(j, "min_effect", "%g", c->opts.min_effect);
	jw_property(j, "metric", pg_metric_name(c->opts.metric));
	jw_propertyf(j, "min_reps", "%u", c->opts.min_reps);
	for (int s = 0; s < 2; s++) {
		const struct pg_meta *m = runs[s] ? &runs[s]->meta : NULL;

		snprintf(name, sizeof(name), "%s.repetitions", sides[s]);
		jw_propertyf(j, name, "%zu", reps[s]);
		snprintf(name, sizeof(name), "%s.commit", sides[s]);
		jw_property(j, name, m ? m->git_commit : NULL);
		snprintf(name, sizeof(name), "%s.host", sides[s]);
		jw_property(j, name, m ? m->host : NULL);
		snprintf(name, sizeof(name), "%s.start_time", sides[s]);
		jw_property(j, name, m ? m->start_time : NULL);
		cmd = pg_fmt_command(m);
		if (!cmd && !j->err)
			j->err = -ENOMEM;
		snprintf(name, sizeof(name), "%s.command", sides[s]);
		jw_property(j, name, cmd);
		free(cmd);
	}
	jw_end(j);
}

static void write_failure(struct jw *j, const struct pg_comparison *c, const struct pg_fcmp *f)
{
	char ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], a[PG_FMT_LEN], b[PG_FMT_LEN];
	char ca[PG_FMT_LEN], cb[PG_FMT_LEN];
	char *body = NULL;
	size_t size = 0;
	FILE *m;

	pg_fmt_pct(ch, sizeof(ch), f->change);
	pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi);
	jw_start(j, "failure");
	jw_attr(j, "type", "regression");
	jw_attrf(j, "message", "%s slower per call (%s time), %g%% interval %s, q=%.2g", ch,
		 pg_metric_name(c->opts.metric), (1 - c->opts.alpha) * 100, in, f->q);

	m = open_memstream(&body, &size);
	if (!m) {
		j->err = -ENOMEM;
		return;
	}
	fprintf(m, "function: %s\n", f->display ? f->display : "");
	fprintf(m, "symbol: %s\n", f->name ? f->name : "");
	fprintf(m, "base: %s per call (median of %zu repetitions), %s calls per repetition\n",
		pg_fmt_ns(a, sizeof(a), f->base_ns), f->n_base,
		pg_fmt_count(ca, sizeof(ca), f->base_calls));
	fprintf(m, "new: %s per call (median of %zu repetitions), %s calls per repetition\n",
		pg_fmt_ns(b, sizeof(b), f->new_ns), f->n_new,
		pg_fmt_count(cb, sizeof(cb), f->new_calls));
	fprintf(m, "change: %s, %g%% interval %s, p=%.3g, q=%.3g (alpha %g, min effect %g%%)\n",
		ch, (1 - c->opts.alpha) * 100, in, f->p, f->q, c->opts.alpha,
		c->opts.min_effect * 100);
	fprintf(m, "repetitions: base %zu, new %zu\n", c->base_reps, c->new_reps);
	if (f->calls_changed)
		fprintf(m, "calls per repetition changed: %s -> %s\n", ca, cb);
	if (f->reason[0])
		fprintf(m, "%s\n", f->reason);
	if (fclose(m)) {
		free(body);
		j->err = -ENOMEM;
		return;
	}
	jw_text(j, body);
	free(body);
	jw_end(j);
}

static void write_testcase(struct jw *j, const struct pg_comparison *c, const struct pg_fcmp *f)
{
	double ns = f->verdict == PG_VERDICT_REMOVED ? f->base_ns : f->new_ns;

	jw_start(j, "testcase");
	jw_attr_token(j, "name", f->display && *f->display ? f->display : f->name, "?");
	jw_attr_token(j, "classname", f->binary, "unknown");
	/* xs:decimal: no exponent; the per-call time, so that CI history graphs follow it */
	jw_attrf(j, "time", "%.9f", isfinite(ns) && ns > 0 ? ns / 1e9 : 0.0);
	if (f->verdict == PG_VERDICT_REGRESSION) {
		write_failure(j, c, f);
	} else if (f->verdict == PG_VERDICT_INCONCLUSIVE) {
		jw_start(j, "skipped");
		jw_attrf(j, "message", "inconclusive%s%s", f->reason[0] ? ": " : "", f->reason);
		jw_end(j);
	}
	jw_end(j);
}

/* The comparison table (every function) as the suite's system-out. */
static void write_system_out(struct jw *j, const struct pg_comparison *c,
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
	jw_start(j, "system-out");
	jw_text(j, text);
	jw_end(j);
	free(text);
}

static int write_doc(struct jw *j, const struct pg_comparison *c, const struct pg_run *base,
		     const struct pg_run *new)
{
	const struct pg_meta *nm = new ? &new->meta : NULL;
	size_t failures = 0, skipped = 0, i;
	char ts[32];

	for (i = 0; i < c->n; i++) {
		failures += c->f[i].verdict == PG_VERDICT_REGRESSION;
		skipped += c->f[i].verdict == PG_VERDICT_INCONCLUSIVE;
	}
	junit_timestamp(nm ? nm->start_time : NULL, ts, sizeof(ts));

	jw_check(j, xmlTextWriterSetIndent(j->w, 1));
	jw_check(j, xmlTextWriterSetIndentString(j->w, BAD_CAST "  "));
	jw_check(j, xmlTextWriterStartDocument(j->w, NULL, "UTF-8", NULL));
	jw_start(j, "testsuite");
	jw_attr(j, "name", "perfgate");
	jw_attr(j, "timestamp", ts);
	jw_attr_token(j, "hostname", nm ? nm->host : NULL, "localhost");
	jw_attrf(j, "tests", "%zu", c->n);
	jw_attrf(j, "failures", "%zu", failures);
	jw_attr(j, "errors", "0");
	jw_attrf(j, "skipped", "%zu", skipped);
	jw_attrf(j, "time", "%.3f", suite_seconds(c, new));

	write_properties(j, c, base, new);
	for (i = 0; i < c->n; i++)
		write_testcase(j, c, &c->f[i]);
	write_system_out(j, c, base, new);
	jw_start(j, "system-err");
	for (i = 0; i < c->nwarnings; i++) {
		jw_text(j, "warning: ");
		jw_text(j, c->warnings[i]);
		jw_text(j, "\n");
	}
	jw_end(j);
	jw_end(j);	/* testsuite */
	if (!j->err)
		jw_check(j, xmlTextWriterEndDocument(j->w));
	return j->err;
}

int pg_compare_write_junit(const struct pg_comparison *c, const struct pg_run *base,
			   const struct pg_run *new, const char *path)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct jw j = { NULL, 0 };
	int err;

	if (buf)
		j.w = xmlNewTextWriterMemory(buf, 0);
	if (!j.w) {
		pg_err("%s: cannot create the XML writer: out of memory", path);
		xmlBufferFree(buf);
		return -ENOMEM;
	}
	err = write_doc(&j, c, base, new);
	xmlFreeTextWriter(j.w);	/* flushes into buf */
	if (err) {
		pg_err("%s: cannot build the JUnit report: %s", path, strerror(-err));
	} else {
		err = pg_atomic_write(path, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	}
	xmlBufferFree(buf);
	return err;
}
