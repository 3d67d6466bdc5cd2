// SPDX-License-Identifier: MIT
/*
 * perfgate history plot: the options, then each matching function's sessions from the store
 * (history/analysis.h) drawn by reporters/trend.h.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "../diff/hcheck.h"
#include "../diff/repvalues.h"
#include "../history/analysis.h"
#include "../reporters/trend.h"
#include "cli.h"

/* At most this many panels in one plot */
#define MAX_PANELS 24

static const char plot_usage[] =
	"usage: perfgate history plot FUNC... -o FILE.svg|FILE.html [options]\n"
	"\n"
	"Plot each function matching a FUNC (a glob on its name; '[program]' for the whole\n"
	"program's wall time): one point per session, its median with the 95% interval of the\n"
	"median over its repetitions, change points as red dashed lines (as history changes\n"
	"finds them), the commit, time and value on hover. FILE.html: an HTML page; else SVG.\n"
	"\n"
	"  -o, --output FILE  the plot\n"
	"  --db DB          SQLite file (default " PG_HSTORE_DEFAULT ") or postgresql:// URI\n"
	"  --branch NAME    the sessions of this branch only (default: all)\n"
	"  --metric self|total|cpu  per-call self time (default), inclusive, on-CPU\n"
	"  --min-effect PCT smallest change point marked (default 5)\n";

/* one panel's storage */
struct panel {
	struct pg_trend t;
	struct pg_trend_point *p;
	struct pg_trend_change *c;
	char title[512];
};

static int points(struct pg_hstore *store, const struct pg_hmatrix *m, size_t o,
		  struct panel *pn, double *x)
{
	int metric = m->metric;

	pn->p = calloc(m->nsessions + 1, sizeof(*pn->p));
	if (!pn->p)
		return -ENOMEM;
	for (size_t s = 0; s < m->nsessions; s++) {
		struct pg_trend_point *p = &pn->p[pn->t.n];
		double v = m->v[o * m->nsessions + s], *vals;
		size_t n;
		int err;

		if (!(v >= 0 && isfinite(v)))
			continue;
		v = v > PG_MIN_NS ? v : PG_MIN_NS;
		err = pg_hstore_series(store, m->sessions[s].id, m->ids[o], metric, &vals, &n);
		if (err)
			return err;
		p->lo = p->hi = NAN;
		if (n && pg_median_interval(vals, n, PG_MEDIAN_INTERVAL_ALPHA, &p->lo, &p->hi))
			err = -ENOMEM;
		free(vals);
		if (err)
			return err;
		p->commit = m->sessions[s].commit;
		p->time = m->sessions[s].time;
		p->value = v;
		x[pn->t.n++] = v;
	}
	return 0;
}

static int panel(struct pg_hstore *store, const struct pg_hmatrix *m, size_t o,
		 const struct pg_cp_opts *cpo, struct panel *pn)
{
	const struct pg_hobject *ob = &m->objects[o];
	double *x = malloc((m->nsessions + 1) * sizeof(*x));
	struct pg_cp *cps = NULL;
	size_t ncps = 0;
	int err = x ? points(store, m, o, pn, x) : -ENOMEM;

	if (!err && pn->t.n >= PG_CP_MIN_POINTS)
		err = pg_changepoints(x, pn->t.n, cpo, &cps, &ncps);
	pn->c = calloc(ncps + 1, sizeof(*pn->c));
	if (!err && !pn->c)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < ncps; i++)
		pn->c[i] = (struct pg_trend_change){ cps[i].index, cps[i].change, cps[i].ci_lo,
						     cps[i].ci_hi };
	pn->t.nchanges = ncps;
	snprintf(pn->title, sizeof(pn->title), "%s (%s) - %s, median per session", ob->display,
		 ob->binary, strcmp(ob->name, PG_HPROGRAM) ? pg_hmetric_name(m->metric) :
		 "wall time per run");
	pn->t.title = pn->title;
	pn->t.unit = "ns";
	pn->t.p = pn->p;
	pn->t.changes = pn->c;
	free(cps);
	free(x);
	return err;
}

/* The panels of the objects of @m matching @glob (the program's with "[program]"). */
static int add_panels(struct pg_hstore *store, const struct pg_hmatrix *m, const char *glob,
		      const struct pg_cp_opts *cpo, struct panel *pn, size_t *n)
{
	bool program = !strcmp(glob, PG_HPROGRAM);
	size_t found = 0;
	int err = 0;

	for (size_t o = 0; !err && o < m->nobjects && *n < MAX_PANELS; o++) {
		const struct pg_hobject *ob = &m->objects[o];

		if (program ? strcmp(ob->name, PG_HPROGRAM) :
			      fnmatch(glob, ob->display, 0) && fnmatch(glob, ob->name, 0))
			continue;
		err = panel(store, m, o, cpo, &pn[*n]);
		if (!err && !pn[*n].t.n) {
			free(pn[*n].p);
			free(pn[*n].c);
			memset(&pn[*n], 0, sizeof(pn[*n]));
		} else if (!err) {
			found++;
			(*n)++;
		}
	}
	if (!err && !found) {
		pg_err("history plot: no stored session has a function matching '%s'", glob);
		err = -ENOENT;
	}
	return err;
}

static int plot(struct pg_hstore *store, const char *branch, int metric, double min_effect,
		char **funcs, size_t nfuncs, const char *out)
{
	struct pg_cp_opts cpo = PG_CP_OPTS_DEFAULT;
	struct pg_hmatrix m, wall;
	struct panel *pn = calloc(MAX_PANELS + 1, sizeof(*pn));
	size_t n = 0, len = strlen(out);
	int err = pn ? 0 : -ENOMEM;

	cpo.min_magnitude = min_effect;
	memset(&m, 0, sizeof(m));
	memset(&wall, 0, sizeof(wall));
	err = err ?: pg_hmatrix_load(&m, store, branch, metric, NULL, 0);
	err = err ?: pg_hmatrix_load(&wall, store, branch, PG_HM_WALL, NULL, 0);
	for (size_t i = 0; !err && i < nfuncs; i++)
		err = add_panels(store, strcmp(funcs[i], PG_HPROGRAM) ? &m : &wall, funcs[i],
				 &cpo, pn, &n);
	if (!err) {
		struct pg_trend t[MAX_PANELS];

		for (size_t i = 0; i < n; i++)
			t[i] = pn[i].t;
		err = pg_trend_write(t, n, out, len > 5 && (!strcmp(out + len - 5, ".html") ||
							    !strcmp(out + len - 4, ".htm")));
	}
	if (err == -ENOMEM)
		pg_err("history plot: out of memory");
	for (size_t i = 0; pn && i <= n && i < MAX_PANELS; i++) {
		free(pn[i].p);
		free(pn[i].c);
	}
	free(pn);
	pg_hmatrix_release(&m);
	pg_hmatrix_release(&wall);
	return err ? PG_EXIT_ERROR : PG_EXIT_OK;
}

int pg_history_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_HISTORY_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, PG_COPT_METRIC },
		{ "min-effect", required_argument, NULL, PG_COPT_MIN_EFFECT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_history_args h;
	struct pg_hstore *store;
	const char *out = NULL;
	int c, ret;

	pg_history_args_init(&h);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(plot_usage, stdout);
			return PG_EXIT_OK;
		} else if (c == 'o') {
			out = optarg;
		} else if (c == '?' || pg_history_args_opt(&h, c, optarg)) {
			fputs(plot_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (optind >= argc || !out) {
		pg_err("history plot: expected at least one FUNC and -o FILE");
		fputs(plot_usage, stderr);
		return PG_EXIT_ERROR;
	}
	store = pg_hstore_open(h.db, false);
	if (!store)
		return PG_EXIT_ERROR;
	ret = plot(store, h.branch, h.metric, h.min_effect, argv + optind,
		   (size_t)(argc - optind), out);
	pg_hstore_close(store);
	return ret;
}
