// SPDX-License-Identifier: MIT
/*
 * runner/record.c - perfgate record: the life cycle of runner/record.h, step by step, in the
 * steps of runner/recording.h that perfgate ab (ab.c) shares. The work of each step is
 * elsewhere in runner/: select.c (1), probes.c and calibrate_bpf.c (2), budget.c (between 2
 * and 3), launch.c and maps.c (3).
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
#include "coverage.h"
#include "launch.h"
#include "maps.h"
#include "meta.h"
#include "privs.h"
#include "probes.h"
#include "record.h"
#include "recording.h"
#include "sampler.h"
#include "select.h"
#include "perfgate.skel.h"

_Static_assert(PG_NSITES == PG_SITE_COUNT, "bpf/perfgate.h and core/run.h disagree on sites");

int pg_recording_select(const struct pg_record_opts *o, struct pg_run *run)
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

/* how often the guard may narrow the selection and start the repetitions again */
#define GUARD_MAX_NARROW 4

int pg_recording_begin(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run)
{
	struct pg_coverage cov = PG_COVERAGE_INIT;	/* the sampled first pass's stacks */
	size_t nselected;
	int err;

	r->hz = o->sample_hz;
	r->launch.argv = o->argv;
	r->launch.timeout_ns = o->timeout_ms * 1000000ULL;
	r->launch.gb.mode = (enum pg_gb_mode)o->gbench;	/* Google Benchmark: runner/gbench.h */
	if (!pg_can_record()) {
		pg_err("recording needs root, or the CAP_BPF and CAP_PERFMON capabilities "
		       "(try: sudo perfgate record ...)");
		return -EPERM;
	}
	/* from here on SIGINT, SIGTERM and SIGHUP stop the recording cleanly */
	r->begun = true;
	err = pg_launch_init(&r->launch, o->user);
	if (err)
		return err;

	/* 1. select the functions; the run's metadata */
	err = pg_recording_select(o, run);
	nselected = run->nfuncs;
	err = err ?: pg_meta_collect(&run->meta);
	err = err ?: pg_meta_record_opts(&run->meta, o);
	err = err ?: check_before_running(run);
	if (err)
		return err;

	/* 2. load the BPF object and attach its probes; calibrate them */
	pg_probes_log_to_stderr();
	r->ncpu = libbpf_num_possible_cpus();
	if (r->ncpu <= 0) {
		err = r->ncpu ? r->ncpu : -EINVAL;
		pg_err("cannot count the CPUs: %s", strerror(-err));
		return err;
	}
	pg_launch_choose_fix(&r->launch, o, run);
	if (o->budget_pct > 0) {
		err = pg_budget_sample(o, &r->launch, run, &r->sampled_wall, &r->hz, &cov);
		if (err)
			goto cleanup;
	}
	r->probes.offcpu = !o->no_offcpu;
	err = pg_probes_attach(&r->probes, run, o->single_attach, r->launch.preload);
	if (err)
		goto cleanup;
	pg_calib_report(pg_calib_run(&r->probes, run, r->ncpu, &run->calib), &run->calib,
			o->quiet);
	pg_launch_excfix_open(&r->probes, &r->launch);
	if (o->budget_pct > 0) {
		err = pg_budget_pilot(o, &r->probes, &r->launch, run, r->ncpu, r->sampled_wall,
				      &cov);
		if (err)
			goto cleanup;
		if (!o->quiet)
			pg_info("--budget %g%%%s: tracing %zu of the %zu functions selected",
				o->budget_pct, o->default_budget ? " (the default without -f; "
				"--all-functions traces them all)" : "", run->nfuncs, nselected);
	}
cleanup:
	pg_coverage_release(&cov);
	return err;
}

int pg_recording_arm(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     const struct pg_run *probed)
{
	int err;

	/* after the pilot, which may attach again */
	pg_calib_compensate_hists(&r->probes, run);
	if (r->hz) {
		int traced = bpf_map__fd(r->probes.skel->maps.traced);

		r->probes.sampler = pg_sampler_open(r->hz, traced,
						     o->offcpu_stacks && !o->no_offcpu);
		if (!r->probes.sampler)
			return -EIO;
		run->meta.sample_hz = r->hz;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		pg_warn("cannot become the child subreaper: orphaned processes are not waited for");
	/* the guard may attach the probes again (pg_budget_narrow()): keep CAP_BPF, CAP_PERFMON */
	err = pg_caps_drop(r->launch.creds.change, r->probes.sampler != NULL || o->budget_pct > 0);
	err = err ?: pg_budget_watch_init(&r->guard, o, &r->probes, probed, r->ncpu,
					  r->sampled_wall);
	r->armed = !err;
	run->meta.offcpu = r->probes.offcpu;	/* as attached (again, after --budget) */
	return err;
}

int pg_recording_once(struct pg_recording *r, const struct pg_run *probed, uint32_t i,
		      struct pg_rep *rep, struct pg_rep *stats)
{
	struct pg_probes *p = &r->probes;
	struct pg_launch *l = &r->launch;
	int err;

	l->stop_signal = pg_signals_wait(0);
	if (l->stop_signal)
		return pg_launch_stopped_by(l->stop_signal);
	err = pg_maps_reset(p->skel, probed->nfuncs, r->ncpu);
	if (err)
		return err;
	pg_budget_guard_arm(&r->guard, l, i);
	err = pg_launch_run(p, l, rep);
	l->tick = NULL;
	if (!err && p->sampler)
		err = pg_sampler_stop(p->sampler, rep);
	err = err ?: pg_maps_read(p->skel, probed->nfuncs, r->ncpu, stats, r->counters);
	if (err)
		return err;
	return l->tick_stopped ? PG_GUARD_STOPPED : 0;	/* then pg_budget_narrow() */
}

int pg_recording_end(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     int err)
{
	if (r->armed)
		pg_maps_explain_counters(r->counters);
	if (!err)
		pg_budget_check(o, run, r->sampled_wall);
	if (!err && r->probes.sampler)
		err = pg_sampler_finish(r->probes.sampler, run);
	/* 4. detach everything */
	pg_budget_watch_release(&r->guard);
	pg_probes_release(&r->probes);
	return r->begun ? pg_launch_end(&r->launch, err) : err;
}

/* Step 3, once: a new repetition of @run, judged. */
static int record_rep(const struct pg_record_opts *o, struct pg_recording *r, struct pg_run *run,
		      uint32_t i)
{
	struct pg_rep *rep = pg_run_add_rep(run);
	int err;

	if (!rep)
		return -ENOMEM;
	err = pg_recording_once(r, run, i, rep, rep);
	if (err)
		return err;
	pg_launch_progress(o, i, rep, rep->nstats);
	if (i == 0)
		pg_calib_warn_overhead(run, rep);
	return pg_launch_verdict(o, &r->launch, i, rep, &r->probes.fix);
}

int pg_record(const struct pg_record_opts *o, struct pg_run *run)
{
	struct pg_recording r = { 0 };
	int err, nnarrow = 0;

	err = pg_recording_begin(&r, o, run);
	err = err ?: pg_recording_arm(&r, o, run, run);
	if (err)
		return pg_recording_end(&r, o, run, err);

	/* 3. the repetitions, each a fresh process tree read into one struct pg_rep */
	if (!o->quiet)
		pg_info("tracing %zu functions, %u repetitions of: %s", run->nfuncs,
			o->repetitions, o->argv[0]);
	for (uint32_t i = 0; i < o->repetitions && !err; i++) {
		err = record_rep(o, &r, run, i);
		if (err != PG_GUARD_STOPPED)
			continue;
		err = pg_budget_narrow(o, &r.probes, run, r.sampled_wall);
		if (++nnarrow == GUARD_MAX_NARROW)
			r.guard.narrow = false;	/* from here on, only the live line */
		memset(r.counters, 0, sizeof(r.counters));
		i = UINT32_MAX;		/* from the first again */
	}
	return pg_recording_end(&r, o, run, err);
}
