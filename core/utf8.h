/* SPDX-License-Identifier: MIT */
/*
 * core/utf8.h - valid UTF-8 from any bytes, for the formats that promise it (the compare
 * result, formats/result.h; JUnit XML and Markdown, reporters/).
 *
 * Every byte that is not part of a well-formed sequence (overlong forms, surrogates and code
 * points above U+10FFFF included) becomes U+FFFD; valid text comes back unchanged. The result
 * is a new malloc'd string the caller frees (NULL when out of memory); a NULL @s reads as "".
 *
 *	char *u = pg_utf8_sanitize(name, false);
 *
 *	if (!u)
 *		return -ENOMEM;
 *	...
 *	free(u);
 */
#ifndef PG_UTF8_H
#define PG_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decode the UTF-8 sequence at @s: its length (1 to 4) with the code point in @cp, or 0 when
 * the byte at @s does not start a well-formed sequence. Never reads past a NUL.
 */
size_t pg_utf8_decode(const unsigned char *s, uint32_t *cp);

/* With @xml, the code points XML 1.0 does not allow (C0 controls other than tab, LF and CR;
 * U+FFFE, U+FFFF) become U+FFFD too. */
char *pg_utf8_sanitize(const char *s, bool xml);

#endif
