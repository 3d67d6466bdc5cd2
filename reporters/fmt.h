/* SPDX-License-Identifier: MIT */
/*
 * reporters/fmt.h - text helpers shared by the writers of reporters/ (compare_text.c, junit.c,
 * markdown.c, flamegraph.c...). Internal to reporters/. The number formats (pg_fmt_ns, _pct,
 * _interval, _count, PG_FMT_LEN) are core/numfmt.h's, included here.
 *
 * pg_fmt_commit writes into a caller's buffer (PG_FMT_LEN bytes is always enough) and returns
 * it. The string helpers return a malloc'd string (NULL on allocation failure; a NULL input is
 * treated as "").
 */
#ifndef PG_FMT_H
#define PG_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/numfmt.h"
#include "../core/run.h"
#include "../core/utf8.h"

struct pg_comparison;
struct pg_fcmp;

/*
 * What regressed, to follow "regression": " of the whole program and in 2 benchmarks and in 1
 * function", from the regressed whole-program entries @prog, benchmarks @benches and functions
 * @nfun; the functions are said when nothing else is, even none. When some of the regressed
 * functions of @c (NULL: none known) have the same machine code in both builds (PG_CODE_SAME)
 * and the builds differ in some compared function's (c->ncode_changed), changed code first:
 * " in 2 changed functions; 3 unchanged functions slower through them", or " in 3 functions
 * whose code did not change" when no regressed function's code changed.
 */
void pg_fmt_regressed(char *buf, size_t len, const struct pg_comparison *c, size_t prog,
		      size_t benches, size_t nfun);

/* "2 benchmarks and 11 functions", or "11 functions" without benchmarks: what was compared */
void pg_fmt_compared(char *buf, size_t len, size_t benches, size_t nfun);

/*
 * For a change that counts (regression, improvement, notable) of a function whose machine code
 * is the same in both builds (struct pg_fcmp code) of comparison @c, when the builds differ in
 * the code of some other function it compared: the sentence that says so, else NULL. (Two runs
 * of one build, or of builds whose compared code is all the same, get no such notes.)
 */
const char *pg_fmt_code_note(const struct pg_comparison *c, const struct pg_fcmp *f);

/*
 * What goes before @f's cause line (struct pg_fcmp why) where nothing else says that its code
 * did not change: "its code did not change; ", or "" when the line says so itself or is empty.
 */
const char *pg_fmt_cause_lead(const struct pg_fcmp *f);

/* Abbreviated commit id (12 characters), "?" if unknown. */
const char *pg_fmt_commit(char *buf, size_t len, const char *commit);

/* Valid UTF-8 (and, with @xml, only characters XML allows): pg_utf8_sanitize(), core/utf8.h. */
static inline char *pg_fmt_utf8(const char *s, bool xml)
{
	return pg_utf8_sanitize(s, xml);
}
/* As pg_fmt_utf8(s, true), then whitespace collapsed as for xs:token (no tab/LF/CR, no leading,
 * trailing or double spaces); @fallback (which must be such a token) if the result is empty. */
char *pg_fmt_token(const char *s, const char *fallback);
/* Printable ASCII: tabs become spaces, every other control character and every non-ASCII code
 * point (or invalid byte) becomes one '?'. */
char *pg_fmt_ascii(const char *s);
/* Shorten an ASCII string in place to at most @max characters (max >= 5) by replacing its
 * middle with "...". */
void pg_fmt_ellipsize(char *s, size_t max);
/*
 * Shorten two ASCII strings in place, @a to at most @amax characters and @b to @bmax (each >=
 * 10), so that where they differ stays in sight: each keeps the part between their common
 * prefix and common suffix (as much of it as fits, from its start), with context around it,
 * and "..." where text was cut. Equal strings are shortened as pg_fmt_ellipsize() does.
 */
void pg_fmt_ellipsize_pair(char *a, size_t amax, char *b, size_t bmax);
/* Shorten an ASCII string in place to at most @max characters (max >= 4), ending in "...". */
void pg_fmt_truncate(char *s, size_t max);

/*
 * Write the ASCII text @s to @out as lines of at most @width characters, broken at spaces:
 * the first line starts with @first, the others with @indent (spaces, usually as long), and
 * each ends in a newline. A word longer than a line's room stands alone on its line, whole.
 * Spaces at a break are dropped. An empty @s writes @first alone. For a report's sentences,
 * which the reader needs whole: a verdict's reason, a warning, a cause.
 */
void pg_fmt_wrap(FILE *out, const char *first, const char *indent, const char *s, size_t width);

/* @file relative to the directory @root when it lies under it (a pointer into @file), else
 * @file itself. NULL or "" @root: @file. */
const char *pg_fmt_relative(const char *file, const char *root);

/* The benchmark command of @meta as one line, arguments shell-quoted where needed
 * ("./bench --name 'a b'"); "" when there is none. NULL @meta is fine. */
char *pg_fmt_command(const struct pg_meta *meta);

/*
 * What differs between the environments the two runs were recorded in, known on both sides
 * (pg_env_diffs(), core/env.h: kernel, CPU model, CPU flags added and removed, the struct
 * pg_meta env entries: os, compilers, CI image, and the shared libraries whose version or
 * build-id differ): "the two sides differ: kernel 6.1.0 -> 6.6.0; libc.so.6 2.36-9 -> 2.36-10",
 * printable ASCII; "" when nothing known differs (or a side is NULL); NULL on -ENOMEM.
 */
char *pg_fmt_env_diff(const struct pg_meta *base, const struct pg_meta *new);

#endif
