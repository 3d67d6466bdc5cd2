/* SPDX-License-Identifier: MIT */
/*
 * core/strbuf.h - a growable NUL-terminated string.
 *
 *	struct pg_strbuf b = PG_STRBUF_INIT;
 *	pg_strbuf_add(&b, "main");		// 0 or -ENOMEM; b.s is always a valid string
 *	pg_strbuf_addf(&b, ";%s", name);
 *	... b.s, b.len ...
 *	pg_strbuf_release(&b);
 *
 * After an allocation failure the buffer keeps what it had and every later add fails too, so
 * a caller can check once at the end (b.err).
 */
#ifndef PG_STRBUF_H
#define PG_STRBUF_H

#include <stddef.h>

struct pg_strbuf {
	char *s;	/* "" (static) until the first add */
	size_t len, cap;
	int err;	/* first error: -ENOMEM */
};

#define PG_STRBUF_INIT { (char *)"", 0, 0, 0 }

int pg_strbuf_addn(struct pg_strbuf *b, const char *s, size_t n);
int pg_strbuf_add(struct pg_strbuf *b, const char *s);
int pg_strbuf_addf(struct pg_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pg_strbuf_reset(struct pg_strbuf *b);	/* empty, keeps the memory */
void pg_strbuf_release(struct pg_strbuf *b);	/* frees; back to PG_STRBUF_INIT */
/* The string, which the caller now owns (malloc'd); the buffer is reset to empty. NULL on
 * failure (b.err). */
char *pg_strbuf_take(struct pg_strbuf *b);

#endif
