// SPDX-License-Identifier: MIT
/*
 * runner/session/recorder.c - perfgate record: the life cycle of runner/session/recorder.h, step by
 * step, in the steps of runner/session/session.h that perfgate ab (ab.c) shares. The work of each
 * step is elsewhere in runner/: select.c (1), probes.c and calibrate_bpf.c (2), budget_runs.c
 * (between 2 and 3), launch.c and maps.c (3), spin.c (before each repetition).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <bpf/libbpf.h>

#include "../../bpf/perfgate.h"
#include "../../core/log.h"
#include "../../core/numfmt.h"
#include "../../formats/runfile.h"
#include "../budget/stack_gain.h"
#include "../launch/launch.h"
#include "../launch/privs.h"
#include "../launch/resolve.h"
#include "../probes/calibrate.h"
#include "../probes/maps.h"
#include "../probes/probes.h"
#include "../profile/codesum.h"
#include "../profile/sampler.h"
#include "../select/objects.h"
#include "../select/select.h"
#include "budget_runs.h"
#include "discover.h"
#include "libs.h"
#include "meta.h"
#include "recorder.h"
#include "session.h"
#include "spin.h"

_Static_assert(PG_NSITES == PG_SITE_COUNT, "bpf/perfgate.h and core/run.h disagree on sites");

int pg_recording_select(const struct pg_record_opts *o, const char *argv0,
			const struct pg_discovery *disc, struct pg_run *run)
{
	struct pg_selection sel = { 0 };
	size_t site[PG_SITE_COUNT] = { 0 };
	int err;

	err = pg_selection_init(&sel, argv0, disc && disc->done ? disc : NULL);
	if (!err && !run->meta.program && pg_is_elf(sel.exe))	/* compare pairs by it */
		err = (run->meta.program = strdup(sel.exe)) ? 0 : -ENOMEM;
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

/* Was any function of @binary called in @rep (stats of @run's ids)? */
static bool binary_called(const struct pg_run *run, const struct pg_rep *rep, const char *binary)
{
	for (size_t i = 0; i < rep->nstats; i++)
		if (rep->stats[i].calls && rep->stats[i].func < run->nfuncs &&
		    !strcmp(run->funcs[rep->stats[i].func].binary, binary))
			return true;
	return false;
}

int pg_recording_check_first(const struct pg_recording *r, const struct pg_run *run,
			     const struct pg_rep *rep, const char *side)
{
	const struct pg_objects *objs = r->probes.sampler ? pg_sampler_objects(r->probes.sampler) :
					NULL;
	uint32_t now = r->probes.sampler ? pg_sampler_reps(r->probes.sampler) : 0;
	bool any = false;

	for (size_t i = 0; i < run->nfuncs; i++) {
		const char *bin = run->funcs[i].binary;
		const struct pg_object *it, *other;

		if (i && !strcmp(bin, run->funcs[i - 1].binary))
			continue;	/* grouped by binary: each once */
		if (binary_called(run, rep, bin)) {
			any = true;
			continue;
		}
		if (!objs || !objs->n)
			continue;
		it = pg_objects_find(objs, bin);
		other = pg_objects_by_name(objs, pg_basename(bin));
		if ((!it || it->last_rep != now) && other && other != it &&
		    other->last_rep == now) {
			pg_err("%sthe first repetition never loaded %s, which is traced: its "
			       "processes loaded %s, of the same name (trace that file; in "
			       "perfgate ab each side's own libraries are found from its runs)",
			       side, bin,
			       other->path);
			return -ENOENT;
		}
	}
	if (!any) {
		pg_err("%sno traced function was called in the first repetition (%zu traced, in "
		       "%s%s): there is nothing to measure; choose functions the program runs "
		       "(-f), or let perfgate choose (no -f)", side, run->nfuncs,
		       run->nfuncs ? pg_basename(run->funcs[0].binary) : "no file",
		       run->nfuncs && strcmp(run->funcs[0].binary,
					     run->funcs[run->nfuncs - 1].binary) ? ", ..." : "");
		return -ENOENT;
	}
	return 0;
}

/* how often the guard may narrow the selection and start the repetitions again */
#define GUARD_MAX_NARROW 4

int pg_recording_discover(const struct pg_record_opts *o, struct pg_launch *l,
			  struct pg_discovery *d, const char *side)
{
	char *exe = pg_resolve_command(l->argv[0]);	/* says why when there is none */
	int err;

	if (!exe)
		return -ENOENT;
	free(exe);
	if (!pg_discovery_needed(o, l->argv[0]))
		return 0;
	err = pg_discover(o, l, d);
	if (!err)
		pg_discovery_explain(d, l->argv[0], side, o->quiet);
	return err;
}

int pg_recording_begin(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run)
{
	size_t nselected;
	int err;

	r->hz = o->sample_hz;
	r->launch.timeout_ns = o->timeout_ms * 1000000ULL;
	r->launch.quiet = o->quiet;
	err = pg_launch_set_command(&r->launch, o->argv);
	if (err)
		return err;
	/* Google Benchmark: runner/launch/gbench_run.h */
	r->launch.gb.mode = (enum pg_gb_mode)o->gbench;
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

	/* 1. what the processes run; select the functions; the run's metadata */
	err = pg_recording_discover(o, &r->launch, &r->disc, "");
	pg_resolve_env(r->launch.assign, r->launch.nassign);
	err = err ?: pg_recording_select(o, r->launch.argv[0], &r->disc, run);
	pg_resolve_env(NULL, 0);
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
		err = pg_budget_sample(o, &r->disc, run, &r->sampled_wall, &r->hz);
		if (err)
			return err;
	}
	nselected = run->nfuncs;	/* what the pilot weighs */
	r->probes.offcpu = !o->no_offcpu;
	err = pg_probes_attach(&r->probes, run, o->single_attach, r->launch.preload);
	if (err)
		return err;
	pg_calib_report(pg_calib_run(&r->probes, run, r->ncpu, &run->calib), &run->calib,
			o->quiet);
	pg_launch_excfix_open(&r->probes, &r->launch);
	if (o->budget_pct > 0) {
		err = pg_budget_pilot(o, &r->probes, &r->launch, run, r->ncpu, r->sampled_wall,
				      &r->disc.cov);
		if (err)
			return err;
		pg_budget_say_left_out(o, run, &r->disc.cov, r->hz);
		if (!o->quiet)
			pg_info("--budget %g%%%s: tracing %zu of the %zu function%s the pilot "
				"weighed", o->budget_pct, o->default_budget ? " (the default "
				"without -f; --all-functions traces them all)" : "", run->nfuncs,
				nselected, pg_plural(nselected));
	}
	return 0;
}

int pg_recording_arm(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     const struct pg_run *probed)
{
	int err;

	/* after the pilot, which may attach again */
	pg_calib_compensate_hists(&r->probes, run);
	if (r->hz) {
		int traced = pg_probes_map_fd(&r->probes, PG_MAP_TRACED);

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
	err = pg_maps_reset(p, probed->nfuncs, r->ncpu);
	if (err)
		return err;
	pg_budget_guard_arm(&r->guard, l, i);
	err = pg_launch_run(p, l, rep);
	l->tick = NULL;
	if (!err && p->sampler)
		err = pg_sampler_stop(p->sampler, rep);
	err = err ?: pg_maps_read(p, probed->nfuncs, r->ncpu, stats, r->counters);
	if (err)
		return err;
	return l->tick_stopped ? PG_GUARD_STOPPED : 0;	/* then pg_budget_narrow() */
}

int pg_recording_codes(struct pg_recording *r, struct pg_codesums *cs, struct pg_run *run,
		       int side)
{
	int err = 0;

	for (size_t i = 0; i < run->nfuncs && !err; i++) {
		struct pg_func *f = &run->funcs[i];

		if (!f->code && pg_codesum(cs, f->binary, f->addr, &f->code) == -ENOMEM)
			err = -ENOMEM;
	}
	if (!err && r->probes.sampler)
		err = pg_sampler_codes(r->probes.sampler, side, cs, run);
	if (err)
		pg_err("out of memory");
	return err;
}

int pg_recording_end(struct pg_recording *r, const struct pg_record_opts *o, struct pg_run *run,
		     int err)
{
	struct pg_codesums cs = PG_CODESUMS_INIT;

	if (r->armed)
		pg_maps_explain_counters(r->counters);
	if (!err)
		pg_budget_check(o, run, r->sampled_wall);
	if (!err && r->probes.sampler)
		err = pg_sampler_finish(r->probes.sampler, run);
	if (!err && r->probes.sampler)
		err = pg_meta_libraries(&run->meta, pg_sampler_objects(r->probes.sampler), 0, NULL);
	if (!err)
		err = pg_recording_codes(r, &cs, run, 0);
	pg_codesums_release(&cs);
	/* 4. detach everything */
	pg_budget_watch_release(&r->guard);
	pg_probes_release(&r->probes);
	pg_discovery_release(&r->disc);
	return r->begun ? pg_launch_end(&r->launch, err) : err;
}

/* Where repetition @i ran, for its spin's weights (spin.h): the sampler's count on each CPU
 * the spin ran on, kept in its samples before the repetition (@after false), made the
 * repetition's own after it, and the spin's times combined. Without a sampler, 0s. */
static void spin_where(const struct pg_sampler *sp, struct pg_spin *s, bool after)
{
	for (uint32_t c = 0; c < s->ncpu; c++) {
		struct pg_spin_cpu *p = &s->cpus[c];
		uint64_t n = sp ? pg_sampler_cpu_samples(sp, p->cpu) : 0;

		p->samples = after ? n - p->samples : n;
	}
	if (after)
		pg_spin_combine(s);
}

/* Step 3, once: a new repetition of @run, judged. */
static int record_rep(const struct pg_record_opts *o, struct pg_recording *r, struct pg_run *run,
		      uint32_t i)
{
	/* the machine's speed just before it, on its own scale (spin.h) */
	int err = pg_spin_record(&run->meta, i);
	struct pg_rep *rep = err ? NULL : pg_run_add_rep(run);

	if (!rep)
		return err ?: -ENOMEM;
	pg_launch_phase(&r->launch, i ? run->reps[i - 1].wall_ns : r->sampled_wall,
			"repetition %u/%u", i + 1, o->repetitions);
	spin_where(r->probes.sampler, &run->meta.spin[i], false);
	err = pg_recording_once(r, run, i, rep, rep);
	if (err)
		return err;
	spin_where(r->probes.sampler, &run->meta.spin[i], true);
	pg_launch_progress(o, i, rep, rep->nstats, rep->wall_ns * (o->repetitions - i - 1));
	if (i == 0)
		pg_calib_warn_overhead(run, rep);
	err = pg_launch_verdict(o, &r->launch, i, rep, &r->probes.fix);
	return err || i ? err : pg_recording_check_first(r, run, rep, "");
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
		pg_info("tracing %zu function%s, %u repetition%s of: %s", run->nfuncs,
			pg_plural(run->nfuncs), o->repetitions, pg_plural(o->repetitions),
			r.launch.argv[0]);
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
