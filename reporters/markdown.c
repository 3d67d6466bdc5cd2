// SPDX-License-Identifier: MIT
/*
 * reporters/markdown.c - the pull-request summary and the GitHub annotations of
 * `perfgate compare` (reporters/markdown.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/gbench.h"
#include "../diff/cpusplit.h"
#include "../diff/sampled.h"
#include "fmt.h"
#include "markdown.h"

#define NAME_MAX_LEN 80		/* longer function names lose their middle */
#define TEXT_MAX_LEN 300	/* longer free text (warnings, reasons) is cut */

/* ---- escaping ---- */

/* @s as printable ASCII, shortened to @max characters; NULL on allocation failure. */
static char *ascii_short(const char *s, size_t max, bool middle)
{
	char *a = pg_fmt_ascii(s);

	if (a && middle)
		pg_fmt_ellipsize(a, max);
	else if (a)
		pg_fmt_truncate(a, max);
	return a;
}

/* Text for a table cell or a line of prose: Markdown and HTML markup escaped. */
static void md_text(FILE *out, const char *s)
{
	char *a = ascii_short(s, TEXT_MAX_LEN, false);

	for (const char *p = a ? a : ""; *p; p++) {
		if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '&')
			fputs("&amp;", out);
		else if (strchr("\\`*_[]|~#!", *p))
			fprintf(out, "\\%c", *p);
		else
			fputc(*p, out);
	}
	free(a);
}

/* A code span: backticks cannot be escaped inside one (they become '), pipes can. */
static void md_code(FILE *out, const char *s, size_t max)
{
	char *a = ascii_short(s, max, true);

	fputc('`', out);
	for (const char *p = a ? a : ""; *p; p++) {
		if (*p == '`')
			fputc('\'', out);
		else if (*p == '|')
			fputs("\\|", out);
		else
			fputc(*p, out);
	}
	fputc('`', out);
	free(a);
}

char *pg_gh_escape(const char *s, bool property)
{
	size_t n = 0;
	char *out, *o;

	s = s ? s : "";
	out = malloc(3 * strlen(s) + 1);
	if (!out)
		return NULL;
	for (o = out; s[n]; n++) {
		unsigned char ch = (unsigned char)s[n];

		if (ch == '%' || ch == '\r' || ch == '\n' || (property && (ch == ':' || ch == ',')))
			o += sprintf(o, "%%%02X", ch);
		else
			*o++ = (char)ch;
	}
	*o = '\0';
	return out;
}

/* ---- the summary ---- */

static const char *fn_name(const struct pg_fcmp *f)
{
	return f->display ? f->display : f->name;
}

/* Entries of @c with verdict @v (PG_VERDICT_COUNT: any): functions, or (@program) the whole
 * program's. */
static size_t count_verdict(const struct pg_comparison *c, enum pg_verdict v, bool program)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += (v == PG_VERDICT_COUNT || c->f[i].verdict == v) &&
		     (c->f[i].origin == PG_ORIGIN_PROGRAM) == program;
	return n;
}

/* Benchmarks of a Google Benchmark program among @c's entries with verdict @v (PG_VERDICT_COUNT:
 * any) */
static size_t count_benches(const struct pg_comparison *c, enum pg_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += (v == PG_VERDICT_COUNT || c->f[i].verdict == v) && pg_gb_is_bench(&c->f[i]);
	return n;
}

/* "2 of 2 benchmarks and 1 of 9 functions compared got slower" */
static void md_slower(FILE *out, const struct pg_comparison *c)
{
	size_t nreg = count_verdict(c, PG_VERDICT_REGRESSION, false);
	size_t nfun = count_verdict(c, PG_VERDICT_COUNT, false);
	size_t breg = count_benches(c, PG_VERDICT_REGRESSION);
	size_t nb = count_benches(c, PG_VERDICT_COUNT);

	if (nb)
		fprintf(out, "%zu of %zu benchmark%s and ", breg, nb, pg_plural(nb));
	fprintf(out, "%zu of %zu function%s compared got slower by more than the minimum effect "
		"(%.1f%%)", nreg - breg, nfun - nb, pg_plural(nfun - nb), c->opts.min_effect * 100);
}

static void md_heading(FILE *out, const struct pg_comparison *c)
{
	size_t nreg = count_verdict(c, PG_VERDICT_REGRESSION, false);
	size_t nfun = count_verdict(c, PG_VERDICT_COUNT, false);
	size_t prog = count_verdict(c, PG_VERDICT_REGRESSION, true);
	size_t breg = count_benches(c, PG_VERDICT_REGRESSION);
	char what[PG_FMT_LEN * 2];

	switch (c->overall) {
	case PG_OVERALL_PASS:
		pg_fmt_compared(what, sizeof(what), count_benches(c, PG_VERDICT_COUNT),
				nfun - count_benches(c, PG_VERDICT_COUNT));
		fprintf(out, "### :white_check_mark: perfgate: pass\n\nNo regression in %s "
			"compared (%zu unchanged, %zu improved, ", what,
			count_verdict(c, PG_VERDICT_UNCHANGED, false),
			count_verdict(c, PG_VERDICT_IMPROVEMENT, false));
		if (c->nnotable)
			fprintf(out, "%zu notable change%s too small for the run to count, ",
				c->nnotable, pg_plural(c->nnotable));
		fprintf(out, "%zu inconclusive).\n",
			count_verdict(c, PG_VERDICT_INCONCLUSIVE, false));
		break;
	case PG_OVERALL_REGRESSION:
		pg_fmt_regressed(what, sizeof(what), c, prog, breg, nreg - breg);
		fprintf(out, "### :x: perfgate: regression%s\n\n", what);
		md_slower(out, c);
		if (c->opts.min_impact > 0)
			fprintf(out, ", by at least %g%% of a repetition",
				c->opts.min_impact * 100);
		fputs(".\n", out);
		break;
	case PG_OVERALL_INCONCLUSIVE:
	default:
		fprintf(out, "### :warning: perfgate: inconclusive\n\n");
		if (c->overall_reason[0])
			md_text(out, c->overall_reason);
		else
			fprintf(out, "%zu function%s could not be decided", c->ninconclusive,
				pg_plural(c->ninconclusive));
		fputs(".\n", out);
		break;
	}
}

static void md_side(FILE *out, const char *label, const struct pg_run *run, size_t reps)
{
	char commit[PG_FMT_LEN];

	pg_fmt_commit(commit, sizeof(commit), run ? run->meta.git_commit : NULL);
	fprintf(out, "%s ", label);
	md_code(out, commit, PG_FMT_LEN);
	fprintf(out, " (%zu repetition%s", reps, pg_plural(reps));
	if (run && run->meta.host) {
		fputs(", ", out);
		md_text(out, run->meta.host);
	}
	fputc(')', out);
}

static void md_context(FILE *out, const struct pg_comparison *c, const struct pg_run *base,
		       const struct pg_run *new)
{
	char *cmd = pg_fmt_command(new ? &new->meta : base ? &base->meta : NULL);

	fputc('\n', out);
	md_side(out, "Base", base, c->base_reps);
	fputs(", ", out);
	md_side(out, "new", new, c->new_reps);
	fprintf(out, "; %s time per call, alpha %g, minimum effect %.1f%%",
		pg_metric_name(c->opts.metric), c->opts.alpha, c->opts.min_effect * 100);
	if (c->paired)
		fprintf(out, "; paired (%zu pair%s of one interleaved session%s)", c->npairs,
			pg_plural(c->npairs),
			c->speed_applied ? ", each corrected for the machine's speed" : "");
	else if (c->speed_applied && c->speed_runs)
		fprintf(out, "; functions corrected for the machine's speed between the runs "
			"(%+.1f%%)", 100 * c->speed_shift);
	else if (c->speed_src == PG_SRC_SPIN)
		fprintf(out, "; functions corrected for the machine's speed between the runs by "
			"the reference spin (%+.1f%%)", 100 * c->speed_shift);
	else if (c->speed_src == PG_SRC_UNKNOWN)
		fputs("; the machine's speed between the runs unknown (no reference spin): every "
		      "interval widened by it", out);
	else if (c->speed_applied)
		fputs("; each session corrected for the machine's speed", out);
	if (c->speed_runs && c->speed_inflation > 1)
		fprintf(out, "; every interval widened %.1fx for the two recordings' own noise%s",
			c->speed_inflation, c->speed_inflation_prior ? " (not estimated: too few "
			"functions)" : "");
	if (c->speed_runs && c->speed_kernel_n)
		fprintf(out, "; %zu function%s whose time is mostly the kernel's (files, threads) "
			"widened %.1fx", c->speed_kernel_n, c->speed_kernel_n == 1 ? "" : "s",
			c->speed_kernel_inflation);
	if (cmd && *cmd) {
		fputs("; command ", out);
		md_code(out, cmd, 120);
	}
	fputs(".\n", out);
	free(cmd);
}

static void md_row(FILE *out, const struct pg_comparison *c, const struct pg_fcmp *f)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], split[96];

	fprintf(out, "| %s | ", f->verdict == PG_VERDICT_REGRESSION ? ":red_circle: regression" :
		f->verdict == PG_VERDICT_IMPROVEMENT ? ":green_circle: improvement" :
		f->change > 0 ? ":white_circle: notable, slower" :
		":white_circle: notable, faster");
	md_code(out, fn_name(f), NAME_MAX_LEN);
	if (f->src_file && f->src_line) {
		char loc[PG_FMT_LEN + 16];

		snprintf(loc, sizeof(loc), "%s:%u", pg_basename(f->src_file), f->src_line);
		fputs(" (", out);
		md_text(out, loc);
		fputc(')', out);
	}
	fputs(" | ", out);
	if (f->origin == PG_ORIGIN_SAMPLED) {
		md_text(out, f->binary);
		fprintf(out, "%ssampled (%s samples)", *f->binary ? ", " : "",
			pg_fmt_count(a, sizeof(a), (double)f->samples));
	}
	else if (f->origin == PG_ORIGIN_PROGRAM)
		fputs("the whole program", out);
	else
		md_text(out, f->binary);
	if (pg_fmt_code_note(c, f))
		fputs("; same machine code in both builds", out);
	fprintf(out, " | %s | %s | %s %s", pg_fmt_ns(a, sizeof(a), f->base_ns),
		pg_fmt_ns(b, sizeof(b), f->new_ns), pg_fmt_pct(ch, sizeof(ch), f->change),
		pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi));
	if (*pg_cpusplit_words(f, split, sizeof(split)))
		fprintf(out, ": %s", split);	/* diff/cpusplit.h */
	fputs(" | ", out);
	if (f->origin == PG_ORIGIN_SAMPLED) {
		fputs("-", out);	/* samples count no calls */
	} else if (f->calls_changed) {
		double rel = f->base_calls > 0 ? f->new_calls / f->base_calls - 1 : INFINITY;

		fprintf(out, "%s &rarr; %s (%s)", pg_fmt_count(a, sizeof(a), f->base_calls),
			pg_fmt_count(b, sizeof(b), f->new_calls), pg_fmt_pct(ch, sizeof(ch), rel));
	} else {
		fprintf(out, "%s", pg_fmt_count(a, sizeof(a), f->new_calls));
	}
	fputs(" | ", out);
	if (!isnan(f->impact))
		fprintf(out, "%+.2g%%", 100 * f->impact);
	fputs(" |\n", out);
}

/* What explains the changes shown (struct pg_fcmp explain), one line each. */
static void md_explained(FILE *out, const struct pg_comparison *c, size_t top)
{
	bool first = true;

	for (size_t i = 0, shown = 0; i < c->n && shown < top; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT &&
		    f->verdict != PG_VERDICT_NOTABLE)
			continue;
		shown++;
		if (!f->explain[0] && !f->why[0])
			continue;
		fputs(first ? "\n- " : "- ", out);
		first = false;
		md_code(out, fn_name(f), NAME_MAX_LEN);
		fputs(": ", out);
		fputs(pg_fmt_cause_lead(f), out);
		md_text(out, f->why);
		fputs(f->why[0] && f->explain[0] ? "; " : "", out);
		md_text(out, f->explain);
		fputc('\n', out);
	}
}

static void md_table(FILE *out, const struct pg_comparison *c, size_t top)
{
	size_t shown = 0, more_reg = 0, more_imp = 0, more_not = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT &&
		    f->verdict != PG_VERDICT_NOTABLE)
			continue;
		if (shown == top) {
			if (f->verdict == PG_VERDICT_REGRESSION)
				more_reg++;
			else if (f->verdict == PG_VERDICT_IMPROVEMENT)
				more_imp++;
			else
				more_not++;
			continue;
		}
		if (!shown++)
			fputs("\n| | function | binary | base | new | change [interval] | "
			      "calls/rep | share of the run |\n"
			      "|---|---|---|---:|---:|---:|---:|---:|\n", out);
		md_row(out, c, f);
	}
	if (shown)
		md_explained(out, c, top);
	if (more_reg || more_imp || more_not) {
		fprintf(out, "\n... and %zu more regression%s and %zu more improvement%s", more_reg,
			pg_plural(more_reg), more_imp, pg_plural(more_imp));
		if (more_not)
			fprintf(out, " and %zu more notable change%s", more_not,
				pg_plural(more_not));
		fputs(" (see the JUnit report or the full JSON result).\n", out);
	}
	if (c->nnotable)
		fprintf(out, "\nNotable changes are significant per call but change the run by "
			"less than %g%% of a repetition's wall time: they do not fail.\n",
			100 * c->opts.min_impact);
}

static void md_counts(FILE *out, const struct pg_comparison *c)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];
	const struct pg_fcmp *w = &c->wall;

	fprintf(out, "\n%zu function%s: %zu regressed, %zu improved, ", c->n, pg_plural(c->n),
		c->nregressions, c->nimprovements);
	if (c->nnotable)
		fprintf(out, "%zu notable, ", c->nnotable);
	fprintf(out, "%zu unchanged, %zu inconclusive, %zu added, %zu removed.", c->nunchanged,
		c->ninconclusive, c->nadded, c->nremoved);
	if (w->n_base || w->n_new) {
		fprintf(out, " Wall time per repetition %s &rarr; %s", pg_fmt_ns(a, sizeof(a),
			w->base_ns), pg_fmt_ns(b, sizeof(b), w->new_ns));
		if (!isnan(w->change))
			fprintf(out, ", %s %s", pg_fmt_pct(ch, sizeof(ch), w->change),
				pg_fmt_interval(in, sizeof(in), w->ci_lo, w->ci_hi));
		fputc('.', out);
	}
	if (isnan(c->judged_share))
		fprintf(out, " Judged: %zu functions exact, %zu sampled%s.", c->njudged_exact,
			c->njudged_sampled, c->program_judged ? ", the whole program" : "");
	else
		fprintf(out, " Judged %.0f%% of the CPU time: %zu functions exact, %zu sampled%s.",
			100 * c->judged_share, c->njudged_exact, c->njudged_sampled,
			c->program_judged ? ", the whole program" : "");
	if (c->nunjudged)
		fprintf(out, " Not judged (not traced, and under %d samples a repetition: too rare "
			"for a verdict): ", PG_SAMPLED_MIN_SAMPLES);
	for (size_t i = 0; i < c->nunjudged; i++) {
		fputs(i ? ", " : "", out);
		md_code(out, c->unjudged[i].name, NAME_MAX_LEN);
		fprintf(out, " %.1f%% of the samples (~%.1f a repetition)%s",
			100 * c->unjudged[i].share, c->unjudged[i].per_rep,
			i + 1 == c->nunjudged ? "." : "");
	}
	fputc('\n', out);
}

char *pg_compare_markdown(const struct pg_comparison *c, const struct pg_run *base,
			  const struct pg_run *new, const struct pg_md_opts *opts)
{
	size_t top = opts && opts->top ? opts->top : PG_MD_TOP_DEFAULT;
	char *buf = NULL, *env;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	if (!out)
		return NULL;
	md_heading(out, c);
	env = pg_fmt_env_diff(base ? &base->meta : NULL, new ? &new->meta : NULL);
	if (!env) {
		fclose(out);
		free(buf);
		return NULL;
	}
	if (*env) {	/* first: it may explain everything below */
		fputs("> :warning: ", out);
		md_text(out, env);
		fputs("\n\n", out);
	}
	free(env);
	md_context(out, c, base, new);
	md_table(out, c, top);
	md_counts(out, c);
	if (c->nwarnings)
		fputc('\n', out);
	for (size_t i = 0; i < c->nwarnings; i++) {
		fputs("> :warning: ", out);
		md_text(out, c->warnings[i]);
		fputs("\n", out);
		if (i + 1 < c->nwarnings)
			fputs(">\n", out);
	}
	if (opts && opts->nartifacts) {
		fputs("\nArtifacts: ", out);
		for (size_t i = 0; i < opts->nartifacts; i++) {
			if (i)
				fputs(", ", out);
			md_code(out, pg_basename(opts->artifacts[i]), NAME_MAX_LEN);
		}
		fputs(".\n", out);
	}
	if (ferror(out)) {
		fclose(out);
		free(buf);
		return NULL;
	}
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- GitHub annotations ---- */

/* "::error file=F,line=L,title=T::MESSAGE" with the properties and the data escaped. */
static int gh_command(FILE *out, const char *cmd, const char *file, uint32_t line,
		      const char *title, const char *msg)
{
	char *ef = file ? pg_gh_escape(file, true) : NULL;
	char *et = pg_gh_escape(title, true), *em = pg_gh_escape(msg, false);
	int err = (file && !ef) || !et || !em ? -1 : 0;

	if (!err) {
		fprintf(out, "::%s ", cmd);
		if (ef)
			fprintf(out, "file=%s,line=%u,", ef, line);
		fprintf(out, "title=%s::%s\n", et, em);
	}
	free(ef);
	free(et);
	free(em);
	return err;
}

/* The annotation text of a sampled function or the whole program: times a repetition. */
static char *gh_rep_message(const struct pg_comparison *c, const struct pg_fcmp *f,
			    const char *name)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN], n[PG_FMT_LEN];
	char *msg = NULL;

	if (asprintf(&msg, "%s%s%s%s time a repetition %s -> %s, %s with %g%% interval %s, "
		     "q=%.2g%s%s%s%s", name, f->origin == PG_ORIGIN_SAMPLED ? " (" : "",
		     f->origin == PG_ORIGIN_SAMPLED && *f->binary ? f->binary : "",
		     f->origin != PG_ORIGIN_SAMPLED ? "" : *f->binary ? ", sampled, not traced)" :
		     "sampled, not traced)",
		     pg_fmt_ns(a, sizeof(a), f->base_ns), pg_fmt_ns(b, sizeof(b), f->new_ns),
		     pg_fmt_pct(ch, sizeof(ch), f->change), 100 * (1 - c->opts.alpha),
		     pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi), f->q,
		     f->samples ? "; samples " : "",
		     f->samples ? pg_fmt_count(n, sizeof(n), (double)f->samples) : "",
		     f->explain[0] ? "; " : "", f->explain) < 0)
		return NULL;
	return msg;
}

/* The annotation text of a traced function: per-call times and calls. */
static char *gh_call_message(const struct pg_comparison *c, const struct pg_fcmp *f,
			     const char *name)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];
	char ca[PG_FMT_LEN], cb[PG_FMT_LEN];
	char *msg = NULL;

	if (asprintf(&msg, "%s (%s) per-call %s time %s -> %s, %s with %g%% interval %s, q=%.2g; "
		     "calls per repetition %s -> %s", name, f->binary,
		     pg_metric_name(c->opts.metric),
		     pg_fmt_ns(a, sizeof(a), f->base_ns), pg_fmt_ns(b, sizeof(b), f->new_ns),
		     pg_fmt_pct(ch, sizeof(ch), f->change), 100 * (1 - c->opts.alpha),
		     pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi), f->q,
		     pg_fmt_count(ca, sizeof(ca), f->base_calls),
		     pg_fmt_count(cb, sizeof(cb), f->new_calls)) < 0)
		return NULL;
	return msg;
}

static int gh_regression(FILE *out, const struct pg_comparison *c, const struct pg_fcmp *f,
			 const char *workspace)
{
	char ch[PG_FMT_LEN], title[NAME_MAX_LEN + 64];
	char *name = ascii_short(fn_name(f), NAME_MAX_LEN, true), *msg;
	bool exact = f->origin == PG_ORIGIN_EXACT;
	int err;

	if (!name)
		return -1;
	snprintf(title, sizeof(title), "perfgate: %s %s slower %s", name,
		 pg_fmt_pct(ch, sizeof(ch), f->change), exact ? "per call" : "a repetition");
	msg = exact ? gh_call_message(c, f, name) : gh_rep_message(c, f, name);
	if (msg && f->why[0]) {
		char *m = NULL;

		if (asprintf(&m, "%s; cause: %s", msg, f->why) < 0)
			m = NULL;
		free(msg);
		msg = m;
	}
	if (!msg) {
		free(name);
		return -1;
	}
	err = gh_command(out, "error", f->src_file && f->src_line ?
			 pg_fmt_relative(f->src_file, workspace) : NULL, f->src_line, title, msg);
	free(msg);
	free(name);
	return err;
}

char *pg_compare_gh_annotations(const struct pg_comparison *c, size_t max, const char *workspace)
{
	size_t nreg = count_verdict(c, PG_VERDICT_REGRESSION, false) +
		      count_verdict(c, PG_VERDICT_REGRESSION, true), shown = 0, size = 0;
	char *buf = NULL, msg[128];
	FILE *out = open_memstream(&buf, &size);
	int err = 0;

	if (!out)
		return NULL;
	/* when they do not all fit, the last annotation counts the rest */
	if (max && nreg > max)
		max--;
	for (size_t i = 0; i < c->n && shown < max && !err; i++) {
		if (c->f[i].verdict != PG_VERDICT_REGRESSION)
			continue;
		err = gh_regression(out, c, &c->f[i], workspace);
		shown++;
	}
	if (!err && shown < nreg) {
		snprintf(msg, sizeof(msg), "%zu more function%s regressed: see the job summary",
			 nreg - shown, pg_plural(nreg - shown));
		err = gh_command(out, "error", NULL, 0, "perfgate: more regressions", msg);
	}
	if (!err && c->overall == PG_OVERALL_INCONCLUSIVE)
		err = gh_command(out, "warning", NULL, 0, "perfgate: inconclusive",
				 c->overall_reason[0] ? c->overall_reason :
				 "some functions could not be decided");
	if (fclose(out) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}
