/* SPDX-License-Identifier: MIT */
/*
 * reporters/xmlw.h - the one libxml2 xmlTextWriter set-up of reporters/ (JUnit: junit.c, SVG
 * flame graphs: flamegraph.c): a UTF-8 document built in memory, written atomically at the end.
 *
 * Invariants: x->err holds the first error (-ENOMEM, or -EIO for a libxml2 failure); once it
 * is set every call does nothing, so a writer calls on and checks once, at pg_xmlw_finish.
 * Every attribute value and text goes through x->clean first (libxml2 escapes markup but
 * passes invalid UTF-8 and control characters through): pg_fmt_utf8-style for JUnit,
 * printable ASCII for SVG. The document is only in memory until pg_xmlw_finish writes it:
 * a failure leaves no file behind.
 *
 * Life cycle: pg_xmlw_init (the XML declaration is written), elements, pg_xmlw_finish (ends
 * the document, writes @path atomically if nothing failed, frees everything; call it exactly
 * once after a successful init, whatever happened in between).
 *
 *	struct pg_xmlw x;
 *
 *	if (pg_xmlw_init(&x, path, true, clean))
 *		return -ENOMEM;				// logged
 *	pg_xmlw_start(&x, "testsuite");
 *	pg_xmlw_attrf(&x, "tests", "%zu", n);
 *	pg_xmlw_text(&x, "hello");
 *	pg_xmlw_end(&x);
 *	return pg_xmlw_finish(&x, path, "JUnit report");	// 0 or -errno, logged
 */
#ifndef PG_XMLW_H
#define PG_XMLW_H

#include <stdarg.h>
#include <stdbool.h>

#include <libxml/xmlwriter.h>

/* Makes @s safe to write: a malloc'd copy (NULL: out of memory). NULL @s must give "". */
typedef char *(*pg_xmlw_clean_fn)(const char *s);

struct pg_xmlw {
	xmlTextWriterPtr w;
	xmlBufferPtr buf;
	pg_xmlw_clean_fn clean;
	int err;		/* first error: -ENOMEM or -EIO */
};

/*
 * An empty document in memory with its declaration (version 1.0, encoding UTF-8), elements
 * indented by two spaces with @indent. 0, or -ENOMEM after logging "@path: cannot create the
 * XML writer" (nothing to release then).
 */
int pg_xmlw_init(struct pg_xmlw *x, const char *path, bool indent, pg_xmlw_clean_fn clean);

/* Record a libxml2 return code: a negative one sets x->err to -EIO (if not set yet). */
void pg_xmlw_check(struct pg_xmlw *x, int rc);

void pg_xmlw_start(struct pg_xmlw *x, const char *name);
void pg_xmlw_end(struct pg_xmlw *x);
void pg_xmlw_attr(struct pg_xmlw *x, const char *name, const char *value);
void pg_xmlw_attrf(struct pg_xmlw *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));	/* at most 255 characters */
void pg_xmlw_vattrf(struct pg_xmlw *x, const char *name, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* An attribute whose value the caller has cleaned already: @value (malloc'd, owned and freed
 * here; NULL sets -ENOMEM). */
void pg_xmlw_attr_take(struct pg_xmlw *x, const char *name, char *value);
void pg_xmlw_text(struct pg_xmlw *x, const char *text);
/* A CDATA section, written as given (no cleaning): @text must not hold "]]>". */
void pg_xmlw_cdata(struct pg_xmlw *x, const char *text);

/*
 * End the document and write it to @path atomically (core/atomic.h), or, after an error,
 * log "@path: cannot build the @what: ERROR" and write nothing. Frees the writer and the
 * buffer either way. 0 or -errno (logged).
 */
int pg_xmlw_finish(struct pg_xmlw *x, const char *path, const char *what);

#endif
