// SPDX-License-Identifier: MIT
/* reporters/fmt.c - formatting helpers shared by the compare writers (see fmt.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

/* @v (>= 0) with 3 significant digits, then @unit. */
static void fmt_sig3(char *buf, size_t len, double v, const char *unit)
{
	int prec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;

	snprintf(buf, len, "%.*f %s", prec, v, unit);
}

const char *pg_fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns) || ns < 0)
		snprintf(buf, len, "-");
	else if (isinf(ns))
		snprintf(buf, len, "inf");
	else if (ns < 999.5)
		fmt_sig3(buf, len, ns, "ns");
	else if (ns < 999.5e3)
		fmt_sig3(buf, len, ns / 1e3, "us");
	else if (ns < 999.5e6)
		fmt_sig3(buf, len, ns / 1e6, "ms");
	else
		fmt_sig3(buf, len, ns / 1e9, "s");
	return buf;
}

const char *pg_fmt_pct(char *buf, size_t len, double x)
{
	double pct = x * 100;

	if (isnan(x))
		snprintf(buf, len, "n/a");
	else if (isinf(x))
		snprintf(buf, len, "%s", x > 0 ? "+inf" : "-inf");
	else if (fabs(pct) < 0.05)
		snprintf(buf, len, "+0.0%%");
	else if (fabs(pct) < 9999.95)
		snprintf(buf, len, "%+.1f%%", pct);
	else if (fabs(pct) < 1e9)
		snprintf(buf, len, "%+.0f%%", pct);
	else
		snprintf(buf, len, "%+.2g%%", pct);
	return buf;
}

const char *pg_fmt_interval(char *buf, size_t len, double lo, double hi)
{
	char a[PG_FMT_LEN], b[PG_FMT_LEN];

	if (isnan(lo) && isnan(hi))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "[%s, %s]", pg_fmt_pct(a, sizeof(a), lo),
			 pg_fmt_pct(b, sizeof(b), hi));
	return buf;
}

const char *pg_fmt_count(char *buf, size_t len, double n)
{
	static const char *const units[] = { "k", "M", "G", "T", "P", "E" };
	size_t u = 0;
	char *sp;

	if (isnan(n) || n < 0) {
		snprintf(buf, len, "-");
	} else if (isinf(n)) {
		snprintf(buf, len, "inf");
	} else if (n < 99999.5) {
		if (fabs(n - round(n)) < 0.05)
			snprintf(buf, len, "%.0f", n);
		else
			snprintf(buf, len, "%.1f", n);
	} else {
		n /= 1e3;
		while (n >= 999.5 && u + 1 < sizeof(units) / sizeof(units[0])) {
			n /= 1e3;
			u++;
		}
		fmt_sig3(buf, len, n, units[u]);
		/* "1.23 M" -> "1.23M" */
		sp = strchr(buf, ' ');
		if (sp)
			memmove(sp, sp + 1, strlen(sp));
	}
	return buf;
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

void pg_fmt_truncate(char *s, size_t max)
{
	if (strlen(s) <= max || max < 4)
		return;
	memcpy(s + max - 3, "...", 4);
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
