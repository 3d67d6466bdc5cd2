// SPDX-License-Identifier: MIT
/*
 * reporters/flamegraph.c - SVG flame graphs (see flamegraph.h). Layout: a header (title,
 * legend, buttons), the frames from the root at the bottom up, and a details line under
 * them. Positions are computed here, so the picture is complete without script; the script
 * (flamegraph.js, embedded at build time with the style, flamegraph.css) only adds interaction
 * and keeps each frame's position as fractions (data-x, data-w) of the whole to zoom. The
 * writer set-up (memory buffer, cleaning, atomic write) is xmlw.h's.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../core/strbuf.h"
#include "../diff/probeframes.h"
#include "flamegraph.h"
#include "fmt.h"
#include "xmlw.h"

#define XPAD 10
#define FRAME_H 16
#define MIN_PX 0.1
#define CHAR_PX 7.0

/* reporters/flamegraph.css and .js as NUL-terminated byte arrays (Makefile, EMBED_RULE) */
#include "reporters/flamegraph.css.h"
#include "reporters/flamegraph.js.h"

/*
 * Printable ASCII, keeping line breaks (tooltips have several lines): every attribute value
 * and text of the SVG goes through it (struct pg_xmlw.clean).
 */
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

/* <text x y [class] [id]>t</text> */
static void label(struct pg_xmlw *s, double x, double y, const char *cls, const char *id,
		  const char *anchor, const char *t)
{
	pg_xmlw_start(s, "text");
	if (id)
		pg_xmlw_attr(s, "id", id);
	if (cls)
		pg_xmlw_attr(s, "class", cls);
	if (anchor)
		pg_xmlw_attr(s, "text-anchor", anchor);
	pg_xmlw_attrf(s, "x", "%.2f", x);
	pg_xmlw_attrf(s, "y", "%.2f", y);
	pg_xmlw_text(s, t);
	pg_xmlw_end(s);
}

static void rectangle(struct pg_xmlw *s, double x, double y, double w, double h, const char *fill)
{
	pg_xmlw_start(s, "rect");
	pg_xmlw_attrf(s, "x", "%.2f", x);
	pg_xmlw_attrf(s, "y", "%.2f", y);
	pg_xmlw_attrf(s, "width", "%.2f", w);
	pg_xmlw_attrf(s, "height", "%.2f", h);
	pg_xmlw_attr(s, "fill", fill);
	pg_xmlw_end(s);
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
	return pg_frame_kernel(name, strlen(name));
}

static bool is_unresolved(const char *name)
{
	return !strcmp(name, "[unknown]") || strstr(name, "+0x") != NULL;
}

static void plain_colour(const char *name, char *buf, size_t len)
{
	uint32_t h = name_hash(name);
	double a = (h & 0xff) / 255.0, b = (h >> 8 & 0xff) / 255.0, c = (h >> 16 & 0xff) / 255.0;

	if (!strcmp(name, PG_PROBE_FRAME))	/* perfgate's own cost: violet */
		snprintf(buf, len, "rgb(%d,%d,%d)", 170 + (int)(20 * a), 140 + (int)(20 * a), 220);
	else if (is_kernel(name))	/* orange */
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
	const struct pg_func **bydisp;	/* src's functions by display name (pg_run_by_display) */
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

/* The verdict of perfgate compare on a traced function: what colours its frames. */
static void exact_tip(struct pg_strbuf *b, const struct pg_flame *f, const struct pg_fcmp *fc)
{
	char verdict[32];
	size_t i;

	snprintf(verdict, sizeof(verdict), "%s", pg_verdict_name(fc->verdict));
	for (i = 0; verdict[i]; i++)
		verdict[i] = (char)(verdict[i] >= 'a' && verdict[i] <= 'z' ? verdict[i] - 32 :
				    verdict[i]);
	if (fc->origin == PG_ORIGIN_SAMPLED)
		pg_strbuf_addf(b, "\nsampled verdict of the function%s%s, all its frames (%s time "
			       "a repetition, from %llu samples): %s", *fc->binary ? " in " : "",
			       fc->binary, pg_metric_name(f->exact_metric),
			       (unsigned long long)fc->samples, verdict);
	else
		pg_strbuf_addf(b, "\ntraced (exact %s time per call): %s",
			       pg_metric_name(f->exact_metric), verdict);
	if (isfinite(fc->change))
		pg_strbuf_addf(b, ", %+.1f%% [%+.1f%%, %+.1f%%]", 100 * fc->change,
			       100 * fc->ci_lo, 100 * fc->ci_hi);
	if (!isnan(fc->q))
		pg_strbuf_addf(b, ", q = %.2g", fc->q);
	if (isfinite(fc->base_ns) && isfinite(fc->new_ns))
		pg_strbuf_addf(b, "; %.0f ns -> %.0f ns", fc->base_ns, fc->new_ns);
	if (fc->reason[0] && fc->verdict != PG_VERDICT_REGRESSION &&
	    fc->verdict != PG_VERDICT_IMPROVEMENT)	/* else the reason repeats the change */
		pg_strbuf_addf(b, "\n%s", fc->reason);
}

/* A count of @f in words: "123 samples", or off-CPU time "12.3 ms off-CPU" */
static void amount(struct pg_strbuf *b, const struct pg_flame *f, uint64_t v)
{
	if (!f->offcpu)
		pg_strbuf_addf(b, "%llu samples", (unsigned long long)v);
	else if (v >= 1000000000ull)
		pg_strbuf_addf(b, "%.3f s off-CPU", (double)v / 1e9);
	else if (v >= 1000000)
		pg_strbuf_addf(b, "%.3f ms off-CPU", (double)v / 1e6);
	else
		pg_strbuf_addf(b, "%.3f us off-CPU", (double)v / 1e3);
}

/*
 * The tooltip's last line: where @frame is declared. The run's frame sources hold what the
 * sampler symbolized with its DWARF; a traced function's frame is named by its display name,
 * and its declaration is in the function table even where the sampler found none.
 */
static void source_line(struct pg_strbuf *b, const struct layout *l, const char *frame)
{
	const struct pg_source *src = find_source(l->src, frame);
	const struct pg_func *fn;

	if (src && src->line) {
		pg_strbuf_addf(b, "\n%s:%u", src->file, src->line);
		return;
	}
	fn = l->bydisp ? pg_func_by_display(l->bydisp, l->src->nfuncs, frame) : NULL;
	if (fn && fn->src_file && fn->src_line)
		pg_strbuf_addf(b, "\n%s:%u", fn->src_file, fn->src_line);
	else if (src)
		pg_strbuf_addf(b, "\n%s", src->file);
}

static void tooltip(struct layout *l, const struct pg_flame_node *nd)
{
	const struct pg_flame *f = l->f;
	struct pg_strbuf *b = &l->tip;

	pg_strbuf_reset(b);
	pg_strbuf_add(b, nd->name);
	if (!f->diff && f->offcpu) {
		pg_strbuf_add(b, "\n");
		amount(b, f, nd->total);
		pg_strbuf_addf(b, " (%.2f%% of the off-CPU time), ", pct(nd->total, f->total));
		amount(b, f, nd->self);
		pg_strbuf_add(b, " in the frame itself");
	} else if (!f->diff) {
		pg_strbuf_addf(b, "\n%llu samples (%.2f%%), %llu in the frame itself",
			       (unsigned long long)nd->total, pct(nd->total, f->total),
			       (unsigned long long)nd->self);
	} else {
		const char *what = f->metric == PG_FLAME_SELF ? "self" : "inclusive";

		if (f->offcpu) {
			pg_strbuf_add(b, "\nNEW: ");
			amount(b, f, nd->total);
			pg_strbuf_addf(b, " (%.2f%%), self ", pct(nd->total, f->total));
			amount(b, f, nd->self);
			pg_strbuf_add(b, "; BASE: ");
			amount(b, f, nd->base_total);
			pg_strbuf_addf(b, " (%.2f%%), self ", pct(nd->base_total, f->base_total));
			amount(b, f, nd->base_self);
		} else {
			pg_strbuf_addf(b, "\nNEW: %llu samples (%.2f%%), self %llu; BASE: %llu "
				       "samples (%.2f%%), self %llu",
				       (unsigned long long)nd->total, pct(nd->total, f->total),
				       (unsigned long long)nd->self,
				       (unsigned long long)nd->base_total,
				       pct(nd->base_total, f->base_total),
				       (unsigned long long)nd->base_self);
		}
		pg_strbuf_addf(b, "\n%s share: %.2f%% in BASE -> %.2f%% in NEW (%+.2f points)",
			       what, 100 * nd->base_share, 100 * nd->new_share, 100 * nd->delta);
		if (nd->exact)
			pg_strbuf_add(b, ": colour from the exact verdict");
		else if (nd->change == PG_FLAME_GREW)
			pg_strbuf_addf(b, ": GREW (q = %.3g)", nd->q);
		else if (nd->change == PG_FLAME_SHRANK)
			pg_strbuf_addf(b, ": SHRANK (q = %.3g)", nd->q);
		else if (!isnan(nd->q))
			pg_strbuf_addf(b, ": not significant (q = %.3g)", nd->q);
		else
			pg_strbuf_add(b, ": not tested");
		if (nd->exact)
			exact_tip(b, f, nd->exact);
		else if (nd->sampled)	/* the function's, over all its frames */
			exact_tip(b, f, nd->sampled);
		if (nd->only_new)
			pg_strbuf_add(b, "\nonly in NEW");
	}
	if (!strcmp(nd->name, PG_PROBE_FRAME))
		pg_strbuf_add(b, "\nperfgate's own cost: the kernel's work for its probes and BPF "
			      "programs (--keep-probe-frames shows its frames)");
	source_line(b, l, nd->name);
}

static void frame(struct pg_xmlw *s, struct layout *l, size_t id, double x0)
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
	pg_xmlw_start(s, "g");
	pg_xmlw_attrf(s, "class", "f%s%s", nd->only_new ? " n" : "",
	      l->f->diff && nd->change != PG_FLAME_NEUTRAL && nd->intensity > 0.5 ? " dark" : "");
	pg_xmlw_attrf(s, "data-x", "%.9f", x0);
	pg_xmlw_attrf(s, "data-w", "%.9f", w);
	pg_xmlw_attrf(s, "data-d", "%zu", nd->depth);
	pg_xmlw_start(s, "title");
	pg_xmlw_text(s, l->tip.err ? nd->name : l->tip.s);
	pg_xmlw_end(s);
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
	pg_xmlw_end(s);
	/* children left to right, in name order */
	for (size_t c = nd->first_child; c != PG_FLAME_NONE && !s->err;
	     c = l->f->nodes[c].next_sibling) {
		frame(s, l, c, x0);
		x0 += (double)l->f->nodes[c].total / (double)l->f->total;
	}
}

/* ---- the document ---- */

static void legend_swatch(struct pg_xmlw *s, double x, double y, const char *fill, bool dashed,
			  const char *t)
{
	pg_xmlw_start(s, "g");
	if (dashed)
		pg_xmlw_attr(s, "class", "n");
	rectangle(s, x, y - 10, 14, 12, fill);
	pg_xmlw_end(s);
	label(s, x + 18, y, "legend", NULL, NULL, t);
}

static int header(struct pg_xmlw *s, const struct pg_flame *f, const char *title, double width)
{
	char line[512];
	double y = 44;

	label(s, width / 2, 24, "title", NULL, "middle", title);
	label(s, XPAD, 24, "btn", "unzoom", NULL, "Reset Zoom");
	label(s, width - XPAD, 24, "btn", "search", "end", "Search");
	if (!f->diff && f->offcpu) {
		snprintf(line, sizeof(line), "Off-CPU time: %.3f s blocked in %zu repetition%s. "
			 "Width = share of the off-CPU time. Hover for details, click to zoom, "
			 "Ctrl-F to search.", (double)f->total / 1e9, f->nnew,
			 pg_plural(f->nnew));
		label(s, XPAD, y, "legend", NULL, NULL, line);
		return s->err;
	}
	if (!f->diff) {
		snprintf(line, sizeof(line), "%llu samples in %zu repetition%s. Width = share of "
			 "samples. Hover for details, click to zoom, Ctrl-F to search.",
			 (unsigned long long)f->total, f->nnew, pg_plural(f->nnew));
		label(s, XPAD, y, "legend", NULL, NULL, line);
		return s->err;
	}
	if (f->offcpu)
		snprintf(line, sizeof(line), "Differential off-CPU flame graph. Widths: NEW. "
			 "Off-CPU time: BASE %.3f s in %zu repetition%s (%.3f s a repetition), NEW "
			 "%.3f s in %zu repetition%s (%.3f s a repetition).",
			 (double)f->base_total / 1e9, f->nbase, pg_plural(f->nbase),
			 f->nbase ? (double)f->base_total / 1e9 / (double)f->nbase : 0.0,
			 (double)f->total / 1e9, f->nnew, pg_plural(f->nnew),
			 f->nnew ? (double)f->total / 1e9 / (double)f->nnew : 0.0);
	else
		snprintf(line, sizeof(line), "Differential flame graph. Widths: NEW. Samples: "
			 "BASE %llu in %zu repetition%s (%.0f a repetition), NEW %llu in %zu "
			 "repetition%s (%.0f a repetition).", (unsigned long long)f->base_total,
			 f->nbase, pg_plural(f->nbase),
			 f->nbase ? (double)f->base_total / (double)f->nbase : 0.0,
			 (unsigned long long)f->total, f->nnew, pg_plural(f->nnew),
			 f->nnew ? (double)f->total / (double)f->nnew : 0.0);
	label(s, XPAD, y, "legend", NULL, NULL, line);
	y += 18;
	if (f->exact)
		snprintf(line, sizeof(line), "Colour: traced functions by perfgate compare's "
			 "verdict (exact %s time per call; %zu frames: %zu regressed, %zu "
			 "improved); other frames by the change of their %s share of %s.",
			 pg_metric_name(f->exact_metric), f->nexact, f->nexact_grew,
			 f->nexact_shrank, f->metric == PG_FLAME_SELF ? "self" : "inclusive",
			 f->offcpu ? "the off-CPU time" : "samples");
	else
		snprintf(line, sizeof(line), "Colour: change of each frame's %s share of %s "
			 "from BASE to NEW.", f->metric == PG_FLAME_SELF ? "self" : "inclusive",
			 f->offcpu ? "the off-CPU time" : "samples");
	label(s, XPAD, y, "legend", NULL, NULL, line);
	y += 20;
	legend_swatch(s, XPAD, y, "rgb(255,0,0)", false, f->exact ?
		      "RED: grew in NEW (regression; more time there)" :
		      "RED: grew in NEW (more time there)");
	legend_swatch(s, XPAD + 320, y, "rgb(0,0,255)", false, f->exact ?
		      "BLUE: shrank in NEW (improvement; less time)" :
		      "BLUE: shrank in NEW (less time)");
	snprintf(line, sizeof(line), "GREY: no significant change (untraced: Mann-Whitney over "
		 "repetitions, BH q > %g)", f->alpha);
	legend_swatch(s, XPAD + 620, y, NEUTRAL_FILL, false, line);
	y += 20;
	legend_swatch(s, XPAD, y, NEUTRAL_FILL, true, "dashed purple outline: only in NEW");
	if (!f->tested)
		snprintf(line, sizeof(line), "Too few repetitions with samples on a side (2 "
			 "needed): every untraced frame is drawn neutral.");
	else
		snprintf(line, sizeof(line), f->offcpu ? "%zu frames grew, %zu shrank; %llu ns of "
			 "BASE off-CPU time are on paths NEW does not have (not drawn)." :
			 "%zu frames grew, %zu shrank; %llu BASE samples are on paths NEW does "
			 "not have (not drawn).", f->ngrew, f->nshrank,
			 (unsigned long long)f->gone_samples);
	label(s, XPAD + 280, y, "legend", NULL, NULL, line);
	return s->err;
}

static int write_doc(struct pg_xmlw *s, const struct pg_flame *f, const struct pg_run *src,
		     const char *title)
{
	const double width = PG_FLAMEGRAPH_WIDTH;
	struct layout l = { f, src, width - 2 * XPAD, 0, PG_STRBUF_INIT, NULL };
	double height;

	if (src && src->nfuncs) {
		l.bydisp = pg_run_by_display(src);
		if (!l.bydisp) {
			s->err = -ENOMEM;
			return s->err;
		}
	}

	pg_xmlw_start(s, "svg");
	pg_xmlw_attr(s, "xmlns", "http://www.w3.org/2000/svg");
	pg_xmlw_attr(s, "version", "1.1");
	/* below the header (title and legend): 112 px in a differential graph, 64 otherwise */
	height = (f->diff ? 112 : 64) + (double)(f->max_depth + 1) * FRAME_H + 40;
	pg_xmlw_attrf(s, "width", "%.0f", width);
	pg_xmlw_attrf(s, "height", "%.0f", height);
	pg_xmlw_attrf(s, "viewBox", "0 0 %.0f %.0f", width, height);
	/* the layout the script needs to zoom (flamegraph.js) */
	pg_xmlw_attrf(s, "data-xpad", "%d", XPAD);
	pg_xmlw_attrf(s, "data-fw", "%d", (int)l.fw);
	pg_xmlw_attrf(s, "data-char-px", "%g", CHAR_PX);
	pg_xmlw_attr(s, "onload", "pg_init(evt)");
	pg_xmlw_start(s, "style");
	pg_xmlw_attr(s, "type", "text/css");
	pg_xmlw_cdata(s, (const char *)flamegraph_css);
	pg_xmlw_end(s);
	pg_xmlw_start(s, "script");
	pg_xmlw_attr(s, "type", "text/ecmascript");
	pg_xmlw_cdata(s, (const char *)flamegraph_js);
	pg_xmlw_end(s);
	rectangle(s, 0, 0, width, height, "rgb(250,250,250)");
	header(s, f, title, width);
	l.base_y = height - 40 - FRAME_H;
	if (f->total)
		frame(s, &l, 0, 0.0);
	label(s, XPAD, height - 14, "legend", "details", NULL, " ");
	label(s, width - XPAD, height - 14, "legend", "matched", "end", " ");
	pg_xmlw_end(s);	/* svg */
	if (l.tip.err && !s->err)
		s->err = l.tip.err;
	pg_strbuf_release(&l.tip);
	free(l.bydisp);
	return s->err;
}

int pg_flamegraph_write(const struct pg_flame *f, const struct pg_run *sources,
			const char *title, const char *path)
{
	struct pg_xmlw x;

	if (pg_xmlw_init(&x, path, false, ascii_lines))
		return -ENOMEM;
	write_doc(&x, f, sources, title);
	return pg_xmlw_finish(&x, path, "flame graph");
}

/* ---- the flame graphs of runs ---- */

int pg_flamegraph_write_run(const struct pg_run *run, long rep, bool offcpu, const char *title,
			    const char *path)
{
	struct pg_flame fl;
	char cmd[256];
	int err;

	pg_flame_init(&fl);
	err = pg_flame_build(run, rep, &fl);
	if (err) {
		pg_err("cannot build the flame graph: out of memory");
		goto out;
	}
	fl.offcpu = offcpu;
	if (!title) {
		snprintf(cmd, sizeof(cmd), "%s%s", offcpu ? "off-CPU time: " : "",
			 run->meta.argc ? run->meta.argv[0] : "perfgate");
		for (size_t i = 1; i < run->meta.argc && strlen(cmd) < 200; i++)
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
				 run->meta.argv[i]);
		title = cmd;
	}
	err = pg_flamegraph_write(&fl, run, title, path);
out:
	pg_flame_release(&fl);
	return err;
}

static int write_diff(const struct pg_run *base, const struct pg_run *new,
		      const struct pg_comparison *cmp, enum pg_flame_metric metric, double alpha,
		      bool offcpu, const char *what, const char *path)
{
	const char *kind = offcpu ? "off-CPU " : "";
	struct pg_flame fl;
	char why[256] = "", title[256];
	int err;

	pg_flame_init(&fl);
	err = pg_flame_diff_exact(base, new, metric, alpha, cmp, &fl, why, sizeof(why));
	if (err) {
		pg_err("%s%s: %s", what, path, err == -EINVAL && why[0] ? why : "out of memory");
		goto out;
	}
	fl.offcpu = offcpu;
	if (base->meta.git_commit && new->meta.git_commit &&
	    strcmp(base->meta.git_commit, new->meta.git_commit))
		snprintf(title, sizeof(title), "perfgate: %sBASE %.12s -> NEW %.12s",
			 offcpu ? "off-CPU time, " : "", base->meta.git_commit,
			 new->meta.git_commit);
	else
		snprintf(title, sizeof(title), "perfgate: differential %sflame graph (BASE -> NEW)",
			 kind);
	err = pg_flamegraph_write(&fl, new, title, path);
out:
	pg_flame_release(&fl);
	return err;
}

int pg_flamegraph_write_diff(const struct pg_run *base, const struct pg_run *new,
			     const struct pg_comparison *cmp, enum pg_flame_metric metric,
			     double alpha, const char *path)
{
	return write_diff(base, new, cmp, metric, alpha, false, "--flamegraph ", path);
}

int pg_flamegraph_write_profiles(const struct pg_run *base, const struct pg_run *new,
				 enum pg_flame_metric metric, double alpha, bool offcpu,
				 const char *path)
{
	return write_diff(base, new, NULL, metric, alpha, offcpu, "", path);
}
