// SPDX-License-Identifier: MIT
/*
 * perfgate history: a store of sessions over commits (history/store.h), their change points
 * (history/analysis.h) and new sessions checked against them. bpftool style: a table of
 * subcommands, each its own handler; plot is in cli/history_plot.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/log.h"
#include "../formats/runfile.h"
#include "../history/alerted.h"
#include "../history/analysis.h"
#include "../history/changes_report.h"
#include "cli.h"

static const char history_usage[] =
	"usage: perfgate history COMMAND [options]\n"
	"\n"
	"  add RUN.json [--db DB] [--commit SHA] [--branch NAME] [--time ISO8601]\n"
	"          [--expect-generation N]\n"
	"          store a run as one session (commit, branch and time default to the run's)\n"
	"  changes [--db DB] [--branch NAME] [--function GLOB] [--metric M] [--json FILE]\n"
	"          [--markdown FILE] [--alert-new]\n"
	"          change points per function and for the whole program; exit 1 when the\n"
	"          newest session starts a regression (--alert-new: when one is new)\n"
	"  check NEW.json [--db DB] [--branch NAME] [--until COMMIT] [compare options]\n"
	"          compare a new run with the stored sessions since the last change point;\n"
	"          exit and outputs as perfgate compare\n"
	"  plot FUNC... -o FILE.svg|FILE.html [--db DB] [--branch NAME] [--metric M]\n"
	"          one point per session with its interval, change points marked\n"
	"  prune --keep N|--older-than DAYS|--before ISO8601 [--db DB] [--branch NAME]\n"
	"          remove old sessions, every row of them, in one transaction\n"
	"  last [--db DB] [--branch NAME]\n"
	"          the database's generation and newest session, as NAME=VALUE lines\n"
	"\n"
	"DB: a SQLite file (default " PG_HSTORE_DEFAULT ") or a postgresql:// URI.\n"
	"'perfgate history COMMAND --help' describes a command's options; docs/history.md the\n"
	"method. Exit status: 0 pass, 1 regression, 2 perfgate could not do its job.\n";

int pg_history_time(const char *s, char *out, size_t len)
{
	struct tm tm = { 0 };
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	long off = 0;
	time_t t;

	if (p && *p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (p && (*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		int h, m;

		if (sscanf(p + 1, "%2d:%2d", &h, &m) != 2 || h > 23 || m > 59)
			p = NULL;
		else
			off = (*p == '-' ? -1 : 1) * (h * 3600L + m * 60L);
		p = p ? p + 6 : NULL;
	} else if (p && *p == 'Z') {
		p++;
	}
	if (!p || *p) {
		pg_err("invalid time '%s': expected ISO 8601, 2026-11-21T10:22:22Z", s);
		return -EINVAL;
	}
	t = timegm(&tm) - off;
	if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return -EINVAL;
	return 0;
}

enum { OPT_COMMIT = PG_HOPT_FIRST_FREE, OPT_TIME, OPT_FUNCTION, OPT_UNTIL, OPT_MAXP, OPT_EXPECT,
       OPT_WAIT, OPT_MARKDOWN, OPT_ALERT_NEW };

void pg_history_args_init(struct pg_history_args *h)
{
	h->db = PG_HSTORE_DEFAULT;
	h->branch = NULL;
	h->metric = PG_HM_SELF;
	h->min_effect = 0.05;
}

/* compare's metric as the history's series */
static const int hmetric_of[] = { [PG_METRIC_SELF] = PG_HM_SELF, [PG_METRIC_TOTAL] = PG_HM_TOTAL,
				  [PG_METRIC_CPU] = PG_HM_CPU };

int pg_history_args_opt(struct pg_history_args *h, int c, const char *arg)
{
	struct pg_compare_args a;
	int ret;

	switch (c) {
	case PG_HOPT_DB:
		h->db = arg;
		return 0;
	case PG_HOPT_BRANCH:
		h->branch = arg;
		return 0;
	case PG_COPT_METRIC:
	case PG_COPT_MIN_EFFECT:
		/* as compare reads them */
		pg_compare_args_init(&a);
		ret = pg_compare_args_opt(&a, c, arg);
		h->metric = c == PG_COPT_METRIC ? hmetric_of[a.opts.metric] : h->metric;
		h->min_effect = c == PG_COPT_MIN_EFFECT ? a.opts.min_effect : h->min_effect;
		pg_compare_args_release(&a);
		return ret ? -1 : 0;
	}
	return 1;
}

static const char add_usage[] =
	"usage: perfgate history add RUN.json [options]\n"
	"\n"
	"Store RUN.json as one session of the history: per function and repetition the values\n"
	"compare tests (self, total and on-CPU time per call, calls), and the program's wall\n"
	"and CPU time per repetition. One transaction: an interrupted add stores nothing.\n"
	"\n"
	"  --db DB         SQLite file (default " PG_HSTORE_DEFAULT ", created if missing) or\n"
	"                  postgresql://... URI\n"
	"  --commit SHA    the session's commit (default: the run's)\n"
	"  --branch NAME   its branch (default: none)\n"
	"  --time ISO8601  its time, which orders sessions (default: the run's start)\n"
	"  --expect-generation N  add only if the database is still at generation N (what\n"
	"                  history last printed before): else exit 2, nothing added\n"
	"  --wait SECONDS  wait this long for another writer's lock (default 60); then exit 2\n";

static int do_add(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_HISTORY_LONGOPTS,
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "expect-generation", required_argument, NULL, OPT_EXPECT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *commit = NULL, *when = NULL;
	struct pg_history_args h;
	struct pg_hstore *store = NULL;
	struct pg_hrecord rec;
	struct pg_run run;
	char utc[32];
	int64_t id, expect = -1;
	int c, ret = PG_EXIT_ERROR, wait_ms = PG_HSTORE_WAIT_MS;

	pg_run_init(&run);
	pg_hrecord_init(&rec);
	pg_history_args_init(&h);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(add_usage, stdout);
			return PG_EXIT_OK;
		} else if (c == OPT_COMMIT) {
			commit = optarg;
		} else if (c == OPT_TIME) {
			when = optarg;
		} else if (c == OPT_EXPECT) {
			if (pg_history_parse_generation(optarg, &expect))
				return PG_EXIT_ERROR;
		} else if (c == OPT_WAIT) {
			if (pg_history_parse_wait(optarg, &wait_ms))
				return PG_EXIT_ERROR;
		} else if (c == '?' || pg_history_args_opt(&h, c, optarg)) {
			fputs(add_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (argc - optind != 1) {
		pg_err("history add: expected one run file");
		fputs(add_usage, stderr);
		return PG_EXIT_ERROR;
	}
	if (pg_runfile_read(argv[optind], &run))
		goto out;
	when = when ? when : run.meta.start_time;
	if (!when) {
		pg_err("history add: %s has no start time; give one with --time", argv[optind]);
		goto out;
	}
	if (pg_history_time(when, utc, sizeof(utc)) ||
	    pg_hrecord_from_run(&rec, &run, commit, h.branch, utc))
		goto out;
	store = pg_hstore_open_wait(h.db, true, wait_ms);
	if (!store || pg_hstore_add_expect(store, &rec, expect, &id))
		goto out;
	pg_info("history: session %lld (commit %.12s, %zu objects) added to %s", (long long)id,
		rec.commit ? rec.commit : "?", rec.nobjects, h.db);
	ret = PG_EXIT_OK;
out:
	pg_hstore_close(store);
	pg_hrecord_release(&rec);
	pg_run_release(&run);
	return ret;
}

static const char changes_usage[] =
	"usage: perfgate history changes [options]\n"
	"\n"
	"Change points of each function's per-session median and of the program's wall time:\n"
	"E-divisive means with a permutation test, in windows, then merged with a t-test\n"
	"(docs/history.md). Each is listed with the commit after which it changed, the change\n"
	"and its 95% interval.\n"
	"\n"
	"  --db DB          SQLite file (default " PG_HSTORE_DEFAULT ") or postgresql:// URI\n"
	"  --branch NAME    the sessions of this branch only (default: all)\n"
	"  --function GLOB  the functions whose name matches (default: all)\n"
	"  --metric self|total|cpu  per-call self time (default), inclusive, on-CPU\n"
	"  --min-effect PCT smallest change reported (default 5)\n"
	"  --max-p P        significance of a change point (default 0.01)\n"
	"  --json FILE      write the change points as JSON\n"
	"  --markdown FILE  write the newest 20 as a Markdown summary (function, object,\n"
	"                   commit, change), for a CI job's summary page, with a trend chart\n"
	"                   (Mermaid) of each that alerts\n"
	"  --alert-new      alert on the regressions that no earlier --alert-new of this\n"
	"                   branch alerted on (recorded in the database), wherever they start:\n"
	"                   one found a session or two after its commit alerts once\n"
	"\n"
	"Exit status: 1 when a change point alerts: a regression that starts at the newest\n"
	"session's commit (several sessions of it make one detectable), or with --alert-new a\n"
	"new one; 0 otherwise, 2 on error. Those that alert get a sparkline after the table.\n";

/* With --alert-new: the fresh change points of sets[0..2) marked in fresh[] (recorded). */
static int alert_new(struct pg_hstore *store, const char *branch, struct pg_hchanges *sets,
		     bool **fresh)
{
	size_t k;

	for (size_t s = 0; s < 2; s++) {
		fresh[s] = calloc(sets[s].n + 1, sizeof(**fresh));
		if (!fresh[s]) {
			pg_err("history changes: out of memory");
			return -ENOMEM;
		}
		sets[s].fresh = fresh[s];
	}
	return pg_halerted_mark(store, branch, sets, 2, fresh, &k);
}

static int changes_run(struct pg_hstore *store, const char *branch, const char *glob,
		       int metric, const struct pg_cp_opts *o, const char *json, const char *md,
		       bool alert)
{
	struct pg_hmatrix m[2];
	struct pg_hchanges sets[2] = { { &m[0], NULL, 0, NULL }, { &m[1], NULL, 0, NULL } };
	struct pg_hchange *c[2] = { NULL, NULL };
	bool *fresh[2] = { NULL, NULL };
	int ret = PG_EXIT_ERROR;

	memset(m, 0, sizeof(m));
	/* all functions: resumed from the last scan's cache (and caching this one) */
	if (pg_hmatrix_load(&m[0], store, branch, metric, NULL, 0) ||
	    pg_hmatrix_load(&m[1], store, branch, PG_HM_WALL, NULL, 0) ||
	    (glob ? pg_hmatrix_changes(&m[0], o, glob, NULL, NULL, &c[0], &sets[0].n) :
		    pg_hmatrix_changes_cached(&m[0], store, branch, o, &c[0], &sets[0].n)) ||
	    pg_hmatrix_changes_cached(&m[1], store, branch, o, &c[1], &sets[1].n))
		goto out;
	sets[0].c = c[0];
	sets[1].c = c[1];
	if (alert && alert_new(store, branch, sets, fresh))
		goto out;
	if ((json && pg_hchanges_write_json(sets, 2, o, store, json)) ||
	    (md && pg_hchanges_write_markdown(sets, 2, 20, md)))
		goto out;
	if (pg_hchanges_print(sets, 2, stdout) || pg_hchanges_print_env(sets, 2, store, stdout) ||
	    fflush(stdout)) {
		pg_err("history changes: cannot write the table");
		goto out;
	}
	ret = pg_hchanges_alerts(sets, 2) ? PG_EXIT_REGRESSION : PG_EXIT_OK;
out:
	free(fresh[0]);
	free(fresh[1]);
	free(c[0]);
	free(c[1]);
	pg_hmatrix_release(&m[0]);
	pg_hmatrix_release(&m[1]);
	return ret;
}

static int do_changes(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_HISTORY_LONGOPTS,
		{ "function", required_argument, NULL, OPT_FUNCTION },
		{ "metric", required_argument, NULL, PG_COPT_METRIC },
		{ "min-effect", required_argument, NULL, PG_COPT_MIN_EFFECT },
		{ "max-p", required_argument, NULL, OPT_MAXP },
		{ "json", required_argument, NULL, PG_COPT_JSON },
		{ "markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "alert-new", no_argument, NULL, OPT_ALERT_NEW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_cp_opts o = PG_CP_OPTS_DEFAULT;
	bool alert = false;
	const char *glob = NULL, *json = NULL, *md = NULL;
	struct pg_history_args h;
	struct pg_hstore *store;
	int c, ret;

	pg_history_args_init(&h);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(changes_usage, stdout);
			return PG_EXIT_OK;
		} else if (c == OPT_FUNCTION) {
			glob = optarg;
		} else if (c == PG_COPT_JSON) {
			json = optarg;
		} else if (c == OPT_MARKDOWN) {
			md = optarg;
		} else if (c == OPT_ALERT_NEW) {
			alert = true;
		} else if (c == OPT_MAXP) {
			if (pg_parse_double("--max-p", optarg, 1e-6, 0.5, &o.max_p))
				return PG_EXIT_ERROR;
		} else if (c == '?' || pg_history_args_opt(&h, c, optarg)) {
			fputs(changes_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (optind != argc) {
		pg_err("history changes: unexpected argument '%s'", argv[optind]);
		return PG_EXIT_ERROR;
	}
	o.min_magnitude = h.min_effect;
	store = pg_hstore_open(h.db, false);
	if (!store)
		return PG_EXIT_ERROR;
	ret = changes_run(store, h.branch, glob, h.metric, &o, json, md, alert);
	pg_hstore_close(store);
	return ret;
}

static const char check_usage[] =
	"usage: perfgate history check NEW.json [options] [compare options]\n"
	"\n"
	"Compare a new run with the stored sessions: per function, the sessions since its last\n"
	"change point at or before --until. The session is the unit: the new session's median\n"
	"against the spread of the baseline sessions' medians (a t prediction interval,\n"
	"docs/history.md), Benjamini-Hochberg over the functions, compare's verdicts.\n"
	"\n"
	"  --db DB          SQLite file (default " PG_HSTORE_DEFAULT ") or postgresql:// URI\n"
	"  --branch NAME    the sessions of this branch only (default: all)\n"
	"  --until COMMIT   the newest session of the baseline: the last of this commit\n"
	"                   (a prefix will do; default: the newest session)\n"
	"  compare options: --alpha, --min-effect, --min-impact, --metric, --min-reps,\n"
	"                   --junit, --codequality, --repo-root, --json, --markdown,\n"
	"                   --artifact, --all, --strict (see\n"
	"                   perfgate compare --help; the stored times are compensated for\n"
	"                   probe overhead and hold no profile: --raw,\n"
	"                   --no-speed-correction, --flamegraph, --flame-color and\n"
	"                   --keep-probe-frames are refused)\n"
	"\n"
	"Exit status: 0 no regression, 1 regression, 2 error (or inconclusive with --strict).\n";

/* The baseline's side of the outputs: its newest session's command, host and commit. */
static int base_meta(struct pg_run *base, const struct pg_hsession *s)
{
	char *words = strdup(s->command), *save = NULL;

	base->meta.argv = calloc(strlen(s->command) / 2 + 2, sizeof(char *));
	if (!words || !base->meta.argv) {
		free(words);
		return -ENOMEM;
	}
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!(base->meta.argv[base->meta.argc++] = strdup(w)))
			goto nomem;
	free(words);
	words = NULL;
	base->meta.host = strdup(s->host);
	base->meta.git_commit = s->commit ? strdup(s->commit) : NULL;
	base->meta.start_time = strdup(s->time);
	if (base->meta.host && base->meta.start_time && (!s->commit || base->meta.git_commit))
		return 0;
nomem:
	free(words);
	return -ENOMEM;
}

static int check_run(struct pg_compare_args *a, struct pg_hstore *store, const char *branch,
		     const char *until, struct pg_run *new, const struct pg_hrecord *rec)
{
	const struct pg_cp_opts cpo = PG_CP_OPTS_DEFAULT;
	struct pg_hbaseline hb;
	struct pg_comparison cmp;
	struct pg_run base;
	int ret = PG_EXIT_ERROR, metric = hmetric_of[a->opts.metric];

	pg_run_init(&base);
	pg_comparison_init(&cmp);
	if (pg_hbaseline_load(&hb, store, branch, metric, until) ||
	    pg_hcheck(&hb, rec, metric, &cpo, &a->opts, &cmp))
		goto out;
	/* each session's values were compensated with its own calibration */
	cmp.compensated = new->calib.valid;
	if (base_meta(&base, &hb.m.sessions[hb.m.nsessions - 1])) {
		pg_err("history check: out of memory");
		goto out;
	}
	ret = pg_compare_args_emit(a, &cmp, &base, new);
out:
	pg_hbaseline_release(&hb);
	pg_comparison_release(&cmp);
	pg_run_release(&base);
	return ret;
}

static int do_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_COMPARE_LONGOPTS,
		PG_HISTORY_LONGOPTS,
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *until = NULL;
	struct pg_history_args h;
	struct pg_hstore *store = NULL;
	struct pg_compare_args a;
	struct pg_hrecord rec;
	struct pg_run new;
	int c, ret = PG_EXIT_ERROR;

	pg_run_init(&new);
	pg_hrecord_init(&rec);
	pg_compare_args_init(&a);
	pg_history_args_init(&h);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(check_usage, stdout);
			ret = PG_EXIT_OK;
			goto out;
		} else if (c == PG_HOPT_DB || c == PG_HOPT_BRANCH) {
			pg_history_args_opt(&h, c, optarg);
		} else if (c == OPT_UNTIL) {
			until = optarg;
		} else if (c == PG_COPT_FLAMEGRAPH || c == PG_COPT_FLAME_COLOR ||
			   c == PG_COPT_KEEP_PROBES || c == PG_COPT_NO_SPEED || c == PG_COPT_RAW) {
			pg_err("history check: %s is for two runs (perfgate compare)",
			       argv[optind - 1]);
			goto out;
		} else if (pg_compare_args_opt(&a, c, optarg)) {
			fputs(check_usage, stderr);
			goto out;
		}
	}
	if (argc - optind != 1) {
		pg_err("history check: expected one run file, NEW.json");
		fputs(check_usage, stderr);
		goto out;
	}
	if (pg_runfile_read(argv[optind], &new) ||
	    pg_hrecord_from_run(&rec, &new, NULL, h.branch, new.meta.start_time ?
				new.meta.start_time : "1970-01-01T00:00:00Z"))
		goto out;
	store = pg_hstore_open(h.db, false);
	if (store)
		ret = check_run(&a, store, h.branch, until, &new, &rec);
out:
	pg_hstore_close(store);
	pg_hrecord_release(&rec);
	pg_compare_args_release(&a);
	pg_run_release(&new);
	return ret;
}

static int do_help(int argc, char **argv)
{
	fputs(history_usage, stdout);
	return PG_EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} history_cmds[] = {
	{ "add", do_add },
	{ "changes", do_changes },
	{ "check", do_check },
	{ "plot", pg_history_plot },
	{ "prune", pg_history_prune },
	{ "last", pg_history_last },
	{ "help", do_help },
	{ "--help", do_help },
	{ "-h", do_help },
};

int do_history(int argc, char **argv)
{
	if (argc < 2) {
		fputs(history_usage, stderr);
		return PG_EXIT_ERROR;
	}
	for (size_t i = 0; i < sizeof(history_cmds) / sizeof(history_cmds[0]); i++)
		if (!strcmp(argv[1], history_cmds[i].name))
			return history_cmds[i].fn(argc - 1, argv + 1);
	pg_err("history: unknown command '%s' (perfgate history help lists them)", argv[1]);
	return PG_EXIT_ERROR;
}
