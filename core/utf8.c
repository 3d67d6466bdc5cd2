// SPDX-License-Identifier: MIT
/* core/utf8.c - valid UTF-8 from any bytes (core/utf8.h). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

size_t pg_utf8_decode(const unsigned char *s, uint32_t *cp)
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

char *pg_utf8_sanitize(const char *s, bool xml)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	/* at worst every byte becomes the 3 bytes of U+FFFD */
	char *out = malloc(3 * strlen((const char *)p) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		uint32_t c;
		size_t n = pg_utf8_decode(p, &c);

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
