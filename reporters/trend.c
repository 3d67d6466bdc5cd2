// SPDX-License-Identifier: MIT
/*
 * reporters/trend.c - perfgate history plot as SVG or HTML (trend.h), with libxml2's writer
 * (xmlw.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "trend.h"
#include "xmlw.h"

#define WIDTH 1100
#define PANEL 280	/* height of one panel */
#define LEFT 90
#define RIGHT 20
#define TOP 46		/* above the plot area of a panel: its title and change labels */
#define BOTTOM 44	/* below it: the commits */

static const char style[] =
	"text{font-family:sans-serif;font-size:12px;fill:#222}"
	".title{font-size:14px;font-weight:bold}"
	".axis{stroke:#444;fill:none}.grid{stroke:#ddd}"
	".bar{stroke:#1f77b4;stroke-width:1.5}.pt{fill:#1f77b4}"
	".s:hover .pt{fill:#ff7f0e}.s:hover .bar{stroke:#ff7f0e}"
	".cp{stroke:#d62728;stroke-width:1.5;stroke-dasharray:5 3}"
	".cpt{fill:#d62728;font-size:11px}.up{fill:#d62728}.down{fill:#2ca02c}";

static void value_words(char *buf, size_t len, const char *unit, double v)
{
	if (!strcmp(unit, "ns"))
		pg_fmt_ns(buf, len, v);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
}

struct scale {
	double lo, hi;		/* values at the bottom and the top */
	double x0, dx;		/* x of point 0, between points */
	double y0, h;		/* top of the plot area and its height */
};

static double ypos(const struct scale *s, double v)
{
	return s->y0 + s->h * (1 - (v - s->lo) / (s->hi - s->lo));
}

static void set_scale(struct scale *s, const struct pg_trend *t, double top)
{
	double lo = INFINITY, hi = -INFINITY, pad;

	for (size_t i = 0; i < t->n; i++) {
		const struct pg_trend_point *p = &t->p[i];

		lo = fmin(lo, isfinite(p->lo) ? fmin(p->lo, p->value) : p->value);
		hi = fmax(hi, isfinite(p->hi) ? fmax(p->hi, p->value) : p->value);
	}
	if (!isfinite(lo) || !isfinite(hi))
		lo = 0, hi = 1;
	pad = (hi - lo) * 0.08 + hi * 1e-6;
	s->lo = fmax(0, lo - pad);
	s->hi = hi + pad;
	s->dx = (double)(WIDTH - LEFT - RIGHT) / (double)(t->n ? t->n : 1);
	s->x0 = LEFT + s->dx / 2;
	s->y0 = top + TOP;
	s->h = PANEL - TOP - BOTTOM;
}

static void line(struct pg_xmlw *x, const char *cls, double x1, double y1, double x2, double y2)
{
	pg_xmlw_start(x, "line");
	pg_xmlw_attr(x, "class", cls);
	pg_xmlw_attrf(x, "x1", "%.1f", x1);
	pg_xmlw_attrf(x, "y1", "%.1f", y1);
	pg_xmlw_attrf(x, "x2", "%.1f", x2);
	pg_xmlw_attrf(x, "y2", "%.1f", y2);
	pg_xmlw_end(x);
}

static void text(struct pg_xmlw *x, const char *cls, double tx, double ty, const char *anchor,
		 const char *s)
{
	pg_xmlw_start(x, "text");
	if (cls)
		pg_xmlw_attr(x, "class", cls);
	pg_xmlw_attrf(x, "x", "%.1f", tx);
	pg_xmlw_attrf(x, "y", "%.1f", ty);
	pg_xmlw_attr(x, "text-anchor", anchor);
	pg_xmlw_text(x, s);
	pg_xmlw_end(x);
}

static void axes(struct pg_xmlw *x, const struct pg_trend *t, const struct scale *s)
{
	char buf[PG_FMT_LEN], c[PG_FMT_LEN];
	size_t every = t->n / 8 + 1;

	for (int k = 0; k <= 4; k++) {
		double v = s->lo + (s->hi - s->lo) * k / 4, y = ypos(s, v);

		line(x, "grid", LEFT, y, WIDTH - RIGHT, y);
		value_words(buf, sizeof(buf), t->unit, v);
		text(x, NULL, LEFT - 6, y + 4, "end", buf);
	}
	pg_xmlw_start(x, "rect");
	pg_xmlw_attr(x, "class", "axis");
	pg_xmlw_attrf(x, "x", "%d", LEFT);
	pg_xmlw_attrf(x, "y", "%.1f", s->y0);
	pg_xmlw_attrf(x, "width", "%d", WIDTH - LEFT - RIGHT);
	pg_xmlw_attrf(x, "height", "%.1f", s->h);
	pg_xmlw_end(x);
	for (size_t i = 0; i < t->n; i += every) {
		pg_fmt_commit(c, sizeof(c), t->p[i].commit);
		c[8 < strlen(c) ? 8 : strlen(c)] = '\0';
		text(x, NULL, s->x0 + s->dx * (double)i, s->y0 + s->h + 16, "middle", c);
	}
	text(x, NULL, (LEFT + WIDTH - RIGHT) / 2.0, s->y0 + s->h + 34, "middle",
	     "sessions, oldest first (commit)");
}

static void changes(struct pg_xmlw *x, const struct pg_trend *t, const struct scale *s)
{
	char buf[128];

	for (size_t i = 0; i < t->nchanges; i++) {
		const struct pg_trend_change *c = &t->changes[i];
		double cx = s->x0 + s->dx * ((double)c->at - 0.5);

		pg_xmlw_start(x, "g");
		pg_xmlw_start(x, "title");
		snprintf(buf, sizeof(buf), "change point: %+.1f%% [%+.1f%%, %+.1f%%]",
			 c->change * 100, c->ci_lo * 100, c->ci_hi * 100);
		pg_xmlw_text(x, buf);
		pg_xmlw_end(x);
		line(x, "cp", cx, s->y0 - 4, cx, s->y0 + s->h);
		snprintf(buf, sizeof(buf), "%+.1f%%", c->change * 100);
		text(x, c->change > 0 ? "cpt up" : "cpt down", cx + 3, s->y0 - 6, "start", buf);
		pg_xmlw_end(x);
	}
}

static void points(struct pg_xmlw *x, const struct pg_trend *t, const struct scale *s)
{
	char v[PG_FMT_LEN], lo[PG_FMT_LEN], hi[PG_FMT_LEN], tip[512];

	for (size_t i = 0; i < t->n; i++) {
		const struct pg_trend_point *p = &t->p[i];
		double px = s->x0 + s->dx * (double)i;

		value_words(v, sizeof(v), t->unit, p->value);
		pg_xmlw_start(x, "g");
		pg_xmlw_attr(x, "class", "s");
		pg_xmlw_start(x, "title");
		if (isfinite(p->lo) && isfinite(p->hi)) {
			value_words(lo, sizeof(lo), t->unit, p->lo);
			value_words(hi, sizeof(hi), t->unit, p->hi);
			snprintf(tip, sizeof(tip), "commit %s\n%s\n%s [%s, %s]",
				 p->commit ? p->commit : "?", p->time, v, lo, hi);
			pg_xmlw_text(x, tip);
			pg_xmlw_end(x);
			line(x, "bar", px, ypos(s, p->lo), px, ypos(s, p->hi));
		} else {
			snprintf(tip, sizeof(tip), "commit %s\n%s\n%s",
				 p->commit ? p->commit : "?", p->time, v);
			pg_xmlw_text(x, tip);
			pg_xmlw_end(x);
		}
		pg_xmlw_start(x, "circle");
		pg_xmlw_attr(x, "class", "pt");
		pg_xmlw_attrf(x, "cx", "%.1f", px);
		pg_xmlw_attrf(x, "cy", "%.1f", ypos(s, p->value));
		pg_xmlw_attr(x, "r", t->n > 200 ? "2" : "3.5");
		pg_xmlw_end(x);
		pg_xmlw_end(x);
	}
}

static void svg(struct pg_xmlw *x, const struct pg_trend *t, size_t n)
{
	pg_xmlw_start(x, "svg");
	pg_xmlw_attr(x, "xmlns", "http://www.w3.org/2000/svg");
	pg_xmlw_attrf(x, "width", "%d", WIDTH);
	pg_xmlw_attrf(x, "height", "%zu", PANEL * n);
	pg_xmlw_attrf(x, "viewBox", "0 0 %d %zu", WIDTH, PANEL * n);
	pg_xmlw_start(x, "style");
	pg_xmlw_text(x, style);
	pg_xmlw_end(x);
	pg_xmlw_start(x, "rect");
	pg_xmlw_attr(x, "width", "100%");
	pg_xmlw_attr(x, "height", "100%");
	pg_xmlw_attr(x, "fill", "white");
	pg_xmlw_end(x);
	for (size_t i = 0; i < n; i++) {
		struct scale s;

		set_scale(&s, &t[i], (double)(PANEL * i));
		text(x, "title", LEFT, s.y0 - 26, "start", t[i].title);
		axes(x, &t[i], &s);
		changes(x, &t[i], &s);
		points(x, &t[i], &s);
	}
	pg_xmlw_end(x);
}

int pg_trend_write(const struct pg_trend *t, size_t n, const char *path, bool html)
{
	struct pg_xmlw x;

	if (pg_xmlw_init(&x, path, false, pg_fmt_ascii))
		return -ENOMEM;
	if (html) {
		pg_xmlw_start(&x, "html");
		pg_xmlw_start(&x, "head");
		pg_xmlw_start(&x, "meta");
		pg_xmlw_attr(&x, "charset", "utf-8");
		pg_xmlw_end(&x);
		pg_xmlw_start(&x, "title");
		pg_xmlw_text(&x, "perfgate history");
		pg_xmlw_end(&x);
		pg_xmlw_end(&x);
		pg_xmlw_start(&x, "body");
	}
	svg(&x, t, n);
	if (html) {
		pg_xmlw_end(&x);
		pg_xmlw_end(&x);
	}
	return pg_xmlw_finish(&x, path, html ? "HTML trend plot" : "SVG trend plot");
}
