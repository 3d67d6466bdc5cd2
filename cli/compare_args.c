// SPDX-License-Identifier: MIT
/*
 * cli/compare_args.c - the comparison options and outputs perfgate compare (cmd_compare.c)
 * and perfgate ab (cmd_ab.c) share: everything after the comparison itself (see cli.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/log.h"
#include "../diff/compare.h"
#include "../diff/paired.h"
#include "../formats/result.h"
#include "../reporters/compare_out.h"
#include "cli.h"

/* A percentage in [0, @max], "5" or "5%". */
static int parse_pct(const char *opt, const char *arg, double max, double *out)
{
	char buf[64];
	size_t len = strlen(arg);

	snprintf(buf, sizeof(buf), "%s", arg);
	if (len && len < sizeof(buf) && buf[len - 1] == '%')
		buf[len - 1] = '\0';
	return pg_parse_double(opt, buf, 0, max, out);
}

void pg_compare_args_init(struct pg_compare_args *a)
{
	const struct pg_compare_opts defaults = PG_COMPARE_OPTS_DEFAULT;

	memset(a, 0, sizeof(*a));
	a->opts = defaults;
	a->flame_metric = PG_FLAME_SELF;
	pg_ci_out_init(&a->ci);
}

void pg_compare_args_release(struct pg_compare_args *a)
{
	pg_ci_out_release(&a->ci);
}

void pg_compare_args_paired(struct pg_compare_args *a)
{
	if (!a->min_effect_given)
		a->opts.min_effect = PG_MIN_EFFECT_PAIRED;
	if (!a->min_impact_given)
		a->opts.min_impact = PG_MIN_IMPACT_PAIRED;
	a->opts.commands_differ_ok = true;	/* two builds by design */
}

int pg_compare_args_opt(struct pg_compare_args *a, int c, const char *arg)
{
	double pct;

	switch (c) {
	case PG_COPT_ALPHA:
		return pg_parse_double("--alpha", arg, 1e-9, 0.5, &a->opts.alpha) ? -1 : 0;
	case PG_COPT_MIN_EFFECT:
		if (parse_pct("--min-effect", arg, 1000, &pct))
			return -1;
		a->opts.min_effect = pct / 100.0;
		a->min_effect_given = true;
		return 0;
	case PG_COPT_MIN_IMPACT:
		if (parse_pct("--min-impact", arg, 100, &pct))
			return -1;
		a->opts.min_impact = pct / 100.0;
		a->min_impact_given = true;
		return 0;
	case PG_COPT_METRIC:
		if (!strcmp(arg, "self")) {
			a->opts.metric = PG_METRIC_SELF;
		} else if (!strcmp(arg, "total")) {
			a->opts.metric = PG_METRIC_TOTAL;
		} else if (!strcmp(arg, "cpu")) {
			a->opts.metric = PG_METRIC_CPU;
		} else {
			pg_err("invalid --metric '%s': expected self, total or cpu", arg);
			return -1;
		}
		return 0;
	case PG_COPT_MIN_REPS:
		return pg_parse_u32("--min-reps", arg, 2, 1000000, &a->opts.min_reps) ? -1 : 0;
	case PG_COPT_JUNIT:
		a->junit = arg;
		return 0;
	case PG_COPT_CODEQUALITY:
		a->codequality = arg;
		/* the summary names it with the other artifacts */
		return pg_ci_out_artifact(&a->ci, arg) ? -1 : 0;
	case PG_COPT_REPO_ROOT:
		a->repo_root = arg;
		return 0;
	case PG_COPT_FLAMEGRAPH:
		a->flame = arg;
		/* the summary names it with the other artifacts */
		return pg_ci_out_artifact(&a->ci, arg) ? -1 : 0;
	case PG_COPT_FLAME_COLOR:
		if (!strcmp(arg, "self")) {
			a->flame_metric = PG_FLAME_SELF;
		} else if (!strcmp(arg, "inclusive")) {
			a->flame_metric = PG_FLAME_INCLUSIVE;
		} else {
			pg_err("invalid --flame-color '%s': expected self or inclusive", arg);
			return -1;
		}
		return 0;
	case PG_COPT_KEEP_PROBES:
		a->keep_probes = true;
		return 0;
	case PG_COPT_JSON:
		a->json = arg;
		return 0;
	case PG_COPT_MARKDOWN:
		a->markdown = arg;
		return 0;
	case PG_COPT_ARTIFACT:
		return pg_ci_out_artifact(&a->ci, arg) ? -1 : 0;
	case PG_COPT_ALL:
		a->all = true;
		return 0;
	case PG_COPT_STRICT:
		a->strict = true;
		return 0;
	case PG_COPT_RAW:
		a->opts.raw = true;
		return 0;
	case PG_COPT_NO_SPEED:
		a->opts.no_speed = true;
		return 0;
	}
	return 1;
}

char *pg_repo_root(const char *given)
{
	static const char *const envs[] = { "GITHUB_WORKSPACE", "CI_PROJECT_DIR" };
	char line[4096] = "", *dir = NULL;
	FILE *p;

	if (given)
		return realpath(given, NULL) ?: strdup(given);
	p = popen("git rev-parse --show-toplevel 2>/dev/null", "r");
	if (p) {
		if (!fgets(line, sizeof(line), p))
			line[0] = 0;
		line[strcspn(line, "\n")] = 0;
		if (pclose(p))
			line[0] = 0;
	}
	if (line[0])
		dir = realpath(line, NULL);
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]) && !dir; i++) {
		const char *ws = getenv(envs[i]);

		if (ws && *ws)
			dir = realpath(ws, NULL);
	}
	return dir ?: getcwd(NULL, 0);
}

/* The reports that point at source lines: JUnit and Code Quality. 0 or -1 (logged). */
static int write_source_reports(const struct pg_compare_args *a, const struct pg_comparison *cmp,
				const struct pg_run *base, const struct pg_run *new)
{
	char *root;
	int err = 0;

	if (!a->junit && !a->codequality)
		return 0;
	root = pg_repo_root(a->repo_root);
	if (a->junit)
		err = pg_compare_write_junit(cmp, base, new, root, a->junit);
	if (!err && a->codequality)
		err = pg_compare_write_codequality(cmp, root, a->codequality);
	free(root);
	return err ? -1 : 0;
}

int pg_compare_args_emit(struct pg_compare_args *a, const struct pg_comparison *cmp,
			 struct pg_run *base, struct pg_run *new)
{
	int ret;

	for (size_t i = 0; i < cmp->nwarnings; i++)
		pg_warn("%s", cmp->warnings[i]);
	if (write_source_reports(a, cmp, base, new))
		return PG_EXIT_ERROR;
	if (a->json && pg_result_write(cmp, base, new, a->json))
		return PG_EXIT_ERROR;
	if (a->flame && !a->keep_probes && (pg_profile_fold_probes(base, "--flamegraph") ||
					    pg_profile_fold_probes(new, "--flamegraph")))
		return PG_EXIT_ERROR;
	if (a->flame && pg_flamegraph_write_diff(base, new, cmp, a->flame_metric, a->opts.alpha,
						 a->flame))
		return PG_EXIT_ERROR;
	if (pg_ci_out_write(&a->ci, cmp, base, new, a->junit, a->json, a->markdown))
		return PG_EXIT_ERROR;
	if (pg_compare_write_text(cmp, base, new, a->all, stdout) || fflush(stdout)) {
		pg_err("cannot write the comparison");
		return PG_EXIT_ERROR;
	}
	if (pg_ci_out_annotate(&a->ci, cmp))
		return PG_EXIT_ERROR;
	switch (cmp->overall) {
	case PG_OVERALL_REGRESSION:
		ret = PG_EXIT_REGRESSION;
		break;
	case PG_OVERALL_INCONCLUSIVE:
		ret = a->strict ? PG_EXIT_ERROR : PG_EXIT_OK;
		break;
	default:
		ret = PG_EXIT_OK;
	}
	/* runs of different commands are compared (warned above), but judged only when asked */
	if (cmp->commands_differ && (a->strict || !pg_comparison_matched(cmp))) {
		pg_err("compare: the runs are of different commands%s",
		       a->strict ? " (--strict)" : " and no function was called in both");
		ret = PG_EXIT_ERROR;
	}
	return ret;
}
