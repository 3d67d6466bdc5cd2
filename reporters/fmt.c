// SPDX-License-Identifier: MIT
/* reporters/fmt.c - formatting helpers shared by the compare writers (see fmt.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

const char *pg_fmt_commit(char *buf, size_t len, const char *commit)
{
	if (!commit || !*commit)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.12s", commit);
	return buf;
}

/*
 * Decode the UTF-8 sequence at @s: its length (1 to 4) with the code point in @cp, or 0 when
 * the byte at @s does not start a well-formed sequence. Never reads past a NUL.
 */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool xml_char(uint32_t c)
{
	if (c < 0x20)
		return c == '\t' || c == '\n' || c == '\r';
	return c != 0xfffe && c != 0xffff;
}

char *pg_fmt_utf8(const char *s, bool xml)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	/* at worst every byte becomes the 3 bytes of U+FFFD */
	char *out = malloc(3 * strlen((const char *)p) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		uint32_t c;
		size_t n = utf8_decode(p, &c);

		if (n && (!xml || xml_char(c))) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p += n ? n : 1;
		}
	}
	*o = '\0';
	return out;
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
		size_t n = utf8_decode(p, &c);

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
