// SPDX-License-Identifier: MIT
/* reporters/xmlw.c - the libxml2 writer set-up of the XML reporters (see xmlw.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "xmlw.h"

int pg_xmlw_init(struct pg_xmlw *x, const char *path, bool indent, pg_xmlw_clean_fn clean)
{
	memset(x, 0, sizeof(*x));
	x->clean = clean;
	x->buf = xmlBufferCreate();
	if (x->buf)
		x->w = xmlNewTextWriterMemory(x->buf, 0);
	if (!x->w) {
		pg_err("%s: cannot create the XML writer: out of memory", path);
		xmlBufferFree(x->buf);
		x->buf = NULL;
		return -ENOMEM;
	}
	if (indent) {
		pg_xmlw_check(x, xmlTextWriterSetIndent(x->w, 1));
		pg_xmlw_check(x, xmlTextWriterSetIndentString(x->w, BAD_CAST "  "));
	}
	pg_xmlw_check(x, xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL));
	return 0;
}

void pg_xmlw_check(struct pg_xmlw *x, int rc)
{
	if (rc < 0 && !x->err)
		x->err = -EIO;
}

void pg_xmlw_start(struct pg_xmlw *x, const char *name)
{
	if (!x->err)
		pg_xmlw_check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

void pg_xmlw_end(struct pg_xmlw *x)
{
	if (!x->err)
		pg_xmlw_check(x, xmlTextWriterEndElement(x->w));
}

void pg_xmlw_attr_take(struct pg_xmlw *x, const char *name, char *value)
{
	if (!value && !x->err)
		x->err = -ENOMEM;
	if (!x->err)
		pg_xmlw_check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
	free(value);
}

void pg_xmlw_attr(struct pg_xmlw *x, const char *name, const char *value)
{
	if (!x->err)
		pg_xmlw_attr_take(x, name, x->clean(value));
}

void pg_xmlw_vattrf(struct pg_xmlw *x, const char *name, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	pg_xmlw_attr(x, name, buf);
}

void pg_xmlw_attrf(struct pg_xmlw *x, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pg_xmlw_vattrf(x, name, fmt, ap);
	va_end(ap);
}

void pg_xmlw_text(struct pg_xmlw *x, const char *text)
{
	char *v;

	if (x->err)
		return;
	v = x->clean(text);
	if (!v) {
		x->err = -ENOMEM;
		return;
	}
	pg_xmlw_check(x, xmlTextWriterWriteString(x->w, BAD_CAST v));
	free(v);
}

void pg_xmlw_cdata(struct pg_xmlw *x, const char *text)
{
	if (!x->err)
		pg_xmlw_check(x, xmlTextWriterWriteCDATA(x->w, BAD_CAST text));
}

int pg_xmlw_finish(struct pg_xmlw *x, const char *path, const char *what)
{
	int err;

	if (!x->err)
		pg_xmlw_check(x, xmlTextWriterEndDocument(x->w));
	xmlFreeTextWriter(x->w);	/* flushes into buf */
	err = x->err;
	if (err)
		pg_err("%s: cannot build the %s: %s", path, what, strerror(-err));
	else
		err = pg_atomic_write(path, xmlBufferContent(x->buf),
				      (size_t)xmlBufferLength(x->buf));
	xmlBufferFree(x->buf);
	memset(x, 0, sizeof(*x));
	return err;
}
