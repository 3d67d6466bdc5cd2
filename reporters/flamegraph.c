// SPDX-License-Identifier: MIT
/*
 * reporters/flamegraph.c - SVG flame graphs (see flamegraph.h). Layout: a header (title,
 * legend, buttons), the frames from the root at the bottom up, and a details line under
 * them. Positions are computed here, so the picture is complete without script; the script
 * only adds interaction and keeps each frame's position as fractions (data-x, data-w) of the
 * whole to zoom.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "../core/atomic.h"
#include "../core/log.h"
#include "../core/strbuf.h"
#include "flamegraph.h"
#include "fmt.h"

#define XPAD 10
#define FRAME_H 16
#define MIN_PX 0.1
#define CHAR_PX 7.0

static const char style[] =
	"text { font-family: Verdana, Helvetica, sans-serif; font-size: 12px; fill: #000; }\n"
	".f { cursor: pointer; }\n"
	".f rect { stroke: #fff; stroke-width: 0.5; }\n"
	".f:hover rect { stroke: #000; stroke-width: 1; }\n"
	".f text { font-size: 11px; pointer-events: none; }\n"
	".n rect { stroke: #7b2fbe; stroke-width: 1.5; stroke-dasharray: 3,2; }\n"
	".dark text { fill: #fff; }\n"
	".parent rect { opacity: 0.5; }\n"
	"rect.hit { fill: rgb(230,0,230); }\n"
	".btn { cursor: pointer; fill: #333; text-decoration: underline; }\n"
	"#unzoom { visibility: hidden; }\n"
	".title { font-size: 17px; font-weight: bold; }\n"
	".legend { font-size: 12px; fill: #222; }\n";

/* The script: no network, no external references. Kept free of "]]>" (it is CDATA). */
static const char script[] =
	"var svg, frames, details, matched, unzoombtn, searchbtn;\n"
	"var zoomed = null, searching = null;\n"
	"var XPAD = %d, FW = %d;\n"
	"function pg_init(evt) {\n"
	"  svg = document.documentElement;\n"
	"  frames = svg.getElementsByClassName('f');\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  unzoombtn = document.getElementById('unzoom');\n"
	"  searchbtn = document.getElementById('search');\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    frames[i].addEventListener('mouseover',\n"
	"      function () { details.textContent = tip(this); });\n"
	"    frames[i].addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"    frames[i].addEventListener('click', function () { zoom(this); });\n"
	"  }\n"
	"  unzoombtn.addEventListener('click', unzoom);\n"
	"  searchbtn.addEventListener('click', search_prompt);\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.keyCode === 70) {\n"
	"      e.preventDefault(); search_prompt();\n"
	"    }\n"
	"    if (e.keyCode === 27) { unzoom(); reset_search(); }\n"
	"  });\n"
	"}\n"
	"function title(g) {\n"
	"  var t = g.getElementsByTagName('title')[0];\n"
	"  return t ? t.textContent : '';\n"
	"}\n"
	"function tip(g) { return title(g).replace(/\\n/g, '  |  '); }\n"
	"function fname(g) { return title(g).split('\\n')[0]; }\n"
	"function fx(g) { return parseFloat(g.getAttribute('data-x')); }\n"
	"function fw(g) { return parseFloat(g.getAttribute('data-w')); }\n"
	"function fd(g) { return parseInt(g.getAttribute('data-d'), 10); }\n"
	"function place(g, x, w) {\n"
	"  var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0];\n"
	"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
	"  t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  var n = fname(g), fit = Math.floor((w - 6) / %g);\n"
	"  t.textContent = fit < 3 ? '' : (n.length <= fit ? n : n.substring(0, fit - 2) + '..');\n"
	"}\n"
	"function zoom(z) {\n"
	"  var x0 = fx(z), w0 = fw(z), d0 = fd(z), eps = 1e-9;\n"
	"  zoomed = z;\n"
	"  unzoombtn.style.visibility = 'visible';\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i], x = fx(g), w = fw(g), d = fd(g);\n"
	"    if (d >= d0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {\n"
	"      g.style.display = ''; g.classList.remove('parent');\n"
	"      place(g, XPAD + (x - x0) / w0 * FW, w / w0 * FW);\n"
	"    } else if (d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {\n"
	"      g.style.display = ''; g.classList.add('parent'); place(g, XPAD, FW);\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"  }\n"
	"  if (searching) search(searching);\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null;\n"
	"  unzoombtn.style.visibility = 'hidden';\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i];\n"
	"    g.style.display = ''; g.classList.remove('parent');\n"
	"    place(g, XPAD + fx(g) * FW, fw(g) * FW);\n"
	"  }\n"
	"  if (searching) search(searching);\n"
	"}\n"
	"function search_prompt() {\n"
	"  if (searching) { reset_search(); return; }\n"
	"  var term = prompt('Search frames (regular expression):', '');\n"
	"  if (term) search(term);\n"
	"}\n"
	"function search(term) {\n"
	"  var re;\n"
	"  try { re = new RegExp(term); } catch (e) { return; }\n"
	"  searching = term;\n"
	"  var lo = zoomed ? fx(zoomed) : 0, ranges = [];\n"
	"  var hi = zoomed ? fx(zoomed) + fw(zoomed) : 1;\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i], r = g.getElementsByTagName('rect')[0];\n"
	"    if (re.test(fname(g))) {\n"
	"      r.classList.add('hit');\n"
	"      var a = Math.max(fx(g), lo), b = Math.min(fx(g) + fw(g), hi);\n"
	"      if (b > a) ranges.push([a, b]);\n"
	"    } else {\n"
	"      r.classList.remove('hit');\n"
	"    }\n"
	"  }\n"
	"  ranges.sort(function (p, q) { return p[0] - q[0]; });\n"
	"  var sum = 0, end = -1;\n"
	"  for (var k = 0; k < ranges.length; k++) {\n"
	"    var s = Math.max(ranges[k][0], end);\n"
	"    if (ranges[k][1] > s) { sum += ranges[k][1] - s; end = ranges[k][1]; }\n"
	"  }\n"
	"  matched.textContent = 'Matched: ' + (100 * sum / (hi - lo)).toFixed(1) + '%%';\n"
	"  searchbtn.textContent = 'Reset Search';\n"
	"}\n"
	"function reset_search() {\n"
	"  searching = null;\n"
	"  for (var i = 0; i < frames.length; i++)\n"
	"    frames[i].getElementsByTagName('rect')[0].classList.remove('hit');\n"
	"  matched.textContent = ' ';\n"
	"  searchbtn.textContent = 'Search';\n"
	"}\n";

struct sw {
	xmlTextWriterPtr w;
	int err;
};

static void check(struct sw *s, int rc)
{
	if (rc < 0 && !s->err)
		s->err = -EIO;
}

static void start(struct sw *s, const char *name)
{
	if (!s->err)
		check(s, xmlTextWriterStartElement(s->w, BAD_CAST name));
}

static void end(struct sw *s)
{
	if (!s->err)
		check(s, xmlTextWriterEndElement(s->w));
}

static void attr(struct sw *s, const char *name, const char *value)
{
	char *v;

	if (s->err)
		return;
	v = pg_fmt_ascii(value);
	if (!v) {
		s->err = -ENOMEM;
		return;
	}
	check(s, xmlTextWriterWriteAttribute(s->w, BAD_CAST name, BAD_CAST v));
	free(v);
}

static void __attribute__((format(printf, 3, 4))) attrf(struct sw *s, const char *name,
							 const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attr(s, name, buf);
}

/* Printable ASCII, keeping line breaks (tooltips have several lines). */
static char *ascii_lines(const char *t)
{
	struct pg_strbuf b = PG_STRBUF_INIT;

	while (t && *t) {
		size_t n = strcspn(t, "\n");
		char *line = strndup(t, n), *a = line ? pg_fmt_ascii(line) : NULL;

		if (!a) {
			free(line);
			pg_strbuf_release(&b);
			return NULL;
		}
		pg_strbuf_add(&b, a);
		free(a);
		free(line);
		t += n;
		if (*t == '\n') {
			pg_strbuf_add(&b, "\n");
			t++;
		}
	}
	return pg_strbuf_take(&b);
}

static void text(struct sw *s, const char *t)
{
	char *v;

	if (s->err)
		return;
	v = ascii_lines(t);
	if (!v) {
		s->err = -ENOMEM;
		return;
	}
	check(s, xmlTextWriterWriteString(s->w, BAD_CAST v));
	free(v);
}

/* <text x y [class] [id]>t</text> */
static void label(struct sw *s, double x, double y, const char *cls, const char *id,
		  const char *anchor, const char *t)
{
	start(s, "text");
	if (id)
		attr(s, "id", id);
	if (cls)
		attr(s, "class", cls);
	if (anchor)
		attr(s, "text-anchor", anchor);
	attrf(s, "x", "%.2f", x);
	attrf(s, "y", "%.2f", y);
	text(s, t);
	end(s);
}

static void rectangle(struct sw *s, double x, double y, double w, double h, const char *fill)
{
	start(s, "rect");
	attrf(s, "x", "%.2f", x);
	attrf(s, "y", "%.2f", y);
	attrf(s, "width", "%.2f", w);
	attrf(s, "height", "%.2f", h);
	attr(s, "fill", fill);
	end(s);
}

/* ---- colours ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static bool is_kernel(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, " [k]");
}

static bool is_unresolved(const char *name)
{
	return !strcmp(name, "[unknown]") || strstr(name, "+0x") != NULL;
}

static void plain_colour(const char *name, char *buf, size_t len)
{
	uint32_t h = name_hash(name);
	double a = (h & 0xff) / 255.0, b = (h >> 8 & 0xff) / 255.0, c = (h >> 16 & 0xff) / 255.0;

	if (is_kernel(name))	/* orange */
		snprintf(buf, len, "rgb(%d,%d,%d)", 220 + (int)(30 * a), 120 + (int)(60 * b),
			 20 + (int)(40 * c));
	else if (is_unresolved(name))	/* grey */
		snprintf(buf, len, "rgb(%d,%d,%d)", 170 + (int)(30 * a), 170 + (int)(30 * a),
			 170 + (int)(30 * a));
	else	/* flamegraph.pl's "hot" */
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * c), (int)(230 * a),
			 (int)(55 * b));
}

#define NEUTRAL_FILL "rgb(221,221,221)"

static void diff_colour(const struct pg_flame_node *nd, char *buf, size_t len)
{
	/* light to saturated; even the smallest significant change stays visible */
	int v = (int)lround(220.0 * (1.0 - (0.3 + 0.7 * nd->intensity)));

	switch (nd->change) {
	case PG_FLAME_GREW:
		snprintf(buf, len, "rgb(255,%d,%d)", v, v);
		break;
	case PG_FLAME_SHRANK:
		snprintf(buf, len, "rgb(%d,%d,255)", v, v);
		break;
	default:
		snprintf(buf, len, NEUTRAL_FILL);
	}
}

/* ---- frames ---- */

struct layout {
	const struct pg_flame *f;
	const struct pg_run *src;
	double fw;		/* frame area width, px */
	double base_y;		/* y of the root frame */
	struct pg_strbuf tip;
};

static const struct pg_source *find_source(const struct pg_run *run, const char *frame)
{
	size_t lo = 0, hi = run ? run->nsources : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(run->sources[mid].frame, frame);

		if (!c)
			return &run->sources[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void tooltip(struct layout *l, const struct pg_flame_node *nd)
{
	const struct pg_flame *f = l->f;
	const struct pg_source *src = find_source(l->src, nd->name);
	struct pg_strbuf *b = &l->tip;

	pg_strbuf_reset(b);
	pg_strbuf_add(b, nd->name);
	if (!f->diff) {
		pg_strbuf_addf(b, "\n%llu samples (%.2f%%), %llu in the frame itself",
			       (unsigned long long)nd->total, pct(nd->total, f->total),
			       (unsigned long long)nd->self);
	} else {
		const char *what = f->metric == PG_FLAME_SELF ? "self" : "inclusive";

		pg_strbuf_addf(b, "\nNEW: %llu samples (%.2f%%), self %llu; BASE: %llu samples "
			       "(%.2f%%), self %llu",
			       (unsigned long long)nd->total, pct(nd->total, f->total),
			       (unsigned long long)nd->self, (unsigned long long)nd->base_total,
			       pct(nd->base_total, f->base_total),
			       (unsigned long long)nd->base_self);
		pg_strbuf_addf(b, "\n%s share: %.2f%% in BASE -> %.2f%% in NEW (%+.2f points)",
			       what, 100 * nd->base_share, 100 * nd->new_share, 100 * nd->delta);
		if (nd->change == PG_FLAME_GREW)
			pg_strbuf_addf(b, ": GREW (q = %.3g)", nd->q);
		else if (nd->change == PG_FLAME_SHRANK)
			pg_strbuf_addf(b, ": SHRANK (q = %.3g)", nd->q);
		else if (!isnan(nd->q))
			pg_strbuf_addf(b, ": not significant (q = %.3g)", nd->q);
		else
			pg_strbuf_add(b, ": not tested");
		if (nd->only_new)
			pg_strbuf_add(b, "\nonly in NEW");
	}
	if (src && src->line)
		pg_strbuf_addf(b, "\n%s:%u", src->file, src->line);
	else if (src)
		pg_strbuf_addf(b, "\n%s", src->file);
}

static void frame(struct sw *s, struct layout *l, size_t id, double x0)
{
	const struct pg_flame_node *nd = &l->f->nodes[id];
	double w = (double)nd->total / (double)l->f->total;
	double px = XPAD + x0 * l->fw, pw = w * l->fw, y;
	char fill[48], *lab;
	size_t fit;

	if (pw < MIN_PX)
		return;
	y = l->base_y - (double)nd->depth * FRAME_H;
	if (l->f->diff)
		diff_colour(nd, fill, sizeof(fill));
	else
		plain_colour(nd->name, fill, sizeof(fill));
	tooltip(l, nd);
	start(s, "g");
	attrf(s, "class", "f%s%s", nd->only_new ? " n" : "",
	      l->f->diff && nd->change != PG_FLAME_NEUTRAL && nd->intensity > 0.5 ? " dark" : "");
	attrf(s, "data-x", "%.9f", x0);
	attrf(s, "data-w", "%.9f", w);
	attrf(s, "data-d", "%zu", nd->depth);
	start(s, "title");
	text(s, l->tip.err ? nd->name : l->tip.s);
	end(s);
	rectangle(s, px, y, pw, FRAME_H - 1, fill);
	fit = pw > 6 ? (size_t)((pw - 6) / CHAR_PX) : 0;
	lab = strdup(nd->name);
	if (!lab) {
		s->err = -ENOMEM;
		return;
	}
	if (fit < 3)
		lab[0] = '\0';
	else if (strlen(lab) > fit)
		strcpy(lab + fit - 2, "..");
	label(s, px + 3, y + FRAME_H - 4.5, NULL, NULL, NULL, lab);
	free(lab);
	end(s);
	/* children left to right, in name order */
	for (size_t c = nd->first_child; c != PG_FLAME_NONE && !s->err;
	     c = l->f->nodes[c].next_sibling) {
		frame(s, l, c, x0);
		x0 += (double)l->f->nodes[c].total / (double)l->f->total;
	}
}

/* ---- the document ---- */

static void legend_swatch(struct sw *s, double x, double y, const char *fill, bool dashed,
			  const char *t)
{
	start(s, "g");
	if (dashed)
		attr(s, "class", "n");
	rectangle(s, x, y - 10, 14, 12, fill);
	end(s);
	label(s, x + 18, y, "legend", NULL, NULL, t);
}

static int header(struct sw *s, const struct pg_flame *f, const char *title, double width)
{
	char line[512];
	double y = 44;

	label(s, width / 2, 24, "title", NULL, "middle", title);
	label(s, XPAD, 24, "btn", "unzoom", NULL, "Reset Zoom");
	label(s, width - XPAD, 24, "btn", "search", "end", "Search");
	if (!f->diff) {
		snprintf(line, sizeof(line), "%llu samples in %zu repetition%s. Width = share of "
			 "samples. Hover for details, click to zoom, Ctrl-F to search.",
			 (unsigned long long)f->total, f->nnew, f->nnew == 1 ? "" : "s");
		label(s, XPAD, y, "legend", NULL, NULL, line);
		return s->err;
	}
	snprintf(line, sizeof(line), "Differential flame graph. Widths: NEW (%llu samples, %zu "
		 "repetitions). Colour: change of each frame's %s share of samples from BASE "
		 "(%llu samples, %zu repetitions) to NEW.", (unsigned long long)f->total, f->nnew,
		 f->metric == PG_FLAME_SELF ? "self" : "inclusive",
		 (unsigned long long)f->base_total, f->nbase);
	label(s, XPAD, y, "legend", NULL, NULL, line);
	y += 20;
	legend_swatch(s, XPAD, y, "rgb(255,0,0)", false, "RED: grew in NEW (more time there)");
	legend_swatch(s, XPAD + 280, y, "rgb(0,0,255)", false, "BLUE: shrank in NEW (less time)");
	snprintf(line, sizeof(line), "GREY: no significant change (Mann-Whitney over "
		 "repetitions, BH q > %g)", f->alpha);
	legend_swatch(s, XPAD + 540, y, NEUTRAL_FILL, false, line);
	y += 20;
	legend_swatch(s, XPAD, y, NEUTRAL_FILL, true, "dashed purple outline: only in NEW");
	if (!f->tested)
		snprintf(line, sizeof(line), "Too few repetitions with samples on a side (2 "
			 "needed): every frame is drawn neutral.");
	else
		snprintf(line, sizeof(line), "%zu frames grew, %zu shrank; %llu BASE samples are "
			 "on paths NEW does not have (not drawn).", f->ngrew, f->nshrank,
			 (unsigned long long)f->gone_samples);
	label(s, XPAD + 280, y, "legend", NULL, NULL, line);
	return s->err;
}

static int write_doc(struct sw *s, const struct pg_flame *f, const struct pg_run *src,
		     const char *title)
{
	const double width = PG_FLAMEGRAPH_WIDTH;
	struct layout l = { f, src, width - 2 * XPAD, 0, PG_STRBUF_INIT };
	double height;
	char *js;
	int n;

	check(s, xmlTextWriterStartDocument(s->w, NULL, "UTF-8", NULL));
	start(s, "svg");
	attr(s, "xmlns", "http://www.w3.org/2000/svg");
	attr(s, "version", "1.1");
	/* below the header (title and legend): 94 px in a differential graph, 64 otherwise */
	height = (f->diff ? 94 : 64) + (double)(f->max_depth + 1) * FRAME_H + 40;
	attrf(s, "width", "%.0f", width);
	attrf(s, "height", "%.0f", height);
	attrf(s, "viewBox", "0 0 %.0f %.0f", width, height);
	attr(s, "onload", "pg_init(evt)");
	start(s, "style");
	attr(s, "type", "text/css");
	check(s, xmlTextWriterWriteCDATA(s->w, BAD_CAST style));
	end(s);
	start(s, "script");
	attr(s, "type", "text/ecmascript");
	n = asprintf(&js, script, XPAD, (int)l.fw, CHAR_PX);
	if (n < 0) {
		s->err = -ENOMEM;
		return s->err;
	}
	check(s, xmlTextWriterWriteCDATA(s->w, BAD_CAST js));
	free(js);
	end(s);
	rectangle(s, 0, 0, width, height, "rgb(250,250,250)");
	header(s, f, title, width);
	l.base_y = height - 40 - FRAME_H;
	if (f->total)
		frame(s, &l, 0, 0.0);
	label(s, XPAD, height - 14, "legend", "details", NULL, " ");
	label(s, width - XPAD, height - 14, "legend", "matched", "end", " ");
	end(s);	/* svg */
	if (!s->err)
		check(s, xmlTextWriterEndDocument(s->w));
	if (l.tip.err && !s->err)
		s->err = l.tip.err;
	pg_strbuf_release(&l.tip);
	return s->err;
}

int pg_flamegraph_write(const struct pg_flame *f, const struct pg_run *sources,
			const char *title, const char *path)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct sw s = { NULL, 0 };
	int err;

	if (buf)
		s.w = xmlNewTextWriterMemory(buf, 0);
	if (!s.w) {
		pg_err("%s: cannot create the XML writer: out of memory", path);
		xmlBufferFree(buf);
		return -ENOMEM;
	}
	err = write_doc(&s, f, sources, title);
	xmlFreeTextWriter(s.w);
	if (err)
		pg_err("%s: cannot build the flame graph: %s", path, strerror(-err));
	else
		err = pg_atomic_write(path, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	xmlBufferFree(buf);
	return err;
}
