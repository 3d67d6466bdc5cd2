// SPDX-License-Identifier: MIT
/*
 * cli/record_args.c - the recording options perfgate record (cmd_record.c) and perfgate ab
 * (cmd_ab.c) share: which functions, how they run, sampling (see cli.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../core/log.h"
#include "../core/strv.h"
#include "../formats/runfile.h"
#include "../runner/launch/gbench_run.h"
#include "../runner/profile/sampler.h"
#include "cli.h"

void pg_record_args_init(struct pg_record_args *a)
{
	memset(a, 0, sizeof(*a));
	a->o.repetitions = PG_DEFAULT_REPETITIONS;
	a->o.max_funcs = PG_DEFAULT_MAX_FUNCS;
	a->o.sample_hz = PG_DEFAULT_SAMPLE_HZ;
	a->o.auto_hz = true;
	pg_run_init(&a->of);
}

void pg_record_args_release(struct pg_record_args *a)
{
	pg_strv_free(a->o.filters, a->o.nfilters);
	pg_strv_free(a->o.excludes, a->o.nexcludes);
	a->o.filters = a->o.excludes = NULL;
	a->o.nfilters = a->o.nexcludes = 0;
	pg_run_release(&a->of);
}

int pg_record_args_opt(struct pg_record_args *a, int c, const char *arg)
{
	struct pg_record_opts *o = &a->o;
	double timeout;

	switch (c) {
	case 'r':
		return pg_parse_u32("-r", arg, 1, 100000, &o->repetitions) ? -1 : 0;
	case 'f':
	case 'x':
		if (c == 'f' ? pg_strv_push(&o->filters, &o->nfilters, arg) :
		    pg_strv_push(&o->excludes, &o->nexcludes, arg)) {
			pg_err("out of memory");
			return -1;
		}
		return 0;
	case PG_ROPT_MAX_FUNCS:
		a->max_funcs_set = true;
		return pg_parse_u32("--max-funcs", arg, 1, 1000000, &o->max_funcs) ? -1 : 0;
	case PG_ROPT_ALL_FUNCTIONS:
		a->all_functions = true;
		return 0;
	case PG_ROPT_BUDGET:
		return pg_parse_double("--budget", arg, 0.1, 1000, &o->budget_pct) ? -1 : 0;
	case PG_ROPT_FUNCTIONS_OF:
		a->of_path = arg;
		return 0;
	case PG_ROPT_ALLOW_FAILURE:
		o->allow_failure = true;
		return 0;
	case PG_ROPT_SINGLE_ATTACH:
		o->single_attach = true;
		return 0;
	case 'F':
		o->auto_hz = false;
		return pg_parse_u32("-F", arg, 1, PG_MAX_SAMPLE_HZ, &o->sample_hz) ? -1 : 0;
	case PG_ROPT_NO_SAMPLE:
		a->no_sample = true;
		return 0;
	case PG_ROPT_TIMEOUT:
		if (pg_parse_double("--timeout", arg, 0.001, 1e7, &timeout))
			return -1;
		o->timeout_ms = (uint64_t)(timeout * 1000 + 0.5);
		return 0;
	case PG_ROPT_USER:
		o->user = arg;
		return 0;
	case PG_ROPT_NO_EXCEPTION_FIX:
		o->no_exception_fix = true;
		return 0;
	case PG_ROPT_EXCEPTION_FIX:
		o->exception_fix = true;
		return 0;
	case PG_ROPT_NO_OFFCPU:
		o->no_offcpu = true;
		return 0;
	case PG_ROPT_OFFCPU_STACKS:
		o->offcpu_stacks = true;
		return 0;
	case PG_ROPT_GBENCH:
	case PG_ROPT_NO_GBENCH:
		o->gbench = c == PG_ROPT_GBENCH ? PG_GB_FORCE : PG_GB_OFF;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	}
	return 1;
}

/*
 * --functions-of: the baseline's sampling rate and off-CPU hooks unless given here, so that
 * the two runs' profiles and times are measured alike; said in one line.
 */
static void keep_recording_options(struct pg_record_args *a, const char *cmd)
{
	struct pg_record_opts *o = &a->o;
	const struct pg_meta *m = &a->of.meta;
	char hz[48] = "", off[48] = "";

	if (o->auto_hz && !a->no_sample && m->sample_hz != o->sample_hz) {
		o->sample_hz = m->sample_hz;
		o->auto_hz = false;
		if (m->sample_hz)
			snprintf(hz, sizeof(hz), "sampling at %u Hz", m->sample_hz);
		else
			snprintf(hz, sizeof(hz), "no sampled profile");
	}
	if (!m->offcpu && !o->no_offcpu) {
		o->no_offcpu = true;
		snprintf(off, sizeof(off), "no off-CPU hooks");
	}
	if ((hz[0] || off[0]) && !o->quiet)
		pg_info("%s: --functions-of %s: %s%s%s as it was recorded (-F, --no-sample and "
			"--no-offcpu set others)", cmd, a->of_path, hz, hz[0] && off[0] ? ", " : "",
			off);
}

int pg_record_args_finish(struct pg_record_args *a, const char *cmd)
{
	struct pg_record_opts *o = &a->o;

	if (a->no_sample)
		o->sample_hz = 0;
	if (a->of_path && (o->nfilters || o->nexcludes || o->budget_pct > 0)) {
		pg_err("%s: --functions-of takes the functions from %s; it does not combine "
		       "with -f, -x or --budget", cmd, a->of_path);
		return -1;
	}
	if (a->all_functions && (o->nfilters || a->of_path || o->budget_pct > 0)) {
		pg_err("%s: --all-functions traces every function; it does not combine with "
		       "-f, --functions-of or --budget", cmd);
		return -1;
	}
	/* the default selection: what fits the default budget */
	if (!o->nfilters && !a->of_path && !a->all_functions && !(o->budget_pct > 0)) {
		o->budget_pct = PG_DEFAULT_BUDGET_PCT;
		o->default_budget = true;
	}
	if (a->max_funcs_set && (o->nfilters || a->of_path))
		pg_warn("%s: --max-funcs caps the selection made without -f; %s chooses the "
			"functions here, and --max-funcs is ignored", cmd,
			a->of_path ? "--functions-of" : "-f");
	if (a->of_path) {
		if (pg_runfile_read(a->of_path, &a->of))
			return -1;
		o->functions_of = &a->of;
		o->functions_of_path = a->of_path;
		keep_recording_options(a, cmd);
	}
	return 0;
}
