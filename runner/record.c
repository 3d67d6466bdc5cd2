// SPDX-License-Identifier: MIT
/*
 * runner/record.c - perfgate record: the life cycle of runner/record.h, step by step. The work
 * of each step is elsewhere in runner/: select.c (1), probes.c and calibrate_bpf.c (2),
 * budget.c (between 2 and 3), launch.c and maps.c (3).
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <bpf/libbpf.h>

#include "../bpf/perfgate.h"
#include "../core/log.h"
#include "../formats/runfile.h"
#include "budget.h"
#include "calibrate.h"
#include "launch.h"
#include "maps.h"
#include "meta.h"
#include "privs.h"
#include "probes.h"
#include "record.h"
#include "sampler.h"
#include "select.h"
#include "perfgate.skel.h"

_Static_assert(PG_NSITES == PG_SITE_COUNT, "bpf/perfgate.h and core/run.h disagree on sites");

/* Step 1: choose the functions into @run's function table, and say what their sites cost. */
static int select_functions(const struct pg_record_opts *o, struct pg_run *run)
{
	struct pg_selection sel = { 0 };
	size_t site[PG_SITE_COUNT] = { 0 };
	int err;

	err = pg_selection_init(&sel, o->argv[0]);
	err = err ?: pg_select(&sel, o);
	err = err ?: pg_selection_build(&sel, run, site);
	pg_selection_release(&sel);
	if (!err)
		pg_explain_sites(site);
	return err;
}

/*
 * What writing the run file will check of the function table and the metadata, checked before
 * anything runs: a recording that ran is never refused at the end.
 */
static int check_before_running(const struct pg_run *run)
{
	char why[256] = "";
	int err = pg_runfile_check(run, why, sizeof(why));

	if (err)
		pg_err("cannot record these functions: %s", why);
	return err;
}

/* record_rep(): the guard stopped the repetition (runner/budget.h) */
#define GUARD_STOPPED 1
/* how often the guard may narrow the selection and start the repetitions again */
#define GUARD_MAX_NARROW 4

/* Step 3, once: clear the maps, run the benchmark, read the maps into a new repetition. */
static int record_rep(const struct pg_record_opts *o, struct pg_probes *p, struct pg_launch *l,
		      struct pg_run *run, int ncpu, uint32_t i, __u64 counters[PG_CNT_MAX],
		      struct pg_budget_watch *guard)
{
	struct pg_rep *rep;
	int err;

	l->stop_signal = pg_signals_wait(0);
	if (l->stop_signal)
		return pg_launch_stopped_by(l->stop_signal);
	err = pg_maps_reset(p->skel, run->nfuncs, ncpu);
	if (err)
		return err;
	rep = pg_run_add_rep(run);
	if (!rep)
		return -ENOMEM;
	pg_budget_guard_arm(guard, l, i);
	err = pg_launch_run(p, l, rep);
	l->tick = NULL;
	if (!err && p->sampler)
		err = pg_sampler_stop(p->sampler, rep);
	err = err ?: pg_maps_read(p->skel, run->nfuncs, ncpu, rep, counters);
	if (err)
		return err;
	if (l->tick_stopped)	/* the guard stopped it: pg_budget_narrow() */
		return GUARD_STOPPED;
	pg_launch_progress(o, i, rep, rep->nstats);
	if (i == 0)
		pg_calib_warn_overhead(run, rep);
	return pg_launch_verdict(o, l, i, rep, &p->fix);
}

int pg_record(const struct pg_record_opts *o, struct pg_run *run)
{
	struct pg_probes probes = { 0 };
	struct pg_launch launch = { .argv = o->argv, .timeout_ns = o->timeout_ms * 1000000ULL };
	__u64 counters[PG_CNT_MAX] = { 0 };
	uint64_t sampled_wall = 0;	/* --budget's sampled first pass, when complete */
	uint32_t hz = o->sample_hz;	/* -F, or chosen from the sampled first pass */
	struct pg_budget_watch guard = { 0 };
	size_t nselected = 0;
	int ncpu, err, nnarrow = 0;

	if (!pg_can_record()) {
		pg_err("recording needs root, or the CAP_BPF and CAP_PERFMON capabilities "
		       "(try: sudo perfgate record ...)");
		return -EPERM;
	}
	/* from here on SIGINT, SIGTERM and SIGHUP stop the recording cleanly */
	err = pg_launch_init(&launch, o->user);
	if (err)
		goto cleanup;

	/* 1. select the functions; the run's metadata */
	err = select_functions(o, run);
	nselected = run->nfuncs;
	err = err ?: pg_meta_collect(&run->meta);
	err = err ?: pg_meta_record_opts(&run->meta, o);
	err = err ?: check_before_running(run);
	if (err)
		goto cleanup;

	/* 2. load the BPF object and attach its probes; calibrate them */
	pg_probes_log_to_stderr();
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		pg_err("cannot count the CPUs: %s", strerror(-err));
		goto cleanup;
	}
	pg_launch_choose_fix(&launch, o, run);
	if (o->budget_pct > 0) {
		err = pg_budget_sample(o, &launch, run, &sampled_wall, &hz);
		if (err)
			goto cleanup;
	}
	err = pg_probes_attach(&probes, run, o->single_attach, launch.preload);
	if (err)
		goto cleanup;
	pg_calib_report(pg_calib_run(&probes, run, ncpu, &run->calib), &run->calib, o->quiet);
	pg_launch_excfix_open(&probes, &launch);
	if (o->budget_pct > 0) {
		err = pg_budget_pilot(o, &probes, &launch, run, ncpu, sampled_wall);
		if (err)
			goto cleanup;
		if (!o->quiet)
			pg_info("--budget %g%%%s: tracing %zu of the %zu functions selected",
				o->budget_pct, o->default_budget ? " (the default without -f; "
				"--all-functions traces them all)" : "", run->nfuncs, nselected);
	}
	pg_calib_compensate_hists(&probes, run);  /* after the pilot, which may attach again */
	if (hz) {
		probes.sampler = pg_sampler_open(hz, bpf_map__fd(probes.skel->maps.traced),
						 !o->no_offcpu);
		if (!probes.sampler) {
			err = -EIO;
			goto cleanup;
		}
		run->meta.sample_hz = hz;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		pg_warn("cannot become the child subreaper: orphaned processes are not waited for");
	/* the guard may attach the probes again (pg_budget_narrow()): keep CAP_BPF, CAP_PERFMON */
	err = pg_caps_drop(launch.creds.change, probes.sampler != NULL || o->budget_pct > 0);
	err = err ?: pg_budget_watch_init(&guard, o, &probes, run, ncpu, sampled_wall);
	if (err)
		goto cleanup;

	/* 3. the repetitions, each a fresh process tree read into one struct pg_rep */
	if (!o->quiet)
		pg_info("tracing %zu functions, %u repetitions of: %s", run->nfuncs,
			o->repetitions, o->argv[0]);
	for (uint32_t i = 0; i < o->repetitions && !err; i++) {
		err = record_rep(o, &probes, &launch, run, ncpu, i, counters, &guard);
		if (err != GUARD_STOPPED)
			continue;
		err = pg_budget_narrow(o, &probes, run, sampled_wall);
		if (++nnarrow == GUARD_MAX_NARROW)
			guard.narrow = false;	/* from here on, only the live line */
		memset(counters, 0, sizeof(counters));
		i = UINT32_MAX;		/* from the first again */
	}
	pg_maps_explain_counters(counters);
	if (!err)
		pg_budget_check(o, run, sampled_wall);
	if (!err && probes.sampler)
		err = pg_sampler_finish(probes.sampler, run);

cleanup:
	/* 4. detach everything */
	pg_budget_watch_release(&guard);
	pg_probes_release(&probes);
	return pg_launch_end(&launch, err);
}
