// SPDX-License-Identifier: MIT
/*
 * reporters/compare_text.c - the human table of `perfgate compare` (reporters/compare_out.h).
 *
 * Printable ASCII only ("us" for microseconds, "->" for arrows), lines of at most
 * PG_TEXT_WIDTH characters unless the function column's minimum width forces more: long names
 * lose their middle to "...". Each row may be followed by an indented note line: the calls
 * change when it does not fit at the end of the row, the reason of an inconclusive verdict,
 * and what a notable change costs the run (other reasons repeat what the columns say).
 *
 * Without verbose the table holds what failed, what improved, notable changes, added and
 * removed functions; inconclusive ones are counted in one line with their most common cause,
 * unchanged ones in another.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../diff/cpusplit.h"
#include "../diff/hspeed.h"
#include "../diff/rnull.h"
#include "../diff/rspeed.h"
#include "../diff/sampled.h"
#include "../diff/speed.h"
#include "compare_out.h"
#include "fmt.h"
#include "gbench_text.h"

#define PG_TEXT_WIDTH	120
#define FN_MIN		24	/* the function column never gets narrower than this */
#define FN_MAX		64	/* nor wider */
#define BIN_MAX		20
#define SEP		2	/* spaces between columns */

static const char *const verdict_labels[] = {
	[PG_VERDICT_UNCHANGED] = "unchanged",
	[PG_VERDICT_REGRESSION] = "REGRESSION",
	[PG_VERDICT_IMPROVEMENT] = "improvement",
	[PG_VERDICT_INCONCLUSIVE] = "inconclusive",
	[PG_VERDICT_ADDED] = "added",
	[PG_VERDICT_REMOVED] = "removed",
	[PG_VERDICT_NOTABLE] = "notable",
};

static const char *verdict_label(enum pg_verdict v)
{
	if ((unsigned int)v >= sizeof(verdict_labels) / sizeof(verdict_labels[0]))
		return "?";
	return verdict_labels[v];
}

struct row {
	const struct pg_fcmp *f;
	char *fn;				/* ASCII display name */
	char *bin;				/* ASCII binary basename */
	char base[PG_FMT_LEN];
	char new[PG_FMT_LEN];
	char change[PG_FMT_LEN];
	char interval[2 * PG_FMT_LEN];
	char verdict[2 * PG_FMT_LEN];		/* verdict and q */
	char calls[3 * PG_FMT_LEN];		/* "calls 100->120", or "" */
	const char *code;			/* pg_fmt_code_note(), or NULL */
};

static size_t max_len(size_t w, const char *s)
{
	size_t l = strlen(s);

	return l > w ? l : w;
}

static int fill_row(struct row *r, const struct pg_comparison *c, const struct pg_fcmp *f)
{
	char q[PG_FMT_LEN] = "", a[PG_FMT_LEN], b[PG_FMT_LEN];

	r->f = f;
	r->code = pg_fmt_code_note(c, f);
	r->fn = pg_fmt_ascii(f->display ? f->display : f->name);
	r->bin = pg_fmt_ascii(f->binary);
	if (!r->fn || !r->bin)
		return -ENOMEM;
	pg_fmt_ns(r->base, sizeof(r->base), f->base_ns);
	pg_fmt_ns(r->new, sizeof(r->new), f->new_ns);
	if (f->verdict == PG_VERDICT_ADDED || f->verdict == PG_VERDICT_REMOVED) {
		strcpy(r->change, "-");
		strcpy(r->interval, "-");
	} else {
		pg_fmt_pct(r->change, sizeof(r->change), f->change);
		pg_fmt_interval(r->interval, sizeof(r->interval), f->ci_lo, f->ci_hi);
	}
	if (!isnan(f->q))
		snprintf(q, sizeof(q), "  q=%.2g", f->q);
	if (f->calls_changed && f->verdict != PG_VERDICT_ADDED && f->verdict != PG_VERDICT_REMOVED)
		snprintf(r->calls, sizeof(r->calls), "calls %s->%s",
			 pg_fmt_count(a, sizeof(a), f->base_calls),
			 pg_fmt_count(b, sizeof(b), f->new_calls));
	snprintf(r->verdict, sizeof(r->verdict), "%s%s", verdict_label(f->verdict), q);
	return 0;
}

/* A line of the header: "  " and the formatted text, wrapped to the width under "    ". */
__attribute__((format(printf, 2, 3)))
static void header_line(FILE *out, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pg_fmt_wrap(out, "  ", "    ", line, PG_TEXT_WIDTH);
}

/* The machine's speed correction of a paired comparison (diff/speed.h), one line. */
static void print_speed(const struct pg_comparison *c, FILE *out)
{
	if (c->opts.no_speed)
		header_line(out, "machine speed: not corrected (--no-speed-correction)");
	else if (c->speed_applied)
		header_line(out, "machine speed: each pair corrected for it (a pair's sides "
			"differed by %.1f%% typically, from %zu function%s)", 100 * c->speed_spread,
			c->speed_refs, pg_plural(c->speed_refs));
	else if (!isnan(c->speed_p))
		header_line(out, "machine speed: not corrected: the whole program moved %+.1f%% in "
			"most pairs (p=%.2g), a change of the program", 100 * c->speed_shift,
			c->speed_p);
	else if (c->speed_refs < PG_SPEED_MIN_REFS)
		header_line(out, "machine speed: not corrected: %zu function%s to tell it from, %d "
			"needed", c->speed_refs, pg_plural(c->speed_refs), PG_SPEED_MIN_REFS);
	else
		header_line(out, "machine speed: not corrected: fewer than %d pairs to tell it in",
			PG_SPEED_MIN_PAIRS);
}

/* Why the references of two recordings did not tell the machine's speed, into @buf */
static void no_refs_why(char *buf, size_t len, const struct pg_comparison *c)
{
	if (c->speed_refs < PG_RSPEED_MIN_REFS)
		snprintf(buf, len, "%zu reference function%s, %d needed", c->speed_refs,
			 pg_plural(c->speed_refs), PG_RSPEED_MIN_REFS);
	else
		snprintf(buf, len, "%zu of its %zu reference functions moved by themselves",
			 c->speed_changed, c->speed_refs);
}

/* What became of the program's times between two recordings, into @buf */
static const char *program_words(char *buf, size_t len, const struct pg_comparison *c)
{
	if (isnan(c->program_spin))
		snprintf(buf, len, "the program's times as measured");
	else
		snprintf(buf, len, "the program's CPU time by the spin's, %+.1f%%; its wall time "
			 "as measured", 100 * c->program_spin);
	return buf;
}

/* The machine's speed between two recordings compared unpaired (diff/rspeed.h), a line or two:
 * where it came from (the reference functions, the reference spin, or unknown). */
static void print_run_speed(const struct pg_comparison *c, FILE *out)
{
	size_t kept = c->speed_refs - c->speed_changed;
	char why[128], prog[96];

	no_refs_why(why, sizeof(why), c);
	if (c->opts.no_speed)
		header_line(out, "machine speed: not corrected (--no-speed-correction)");
	else if (c->speed_applied)
		header_line(out, "machine speed from %zu reference function%s: the new run's "
			"functions corrected for it (%+.1f%% against the base run; %s)", kept,
			pg_plural(kept), 100 * c->speed_shift,
			program_words(prog, sizeof(prog), c));
	else if (c->speed_src == PG_SRC_SPIN)
		header_line(out, "machine speed from the reference spin (%s): the new run's "
			"functions corrected for it (%+.1f%% +-%.1f%% against the base run, and "
			"+-%.1f%% for what a spin does not see: caches, memory, files; both in "
			"every interval; %s)", why, 100 * c->speed_shift, 100 * c->speed_spin_se,
			100 * expm1(PG_RSPEED_SPIN_BLIND), program_words(prog, sizeof(prog), c));
	else if (c->speed_src == PG_SRC_UNKNOWN)
		header_line(out, "machine speed unknown (%s, and no reference spin of one kind in "
			"both runs): taken as +-%.0f%%, every function's interval widened by it",
			why, 100 * expm1(pg_norm_isf(0.025) *
					 pg_rspeed_spin_error(PG_RSPEED_UNKNOWN)));
	else
		header_line(out, "machine speed: not corrected: %s", why);
	if (!c->opts.no_speed && c->speed_spread_prior && isfinite(c->speed_spread))
		header_line(out, "own noise: not estimated (%zu function%s, %d needed): taken as "
			"+-%.1f%%, every verdict must exceed it (perfgate ab pairs the "
			"recordings)", kept, pg_plural(kept), PG_RNULL_MIN_REFS,
			100 * c->speed_spread);
	else if (!c->opts.no_speed && c->speed_applied && isfinite(c->speed_spread))
		header_line(out, "own noise: a function varies +-%.1f%% between the two recordings "
			"on its own (their spread, at its 95%% upper bound): every verdict must "
			"exceed it", 100 * c->speed_spread);
	else if (!c->opts.no_speed && c->speed_applied)
		header_line(out, "own noise: not estimated (%zu function%s, %d needed): a "
			"function's own variation between two recordings is not ruled out "
			"(perfgate ab pairs them)", kept, pg_plural(kept), PG_RNULL_MIN_REFS);
	if (!c->opts.no_speed && c->speed_inflation_prior && c->speed_inflation > 1)
		header_line(out, "and each function's interval widened %.1fx: a function moves "
			"between two recordings more than its repetitions vary within one (taken "
			"as on real programs: %d judged functions would tell by how much)",
			c->speed_inflation, PG_RNULL_MIN_REFS);
	else if (!c->opts.no_speed && c->speed_inflation > 1)
		header_line(out, "and each function's interval widened %.2fx: the %zu judged "
			"functions' changes spread that much wider than their intervals say (at "
			"its 95%% upper bound)", c->speed_inflation, c->speed_inflation_n);
	if (!c->opts.no_speed && c->speed_kernel_n)
		header_line(out, "and %zu function%s whose time is mostly the kernel's widened "
			"%.1fx: the kernel's work (files, threads) moves between two recordings "
			"more than their repetitions show (perfgate ab pairs them)",
			c->speed_kernel_n,
			pg_plural(c->speed_kernel_n), c->speed_kernel_inflation);
}

/* The machine's speed correction of a history check (diff/hspeed.h), one line. */
static void print_session_speed(const struct pg_comparison *c, FILE *out)
{
	if (c->speed_applied)
		header_line(out, "machine speed: each session corrected for it (sessions "
			"differed by %.1f%% typically, the new one %+.1f%%, from %zu function%s)",
			100 * c->speed_spread, 100 * c->speed_shift, c->speed_refs,
			pg_plural(c->speed_refs));
	else if (c->speed_refs < PG_HSPEED_MIN_REFS)
		header_line(out, "machine speed: not corrected: %zu function%s to tell it from, %d "
			"needed", c->speed_refs, pg_plural(c->speed_refs), PG_HSPEED_MIN_REFS);
	else if (!isnan(c->speed_p))
		header_line(out, "machine speed: not corrected: the whole program moved %+.1f%% in "
			"the new session (p=%.2g), a change of the program",
			100 * c->speed_shift, c->speed_p);
	else
		header_line(out, "machine speed: not corrected: too few sessions to tell it in");
}

/* "(10 repetitions, commit 0123456789ab, host ci-1)" of one side, into @buf */
static void header_suffix(char *buf, size_t len, const struct pg_meta *m, size_t reps)
{
	char commit[PG_FMT_LEN], *host = pg_fmt_ascii(m && m->host ? m->host : "?");

	if (host)
		pg_fmt_ellipsize(host, 32);
	pg_fmt_commit(commit, sizeof(commit), m ? m->git_commit : NULL);
	snprintf(buf, len, "(%zu repetition%s, commit %s, host %s)", reps, pg_plural(reps), commit,
		 host ? host : "?");
	free(host);
}

/*
 * The two lines that say what was compared, "  base  COMMAND  (N repetitions, commit C, host
 * H)" and the same for new. Commands too long for the line are shortened where they do not
 * differ, so that two builds in different directories still read as two.
 */
static void print_headers(const struct pg_run *base, const struct pg_run *new, size_t base_reps,
			  size_t new_reps, FILE *out)
{
	const struct pg_meta *m[2] = { base ? &base->meta : NULL, new ? &new->meta : NULL };
	static const char *const side[2] = { "base", "new" };
	char suffix[2][PG_TEXT_WIDTH * 2], *acmd[2];
	size_t room[2], reps[2] = { base_reps, new_reps };

	for (int i = 0; i < 2; i++) {
		char *cmd = pg_fmt_command(m[i]);

		acmd[i] = cmd ? pg_fmt_ascii(cmd) : NULL;
		free(cmd);
		header_suffix(suffix[i], sizeof(suffix[i]), m[i], reps[i]);
		/* "  base  " + command + "  " + suffix */
		room[i] = PG_TEXT_WIDTH - 8 - SEP - strlen(suffix[i]);
		if (room[i] < 20 || room[i] > PG_TEXT_WIDTH)
			room[i] = 20;
	}
	if (acmd[0] && acmd[1])
		pg_fmt_ellipsize_pair(acmd[0], room[0], acmd[1], room[1]);
	for (int i = 0; i < 2; i++) {
		if (acmd[i] && !acmd[1 - i])
			pg_fmt_ellipsize(acmd[i], room[i]);
		fprintf(out, "  %-4s  %s%s%s\n", side[i], acmd[i] && *acmd[i] ? acmd[i] : "?", "  ",
			suffix[i]);
		free(acmd[i]);
	}
}

/* "+40.2 us in a 200 ms repetition (0.02%): too little of the run to fail" (malloc'd). */
static char *impact_words(const struct pg_fcmp *f)
{
	char ns[PG_FMT_LEN], wall[PG_FMT_LEN], *s;
	double w = fabs(f->impact) > 0 ? fabs(f->impact_ns / f->impact) : NAN;

	if (asprintf(&s, "%s%s in a %s repetition (%.2g%%): %s", f->impact_ns < 0 ? "-" : "+",
		     pg_fmt_ns(ns, sizeof(ns), fabs(f->impact_ns)),
		     pg_fmt_ns(wall, sizeof(wall), w), 100 * fabs(f->impact),
		     f->impact_ns < 0 ? "too little of the run to count" :
					"too little of the run to fail") < 0)
		return NULL;
	return s;
}

/* "    +33.0%: all of it off-CPU, blocked" under a change that counts (diff/cpusplit.h) */
static void print_split(const struct pg_fcmp *f, FILE *out)
{
	char w[96], ch[PG_FMT_LEN];

	if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT &&
	    f->verdict != PG_VERDICT_NOTABLE)
		return;
	if (*pg_cpusplit_words(f, w, sizeof(w)))
		fprintf(out, "    %s: %s\n", pg_fmt_pct(ch, sizeof(ch), f->change), w);
}

/* An ASCII note under a row: "    @what" and @text, wrapped to the width under @text. */
static void note_line(const char *what, const char *text, FILE *out)
{
	char lead[64], indent[64], *t = pg_fmt_ascii(text);

	if (!t)
		return;
	snprintf(lead, sizeof(lead), "    %s", what);
	snprintf(indent, sizeof(indent), "%*s", (int)strlen(lead), "");
	pg_fmt_wrap(out, lead, indent, t, PG_TEXT_WIDTH);
	free(t);
}

/* The cause line (struct pg_fcmp why), a note line for each of its "; "-separated clauses */
static void cause_lines(const char *why, FILE *out)
{
	char *s = strdup(why), *p, *semi;

	for (p = s; p && *p; p = semi ? semi + 2 : NULL) {
		semi = strstr(p, "; ");
		if (semi)
			*semi = '\0';
		note_line(p == s ? "cause: " : "       ", p, out);
	}
	free(s);
}

/* A sampled function's samples; that its code is the same in both builds, and through what
 * it changed; what explains a change (struct pg_fcmp why, explain). */
static void print_notes(const struct pg_fcmp *f, const char *code, FILE *out)
{
	char n[PG_FMT_LEN];

	if (f->origin == PG_ORIGIN_SAMPLED)
		fprintf(out, "    sampled: time a repetition estimated from %s samples\n",
			pg_fmt_count(n, sizeof(n), (double)f->samples));
	if (code)
		fprintf(out, "    %s\n", code);
	if (f->why[0])
		cause_lines(f->why, out);
	if (f->explain[0])
		note_line("", f->explain, out);
}

static void print_rows(struct row *rows, size_t nrows, bool multi_bin, FILE *out)
{
	size_t w_fn = strlen("function"), w_bin = strlen("binary"), w_base = strlen("base");
	size_t w_new = strlen("new"), w_change = strlen("change"), w_int = strlen("interval");
	size_t w_verdict = strlen("verdict"), fixed, fn_room, i;
	char *note, lead[sizeof(rows->calls) + 8];

	for (i = 0; i < nrows; i++) {
		w_fn = max_len(w_fn, rows[i].fn);
		w_bin = max_len(w_bin, rows[i].bin);
		w_base = max_len(w_base, rows[i].base);
		w_new = max_len(w_new, rows[i].new);
		w_change = max_len(w_change, rows[i].change);
		w_int = max_len(w_int, rows[i].interval);
		w_verdict = max_len(w_verdict, rows[i].verdict);
	}
	if (w_bin > BIN_MAX)
		w_bin = BIN_MAX;
	fixed = SEP + w_base + SEP + w_new + SEP + w_change + SEP + w_int + SEP + w_verdict;
	if (multi_bin)
		fixed += w_bin + SEP;
	fn_room = fixed + FN_MIN < PG_TEXT_WIDTH ? PG_TEXT_WIDTH - fixed : FN_MIN;
	if (fn_room > FN_MAX)
		fn_room = FN_MAX;
	if (w_fn > fn_room)
		w_fn = fn_room;

	if (multi_bin)
		fprintf(out, "%-*s  ", (int)w_bin, "binary");
	fprintf(out, "%-*s  %*s  %*s  %*s  %-*s  verdict\n", (int)w_fn, "function", (int)w_base,
		"base", (int)w_new, "new", (int)w_change, "change", (int)w_int, "interval");
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		int len = 0;
		bool calls_inline, show_reason;

		pg_fmt_ellipsize(r->fn, w_fn);
		pg_fmt_ellipsize(r->bin, w_bin);
		if (multi_bin)
			len += fprintf(out, "%-*s  ", (int)w_bin, r->bin);
		len += fprintf(out, "%-*s  %*s  %*s  %*s  %-*s  %s", (int)w_fn, r->fn, (int)w_base,
			       r->base, (int)w_new, r->new, (int)w_change, r->change, (int)w_int,
			       r->interval, r->verdict);
		/* the calls note ends the row if it fits there, else it starts the note line */
		calls_inline = r->calls[0] && len + SEP + strlen(r->calls) <= PG_TEXT_WIDTH;
		if (calls_inline)
			fprintf(out, "  %s", r->calls);
		fputc('\n', out);
		print_split(r->f, out);
		print_notes(r->f, r->code, out);
		/* the reason only where the columns do not say it all: why it is inconclusive */
		show_reason = r->f->reason[0] && r->f->verdict == PG_VERDICT_INCONCLUSIVE;
		if (r->f->verdict == PG_VERDICT_NOTABLE)
			show_reason = true;
		if (!show_reason && (!r->calls[0] || calls_inline))
			continue;
		note = r->f->verdict == PG_VERDICT_NOTABLE ? impact_words(r->f) :
			pg_fmt_ascii(show_reason ? r->f->reason : "");
		if (!note)
			continue;
		snprintf(lead, sizeof(lead), "    %s%s", calls_inline ? "" : r->calls,
			 !calls_inline && r->calls[0] && *note ? "; " : "");
		pg_fmt_wrap(out, lead, "    ", note, PG_TEXT_WIDTH);
		free(note);
	}
}

/* "3 inconclusive functions not shown, 2 of them: CAUSE (--all lists them)" */
static void print_inconclusive(size_t n, const size_t *causes, FILE *out)
{
	size_t top = 0;

	for (size_t k = 1; k < PG_CAUSE_COUNT; k++)
		if (causes[k] > causes[top])
			top = k;
	fprintf(out, "%zu inconclusive function%s not shown", n, pg_plural(n));
	if (top != PG_CAUSE_NONE && causes[top] == n)
		fprintf(out, ": %s", pg_cause_words(top));
	else if (top != PG_CAUSE_NONE)
		fprintf(out, ", most often (%zu): %s", causes[top], pg_cause_words(top));
	fprintf(out, " (--all lists them)\n");
}

static void print_wall(const struct pg_fcmp *w, FILE *out)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];

	if (!w->n_base && !w->n_new)
		return;
	fprintf(out, "wall time per repetition: %s -> %s", pg_fmt_ns(a, sizeof(a), w->base_ns),
		pg_fmt_ns(b, sizeof(b), w->new_ns));
	if (!isnan(w->change))
		fprintf(out, ", %s %s", pg_fmt_pct(ch, sizeof(ch), w->change),
			pg_fmt_interval(in, sizeof(in), w->ci_lo, w->ci_hi));
	fprintf(out, " (informational)\n");
}

/*
 * "the program: CPU time a repetition 1.20 s -> 1.32 s, +10.2% [+8.1%, +12.0%]: regression"
 * and what explains it, for each whole-program entry; the informational wall line when a
 * result has none (from an older perfgate).
 */
static void print_program(const struct pg_comparison *c, FILE *out)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN], ch[PG_FMT_LEN], in[2 * PG_FMT_LEN];
	bool any = false;

	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->origin != PG_ORIGIN_PROGRAM)
			continue;
		any = true;
		fprintf(out, "%s a repetition: %s -> %s", f->display,
			pg_fmt_ns(a, sizeof(a), f->base_ns), pg_fmt_ns(b, sizeof(b), f->new_ns));
		if (!isnan(f->change))
			fprintf(out, ", %s %s", pg_fmt_pct(ch, sizeof(ch), f->change),
				pg_fmt_interval(in, sizeof(in), f->ci_lo, f->ci_hi));
		fprintf(out, ": %s", verdict_label(f->verdict));
		if (!isnan(f->q))
			fprintf(out, " q=%.2g", f->q);
		fputc('\n', out);
		if (f->verdict == PG_VERDICT_INCONCLUSIVE && f->reason[0])
			note_line("", f->reason, out);
		if (f->explain[0])
			note_line("", f->explain, out);
	}
	if (!any)
		print_wall(&c->wall, out);
}

/* "judged 94% of the CPU time: 12 functions exact, 40 sampled, the whole program" */
static void print_judged(const struct pg_comparison *c, FILE *out)
{
	if (isnan(c->judged_share))
		fprintf(out, "judged: %zu function%s exact, %zu sampled%s\n", c->njudged_exact,
			c->njudged_exact == 1 ? "" : "s", c->njudged_sampled,
			c->program_judged ? ", the whole program" : "");
	else
		fprintf(out, "judged %.0f%% of the CPU time: %zu function%s exact, %zu sampled%s\n",
			100 * c->judged_share, c->njudged_exact,
			c->njudged_exact == 1 ? "" : "s", c->njudged_sampled,
			c->program_judged ? ", the whole program" : "");
}

/*
 * The hot functions nothing judged, under a line that says why:
 *   not judged (not traced, and under 10 samples a repetition: too rare for a verdict):
 *       blur_row  5.0% of the samples, ~8.7 a repetition
 */
static void print_unjudged(const struct pg_comparison *c, FILE *out)
{
	if (!c->nunjudged)
		return;
	fprintf(out, "not judged (not traced, and under %d samples a repetition: too rare for a "
		"verdict):\n", PG_SAMPLED_MIN_SAMPLES);
	for (size_t i = 0; i < c->nunjudged; i++) {
		char *name = pg_fmt_ascii(c->unjudged[i].name);

		if (!name)
			continue;
		pg_fmt_ellipsize(name, PG_TEXT_WIDTH - 48);
		fprintf(out, "    %s  %.1f%% of the samples, ~%.1f a repetition\n", name,
			100 * c->unjudged[i].share, c->unjudged[i].per_rep);
		free(name);
	}
}

/* The whole-program entries of @c with verdict @v (PG_VERDICT_COUNT: any). */
static size_t program_entries(const struct pg_comparison *c, enum pg_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->f[i].origin == PG_ORIGIN_PROGRAM &&
		     (v == PG_VERDICT_COUNT || c->f[i].verdict == v);
	return n;
}

/* Lines the names may continue on after the verdict line, when it has no room for them all */
#define MORE_LINES 2

/* The regressed functions' and benchmarks' names after the verdict line @line (of @len) */
static void print_names(const struct pg_comparison *c, char *line, size_t len, size_t total,
			FILE *out)
{
	size_t listed = 0, extra = 0, start = len;
	char more[PG_FMT_LEN];

	for (size_t i = 0; i < c->n && len < PG_TEXT_WIDTH; i++) {
		const struct pg_fcmp *f = &c->f[i];
		size_t nlen, need;
		char *name;

		if (f->verdict != PG_VERDICT_REGRESSION || f->origin == PG_ORIGIN_PROGRAM)
			continue;
		name = pg_fmt_ascii(f->display ? f->display : f->name);
		if (!name)
			break;
		pg_fmt_ellipsize(name, 60);
		nlen = strlen(name);
		snprintf(more, sizeof(more), ", ... (%zu more)", total - listed);
		/* room for this name, and for the "more" note if names remain after it */
		need = 2 + nlen + (listed + 1 < total ? strlen(more) : 0);
		if (len + need > PG_TEXT_WIDTH && extra < MORE_LINES) {
			/* on a line of their own, the verdict line ending in ':' or ',' */
			fprintf(out, "%s%s\n", line, listed ? "," : ":");
			len = start = (size_t)snprintf(line, PG_TEXT_WIDTH + 1, " ");
			extra++;
		}
		if (len + need > PG_TEXT_WIDTH) {
			free(name);
			break;
		}
		len += snprintf(line + len, PG_TEXT_WIDTH + 1 - len, "%s%s",
				len == start ? (extra ? " " : ": ") : ", ", name);
		listed++;
		free(name);
	}
	if (listed < total)
		snprintf(line + len, PG_TEXT_WIDTH + 1 - len, "%s... (%zu more)",
			 len == start ? (extra ? " " : ": ") : ", ", total - listed);
	fprintf(out, "%s\n", line);
}

/* "perfgate: REGRESSION in 2 functions: a, b", names added while the line has room, then on
 * up to MORE_LINES lines after it. */
static void print_regressions(const struct pg_comparison *c, FILE *out)
{
	char line[PG_TEXT_WIDTH + 1];
	size_t len, total = 0, benches = 0, i;
	size_t prog = program_entries(c, PG_VERDICT_REGRESSION), nfun;

	/* the functions by name; the whole program's lines above say which of its times */
	for (i = 0; i < c->n; i++) {
		total += c->f[i].verdict == PG_VERDICT_REGRESSION &&
			 c->f[i].origin != PG_ORIGIN_PROGRAM;
		benches += c->f[i].verdict == PG_VERDICT_REGRESSION && pg_gb_is_bench(&c->f[i]);
	}
	nfun = (c->nregressions - prog > total ? c->nregressions - prog : total) - benches;
	len = snprintf(line, sizeof(line), "perfgate: REGRESSION");
	pg_fmt_regressed(line + len, sizeof(line) - len, c, prog, benches, nfun);
	len = strlen(line);
	print_names(c, line, len, total, out);
}

static void print_verdict(const struct pg_comparison *c, FILE *out)
{
	char *reason, what[PG_FMT_LEN * 2];
	size_t benches = 0;

	switch (c->overall) {
	case PG_OVERALL_PASS:
		for (size_t i = 0; i < c->n; i++)
			benches += pg_gb_is_bench(&c->f[i]);
		pg_fmt_compared(what, sizeof(what), benches,
				c->n - program_entries(c, PG_VERDICT_COUNT) - benches);
		fprintf(out, "perfgate: PASS (%s compared, %zu unchanged, ", what,
			c->nunchanged - program_entries(c, PG_VERDICT_UNCHANGED));
		if (c->nnotable)
			fprintf(out, "%zu notable (too little of the run to fail), ",
				c->nnotable - program_entries(c, PG_VERDICT_NOTABLE));
		fprintf(out, "%zu inconclusive)\n",
			c->ninconclusive - program_entries(c, PG_VERDICT_INCONCLUSIVE));
		break;
	case PG_OVERALL_REGRESSION:
		print_regressions(c, out);
		break;
	case PG_OVERALL_INCONCLUSIVE:
	default:
		reason = pg_fmt_ascii(c->overall_reason);
		if (reason && *reason)
			pg_fmt_wrap(out, "perfgate: INCONCLUSIVE: ", "  ", reason, PG_TEXT_WIDTH);
		else
			fprintf(out, "perfgate: INCONCLUSIVE: %zu function%s could not be "
				"decided\n", c->ninconclusive, pg_plural(c->ninconclusive));
		free(reason);
		break;
	}
}

/* The binary of @f, against the first one seen (*b0): a second one makes the table show
 * each row's. */
static void note_binary(const struct pg_fcmp *f, const char **b0, bool *multi)
{
	const char *b = f->binary ? f->binary : "";

	if (*b0 && strcmp(b, *b0))
		*multi = true;
	if (!*b0)
		*b0 = b;
}

/* Is @f a row of the table (the whole program and the benchmarks have their own sections,
 * and without @verbose the unchanged and inconclusive functions are only counted)? */
static bool is_row(const struct pg_fcmp *f, int verbose)
{
	return f->origin != PG_ORIGIN_PROGRAM && !pg_gb_is_bench(f) &&
	       (verbose || (f->verdict != PG_VERDICT_UNCHANGED &&
			    f->verdict != PG_VERDICT_INCONCLUSIVE));
}

int pg_compare_write_text(const struct pg_comparison *c, const struct pg_run *base,
			  const struct pg_run *new, int verbose, FILE *out)
{
	struct row *rows;
	size_t nrows = 0, hidden = 0, hidden_inc = 0, causes[PG_CAUSE_COUNT] = { 0 }, i;
	bool multi_bin = false;
	const char *b0 = NULL;	/* the first exact function's binary */
	char *bin = NULL, *env;
	int err = 0;

	/* room for the rows shown only: of 10,000 functions, most are hidden */
	for (i = 0; i < c->n; i++)
		nrows += is_row(&c->f[i], verbose);
	rows = calloc(nrows ? nrows : 1, sizeof(*rows));
	nrows = 0;
	if (!rows) {
		pg_err("compare table: out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->origin == PG_ORIGIN_PROGRAM)
			continue;	/* print_program() */
		if (pg_gb_is_bench(f))
			continue;	/* in the benchmarks section: reporters/gbench_text.h */
		if (f->origin == PG_ORIGIN_EXACT)
			note_binary(f, &b0, &multi_bin);
		if (!verbose && f->verdict == PG_VERDICT_UNCHANGED) {
			hidden++;
			continue;
		}
		if (!verbose && f->verdict == PG_VERDICT_INCONCLUSIVE) {
			hidden_inc++;
			causes[f->cause < PG_CAUSE_COUNT ? f->cause : PG_CAUSE_NONE]++;
			continue;
		}
		/* a sampled function's object counts where it is shown */
		if (f->origin == PG_ORIGIN_SAMPLED && f->binary && *f->binary)
			note_binary(f, &b0, &multi_bin);
		err = fill_row(&rows[nrows++], c, f);
		if (err) {
			pg_err("compare table: out of memory");
			goto out;
		}
	}

	env = pg_fmt_env_diff(base ? &base->meta : NULL, new ? &new->meta : NULL);
	if (!env) {
		pg_err("compare table: out of memory");
		err = -ENOMEM;
		goto out;
	}
	if (*env)	/* first: it may explain everything below */
		fprintf(out, "perfgate: %s\n", env);
	free(env);
	fprintf(out, "perfgate compare: %s time per call (%s), alpha %g, min effect %.1f%%, "
		"min %u repetitions\n", pg_metric_name(c->opts.metric),
		c->compensated ? "compensated for probe overhead" : "raw", c->opts.alpha,
		c->opts.min_effect * 100, c->opts.min_reps);
	if (c->paired) {
		fprintf(out, "  paired: %zu pair%s of one interleaved session, compared pair by "
			"pair\n", c->npairs, pg_plural(c->npairs));
		print_speed(c, out);
	} else if (c->speed_runs) {
		print_run_speed(c, out);
	} else if (c->speed_refs) {
		print_session_speed(c, out);
	}
	if (c->runq_out)
		fputs("  waits for a CPU left out: two recordings made apart wait on the machine's "
		      "other load, not on their code\n", out);
	if (c->opts.min_impact > 0)
		fprintf(out, "  min impact %g%%: a change counts (fails, or improves) only if it "
			"moves a repetition's time by %g%% or more\n", c->opts.min_impact * 100,
			c->opts.min_impact * 100);
	print_headers(base, new, c->base_reps, c->new_reps, out);
	if (b0 && !multi_bin) {
		bin = pg_fmt_ascii(b0);
		if (bin) {
			pg_fmt_ellipsize(bin, PG_TEXT_WIDTH - 10);
			fprintf(out, "  binary  %s\n", bin);
		}
	}
	fputc('\n', out);

	pg_gb_write_text(c, out);	/* Google Benchmark's benchmarks lead */
	if (nrows)
		print_rows(rows, nrows, multi_bin, out);
	else if (!c->n)
		fprintf(out, "no functions to compare\n");
	if (hidden_inc)
		print_inconclusive(hidden_inc, causes, out);
	if (hidden)
		fprintf(out, "%zu unchanged function%s not shown (--all shows all)\n", hidden,
			pg_plural(hidden));
	if (nrows || hidden || hidden_inc)
		fputc('\n', out);

	print_program(c, out);
	print_judged(c, out);
	print_unjudged(c, out);
	for (i = 0; i < c->nwarnings; i++) {
		char *w = pg_fmt_ascii(c->warnings[i]);

		if (!w)
			continue;
		pg_fmt_wrap(out, "warning: ", "  ", w, PG_TEXT_WIDTH);
		free(w);
	}
	print_verdict(c, out);

	if (fflush(out) || ferror(out)) {
		err = errno ? -errno : -EIO;
		pg_err("cannot write the comparison table: %s", strerror(-err));
	}
out:
	for (i = 0; i < nrows; i++) {
		free(rows[i].fn);
		free(rows[i].bin);
	}
	free(rows);
	free(bin);
	return err;
}
