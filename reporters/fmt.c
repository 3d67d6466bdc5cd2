// SPDX-License-Identifier: MIT
/* reporters/fmt.c - formatting helpers shared by the compare writers (see fmt.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/comparison.h"
#include "../core/env.h"
#include "../core/strbuf.h"
#include "../core/strv.h"
#include "../diff/gbench.h"
#include "fmt.h"

const char *pg_fmt_code_note(const struct pg_comparison *c, const struct pg_fcmp *f)
{
	if (!c->ncode_changed || f->code != PG_CODE_SAME || (f->verdict != PG_VERDICT_REGRESSION &&
					 f->verdict != PG_VERDICT_IMPROVEMENT &&
					 f->verdict != PG_VERDICT_NOTABLE))
		return NULL;
	return "same machine code in both builds: its instructions did not change";
}

const char *pg_fmt_cause_lead(const struct pg_fcmp *f)
{
	static const char lead[] = "its code did not change";

	if (!f->why[0] || !strncmp(f->why, lead, strlen(lead)))
		return "";
	return "its code did not change; ";
}

const char *pg_fmt_commit(char *buf, size_t len, const char *commit)
{
	if (!commit || !*commit)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.12s", commit);
	return buf;
}

char *pg_fmt_token(const char *s, const char *fallback)
{
	char *out = pg_fmt_utf8(s, true), *o, *p;
	bool space = false;

	if (!out)
		return NULL;
	for (o = p = out; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			space = o != out;
			continue;
		}
		if (space)
			*o++ = ' ';
		space = false;
		*o++ = *p;
	}
	*o = '\0';
	if (!*out && fallback) {
		free(out);
		return strdup(fallback);
	}
	return out;
}

char *pg_fmt_ascii(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char *out = malloc(strlen((const char *)p) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		uint32_t c;
		size_t n = pg_utf8_decode(p, &c);

		if (!n) {
			n = 1;
			c = 0xfffd;
		}
		if (c == '\t')
			*o++ = ' ';
		else if (c >= 0x20 && c < 0x7f)
			*o++ = (char)c;
		else
			*o++ = '?';
		p += n;
	}
	*o = '\0';
	return out;
}

/* The regressed functions of @c (not the program, not benchmarks) by their code. */
static void count_code(const struct pg_comparison *c, size_t *changed, size_t *same,
		       size_t *unknown)
{
	*changed = *same = *unknown = 0;
	for (size_t i = 0; c && i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		if (f->verdict != PG_VERDICT_REGRESSION || f->origin == PG_ORIGIN_PROGRAM ||
		    pg_gb_is_bench(f))
			continue;
		*changed += f->code == PG_CODE_CHANGED;
		*same += f->code == PG_CODE_SAME;
		*unknown += f->code == PG_CODE_UNKNOWN;
	}
}

/* " in 2 changed functions; 3 unchanged functions slower through them" at @buf */
static void code_words(char *buf, size_t len, const char *sep, size_t changed, size_t same,
		       size_t unknown)
{
	size_t n;

	if (!changed && !unknown) {
		snprintf(buf, len, "%sin %zu function%s whose code did not change", sep, same,
			 pg_plural(same));
		return;
	}
	n = (size_t)snprintf(buf, len, "%sin %zu changed function%s", sep, changed,
			     pg_plural(changed));
	if (unknown && n < len)
		n += (size_t)snprintf(buf + n, len - n, " and %zu of unknown code", unknown);
	if (n < len)
		snprintf(buf + n, len - n, "; %zu unchanged function%s slower through %s", same,
			 pg_plural(same), changed + unknown > 1 ? "them" : "it");
}

void pg_fmt_regressed(char *buf, size_t len, const struct pg_comparison *c, size_t prog,
		      size_t benches, size_t nfun)
{
	const char *sep = " ";
	size_t n = 0, changed, same, unknown;

	buf[0] = '\0';
	count_code(c, &changed, &same, &unknown);
	if (prog) {
		n += (size_t)snprintf(buf, len, " of the whole program");
		sep = " and ";
	}
	if (benches && n < len) {
		n += (size_t)snprintf(buf + n, len - n, "%sin %zu benchmark%s", sep, benches,
				      pg_plural(benches));
		sep = " and ";
	}
	/* two runs of one build (no compared code changed) say nothing of code */
	if (same && c->ncode_changed && changed + same + unknown == nfun && n < len)
		code_words(buf + n, len - n, sep, changed, same, unknown);
	else if ((nfun || (!prog && !benches)) && n < len)
		snprintf(buf + n, len - n, "%sin %zu function%s", sep, nfun, pg_plural(nfun));
}

void pg_fmt_compared(char *buf, size_t len, size_t benches, size_t nfun)
{
	if (benches)
		snprintf(buf, len, "%zu benchmark%s and %zu function%s", benches,
			 pg_plural(benches), nfun, pg_plural(nfun));
	else
		snprintf(buf, len, "%zu function%s", nfun, pg_plural(nfun));
}

void pg_fmt_ellipsize(char *s, size_t max)
{
	size_t len = strlen(s), head, tail;

	if (len <= max || max < 5)
		return;
	tail = (max - 3) / 2;
	head = max - 3 - tail;
	memcpy(s + head, "...", 3);
	memmove(s + head + 3, s + len - tail, tail + 1);
}

/* @s (of @len > @max >= 10 characters) shortened to @max, keeping s[lo..hi) in sight. */
static void ellipsize_around(char *s, size_t len, size_t max, size_t lo, size_t hi)
{
	size_t ctx = hi - lo + 6 < max ? (max - 6 - (hi - lo)) / 2 : 0;
	size_t start = lo > ctx ? lo - ctx : 0;

	if (!start) {				/* the start is in sight: cut the end */
		memcpy(s + max - 3, "...", 4);
	} else if (start + max - 3 >= len) {	/* the end is in sight: cut the start */
		memmove(s + 3, s + len - (max - 3), max - 3 + 1);
		memcpy(s, "...", 3);
	} else {				/* both ends cut */
		memmove(s + 3, s + start, max - 6);
		memcpy(s + max - 3, "...", 4);
		memcpy(s, "...", 3);
	}
}

void pg_fmt_ellipsize_pair(char *a, size_t amax, char *b, size_t bmax)
{
	size_t la = strlen(a), lb = strlen(b), pre = 0, suf = 0;

	if (!strcmp(a, b) || amax < 10 || bmax < 10) {
		pg_fmt_ellipsize(a, amax);
		pg_fmt_ellipsize(b, bmax);
		return;
	}
	while (a[pre] && a[pre] == b[pre])
		pre++;
	while (suf < la - pre && suf < lb - pre && a[la - 1 - suf] == b[lb - 1 - suf])
		suf++;
	if (la > amax)
		ellipsize_around(a, la, amax, pre, la - suf);
	if (lb > bmax)
		ellipsize_around(b, lb, bmax, pre, lb - suf);
}

void pg_fmt_truncate(char *s, size_t max)
{
	if (strlen(s) <= max || max < 4)
		return;
	memcpy(s + max - 3, "...", 4);
}

void pg_fmt_wrap(FILE *out, const char *first, const char *indent, const char *s, size_t width)
{
	const char *lead = first;

	do {
		size_t room = width > strlen(lead) ? width - strlen(lead) : 0, n = strlen(s), cut;

		if (n > room) {
			/* the last space within the room; else the end of the first word */
			for (cut = room; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				for (cut = 0; s[cut] && s[cut] != ' '; cut++)
					;
			n = cut;
		}
		fprintf(out, "%s%.*s\n", lead, (int)n, s);
		for (s += n; *s == ' '; s++)
			;
		lead = indent;
	} while (*s);
}

/* Characters that never need quoting in a shell word. */
static bool shell_plain(const char *a)
{
	if (!*a)
		return false;
	for (; *a; a++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-./:=,+@%^", *a))
			return false;
	}
	return true;
}

char *pg_fmt_command(const struct pg_meta *meta)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; meta && i < meta->argc; i++) {
		const char *a = meta->argv[i] ? meta->argv[i] : "";

		if (i)
			fputc(' ', f);
		if (shell_plain(a)) {
			fputs(a, f);
			continue;
		}
		fputc('\'', f);
		for (; *a; a++) {
			if (*a == '\'')
				fputs("'\\''", f);
			else
				fputc(*a, f);
		}
		fputc('\'', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

const char *pg_fmt_relative(const char *file, const char *root)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')	/* the root directory: every absolute path */
		return file[0] == '/' ? file + 1 : file;
	if (n && file[0] == '/' && !strncmp(file, root, n) && file[n] == '/')
		return file + n + 1;
	return file;
}

char *pg_fmt_env_diff(const struct pg_meta *base, const struct pg_meta *new)
{
	struct pg_strbuf b = PG_STRBUF_INIT;
	char **items, *ascii, *out;
	size_t n;

	if (pg_env_diffs(base, new, &items, &n))
		return NULL;
	for (size_t i = 0; i < n; i++)
		pg_strbuf_addf(&b, "%s%s", i ? "; " : "", items[i]);
	pg_strv_free(items, n);
	if (b.err) {
		pg_strbuf_release(&b);
		return NULL;
	}
	if (!n) {
		pg_strbuf_release(&b);
		return strdup("");
	}
	/* (the text comes from the runs: printable ASCII for every writer) */
	ascii = pg_fmt_ascii(b.s);
	pg_strbuf_release(&b);
	if (!ascii || asprintf(&out, "the two sides differ: %s", ascii) < 0)
		out = NULL;
	free(ascii);
	return out;
}
