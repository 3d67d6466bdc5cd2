// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static int reserve(struct pg_strbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 64;
	char *s;

	if (b->err)
		return b->err;
	if (more > ((size_t)-1) / 4 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1)
		cap *= 2;
	s = realloc(b->cap ? b->s : NULL, cap);
	if (!s) {
		b->err = -ENOMEM;
		return b->err;
	}
	if (!b->cap)
		s[0] = '\0';
	b->s = s;
	b->cap = cap;
	return 0;
}

int pg_strbuf_addn(struct pg_strbuf *b, const char *s, size_t n)
{
	if (reserve(b, n))
		return b->err;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int pg_strbuf_add(struct pg_strbuf *b, const char *s)
{
	return pg_strbuf_addn(b, s, strlen(s));
}

int pg_strbuf_addf(struct pg_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return b->err ? b->err : -EINVAL;
	if (reserve(b, (size_t)n))
		return b->err;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void pg_strbuf_reset(struct pg_strbuf *b)
{
	b->len = 0;
	if (b->cap)
		b->s[0] = '\0';
}

void pg_strbuf_release(struct pg_strbuf *b)
{
	if (b->cap)
		free(b->s);
	*b = (struct pg_strbuf)PG_STRBUF_INIT;
}

char *pg_strbuf_take(struct pg_strbuf *b)
{
	char *s;

	if (b->err)
		return NULL;
	s = b->cap ? b->s : strdup("");
	*b = (struct pg_strbuf)PG_STRBUF_INIT;
	return s;
}
