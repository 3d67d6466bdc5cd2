// SPDX-License-Identifier: MIT
/*
 * perfgate history prune and history last: keeping the store bounded, and what a publisher
 * reads before it writes (the database's generation and newest session; history/store.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/log.h"
#include "../history/store.h"
#include "cli.h"

enum { OPT_KEEP = PG_HOPT_FIRST_FREE, OPT_OLDER, OPT_BEFORE, OPT_DRY, OPT_EXPECT, OPT_WAIT };

static const char prune_usage[] =
	"usage: perfgate history prune --keep N|--older-than DAYS|--before ISO8601 [options]\n"
	"\n"
	"Remove old sessions, every row of them, in one transaction: a session goes when it is\n"
	"not one of its branch's newest N (--keep) and is older than the time limit (--older-than\n"
	"or --before); give one limit or both. Every branch alike, each counted alone. Objects no\n"
	"session holds any more go too, and the change points' cache (the next history changes\n"
	"scans from scratch). Prints what it removed.\n"
	"\n"
	"  --db DB          SQLite file (default " PG_HSTORE_DEFAULT ") or postgresql:// URI\n"
	"  --branch NAME    prune this branch only (default: every branch)\n"
	"  --keep N         keep each branch's newest N sessions\n"
	"  --older-than DAYS  remove sessions older than DAYS days (by their time)\n"
	"  --before ISO8601 remove sessions older than this time\n"
	"  --dry-run        print what would go, remove nothing\n"
	"  --expect-generation N  prune only if the database is at generation N (history last)\n"
	"  --wait SECONDS   wait this long for another writer's lock (default 60)\n";

/* The report: per branch, how many sessions went and the span of their times. */
static void prune_report(const struct pg_hpruned *r, const struct pg_hprune *p)
{
	const char *verb = p->dry_run ? "would remove" : "removed";

	for (size_t i = 0; i < r->nremoved; i++) {
		const char *b = r->removed[i].branch;
		size_t k = 0, last = i, j;

		/* each branch once, at its oldest removed session */
		for (j = 0; j < i && strcmp(r->removed[j].branch, b); j++)
			;
		if (j < i)
			continue;
		for (j = i; j < r->nremoved; j++) {
			if (!strcmp(r->removed[j].branch, b)) {
				k++;
				last = j;
			}
		}
		printf("branch %s: %s %zu session(s), %s .. %s\n", b[0] ? b : "\"\"", verb, k,
		       r->removed[i].time, r->removed[last].time);
	}
	printf("perfgate: %s %zu session(s) (%lld series rows) and %lld object(s) no session "
	       "holds; %zu session(s) kept\n", verb, r->nremoved, (long long)r->series_rows,
	       (long long)r->objects, r->kept);
}

int pg_history_parse_wait(const char *arg, int *ms)
{
	unsigned int s;

	if (pg_parse_u32("--wait", arg, 0, 86400, &s))
		return -EINVAL;
	*ms = (int)s * 1000;
	return 0;
}

int pg_history_parse_generation(const char *arg, int64_t *gen)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (!*arg || *end || v < 0) {
		pg_err("invalid --expect-generation '%s': expected a number (history last)", arg);
		return -EINVAL;
	}
	*gen = v;
	return 0;
}

/* --older-than DAYS as the ISO 8601 time that many days ago */
static int days_ago(const char *arg, char *out, size_t len)
{
	double days;
	time_t t;
	struct tm tm;

	if (pg_parse_double("--older-than", arg, 0, 1e6, &days))
		return -EINVAL;
	t = time(NULL) - (time_t)(days * 86400);
	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return 0;
}

int pg_history_prune(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_HISTORY_LONGOPTS,
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "older-than", required_argument, NULL, OPT_OLDER },
		{ "before", required_argument, NULL, OPT_BEFORE },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "expect-generation", required_argument, NULL, OPT_EXPECT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_hprune p = { 0 };
	struct pg_history_args h;
	struct pg_hpruned r;
	struct pg_hstore *store;
	char before[32];
	unsigned int keep;
	int64_t expect = -1;
	int c, wait_ms = PG_HSTORE_WAIT_MS, err = 0;

	pg_history_args_init(&h);
	optind = 1;
	while (!err && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(prune_usage, stdout);
			return PG_EXIT_OK;
		} else if (c == OPT_KEEP) {
			err = pg_parse_u32("--keep", optarg, 1, 1u << 30, &keep);
			p.keep = keep;
		} else if (c == OPT_OLDER || c == OPT_BEFORE) {
			if (p.before) {
				pg_err("history prune: --older-than and --before: give one");
				return PG_EXIT_ERROR;
			}
			err = c == OPT_OLDER ? days_ago(optarg, before, sizeof(before)) :
			      pg_history_time(optarg, before, sizeof(before));
			p.before = before;
		} else if (c == OPT_DRY) {
			p.dry_run = true;
		} else if (c == OPT_EXPECT) {
			err = pg_history_parse_generation(optarg, &expect);
		} else if (c == OPT_WAIT) {
			err = pg_history_parse_wait(optarg, &wait_ms);
		} else if (c == '?' || pg_history_args_opt(&h, c, optarg)) {
			fputs(prune_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (err)
		return PG_EXIT_ERROR;
	if (optind != argc || (!p.keep && !p.before)) {
		pg_err("history prune: %s", optind != argc ? "unexpected argument" :
		       "give --keep N, --older-than DAYS or --before TIME");
		fputs(prune_usage, stderr);
		return PG_EXIT_ERROR;
	}
	p.branch = h.branch;
	store = pg_hstore_open_wait(h.db, false, wait_ms);
	if (!store || pg_hstore_prune(store, &p, expect, &r)) {
		pg_hstore_close(store);
		return PG_EXIT_ERROR;
	}
	pg_hstore_close(store);
	prune_report(&r, &p);
	pg_hpruned_release(&r);
	if (fflush(stdout)) {
		pg_err("history prune: cannot write the report");
		return PG_EXIT_ERROR;
	}
	return PG_EXIT_OK;
}

static const char last_usage[] =
	"usage: perfgate history last [options]\n"
	"\n"
	"Print what a publisher reads before it writes, as NAME=VALUE lines (the format of\n"
	"$GITHUB_OUTPUT and of a dotenv file): generation (the database's count of writes,\n"
	"for history add --expect-generation), sessions (of the branch), and the newest\n"
	"session's session (id), commit, branch and time (empty when there is none).\n"
	"\n"
	"  --db DB          SQLite file (default " PG_HSTORE_DEFAULT ") or postgresql:// URI\n"
	"  --branch NAME    the newest session of this branch (default: of all)\n";

int pg_history_last(int argc, char **argv)
{
	static const struct option longopts[] = {
		PG_HISTORY_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pg_history_args h;
	struct pg_hsession *v = NULL, *x;
	struct pg_hstore *store;
	int64_t gen;
	size_t n = 0;
	int c, err;

	pg_history_args_init(&h);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(last_usage, stdout);
			return PG_EXIT_OK;
		} else if (c == '?' || pg_history_args_opt(&h, c, optarg)) {
			fputs(last_usage, stderr);
			return PG_EXIT_ERROR;
		}
	}
	if (optind != argc) {
		pg_err("history last: unexpected argument '%s'", argv[optind]);
		return PG_EXIT_ERROR;
	}
	store = pg_hstore_open(h.db, false);
	err = store ? pg_hstore_generation(store, &gen) : -EIO;
	err = err ?: pg_hstore_sessions(store, h.branch, &v, &n);
	pg_hstore_close(store);
	if (err)
		return PG_EXIT_ERROR;
	x = n ? &v[n - 1] : NULL;
	printf("generation=%lld\nsessions=%zu\nsession=", (long long)gen, n);
	if (x)
		printf("%lld", (long long)x->id);
	printf("\ncommit=%s\nbranch=%s\ntime=%s\n", x && x->commit ? x->commit : "",
	       x ? x->branch : "", x ? x->time : "");
	pg_hsessions_free(v, n);
	if (fflush(stdout)) {
		pg_err("history last: cannot write");
		return PG_EXIT_ERROR;
	}
	return PG_EXIT_OK;
}
