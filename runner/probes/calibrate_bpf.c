// SPDX-License-Identifier: MIT
/*
 * runner/probes/calibrate_bpf.c - the calibration run through the recording's own BPF program and
 * maps, and what the recorder says about it (see "The driver" in calibrate.h). The targets and
 * the arithmetic, which need no BPF, are in calibrate.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../core/log.h"
#include "calibrate.h"
#include "maps.h"
#include "probes.h"

/*
 * Calibration target @id as the maps hold it: the median of its latency histogram and the mean
 * run time of its BPF programs per call (pg_fstat.probe_ns). -ENODATA if it was not called.
 */
static int read_target(struct pg_probes *p, __u32 id, int ncpu, double *median,
		       double *bpf_ns)
{
	struct pg_bpf_fstat *v = calloc((size_t)ncpu, sizeof(*v));
	struct pg_fstat s = { 0 };
	int err = -ENOMEM;

	if (v) {
		pg_maps_read_fstat(pg_probes_map_fd(p, PG_MAP_FSTATS), id, ncpu, v, &s);
		err = pg_maps_read_hists(pg_probes_map_fd(p, PG_MAP_HIST), id, 1, &s);
	}
	*median = pg_hist_quantile(&s.hist, 0.5);
	*bpf_ns = s.calls ? (double)s.probe_ns / (double)s.calls : NAN;
	if (!err && (isnan(*median) || isnan(*bpf_ns)))
		err = -ENODATA;
	pg_hist_release(&s.hist);
	free(v);
	return err;
}

/* @c's figures at debug level, after @what. */
static void debug_calib(const char *what, const struct pg_calib *c)
{
	pg_debug("%s in/out(measured) ns: nop5 %.0f/%.0f(%.0f), emulated %.0f/%.0f(%.0f), "
		 "sstep %.0f/%.0f(%.0f)", what,
		 c->in_ns[PG_SITE_NOP5], c->out_ns[PG_SITE_NOP5], c->measured_ns[PG_SITE_NOP5],
		 c->in_ns[PG_SITE_EMULATED], c->out_ns[PG_SITE_EMULATED],
		 c->measured_ns[PG_SITE_EMULATED], c->in_ns[PG_SITE_SSTEP],
		 c->out_ns[PG_SITE_SSTEP], c->measured_ns[PG_SITE_SSTEP]);
}

/* One calibration with the attached targets @t: fork the child, time, read the maps. */
static int calibrate_once(struct pg_probes *p, const struct pg_run *run, int ncpu,
			  const struct pg_calib_targets *t, struct pg_calib *out)
{
	struct pg_calib_loops loops;
	double median[PG_CALIB_NTARGETS], bpf_ns[PG_CALIB_NTARGETS];
	int go, res, status = 0, err = 0;
	__u8 one = 1;
	ssize_t r;
	pid_t pid;
	__u32 key;

	pid = pg_calib_spawn(&go, &res);
	if (pid < 0)
		return pid;
	key = (__u32)pid;
	if (bpf_map_update_elem(pg_probes_map_fd(p, PG_MAP_TRACED), &key, &one, BPF_ANY) ||
	    write(go, "g", 1) != 1)
		err = -errno;
	close(go);
	r = read(res, &loops, sizeof(loops));
	close(res);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && (r != (ssize_t)sizeof(loops) || !WIFEXITED(status) || WEXITSTATUS(status)))
		err = -EIO;
	for (int k = 0; k < PG_CALIB_NTARGETS && !err; k++)
		err = read_target(p, (__u32)(run->nfuncs + (size_t)k), ncpu, &median[k],
				  &bpf_ns[k]);
	if (!err)
		pg_calib_compute(t, &loops, median, bpf_ns, out);
	return err;
}

#define CALIB_TRIES 3

/*
 * A calibration the machine disturbed (pg_calib_plausible()) is measured again, up to
 * CALIB_TRIES times in all; if all were disturbed, the least disturbed one stands.
 */
int pg_calib_run(struct pg_probes *p, const struct pg_run *run, int ncpu, struct pg_calib *out)
{
	struct pg_calib_targets t;
	struct pg_calib best = { 0 };
	uint64_t cookie[PG_CALIB_NTARGETS];
	int err;

	err = pg_calib_find(&t);
	if (err)
		return err;
	for (int k = 0; k < PG_CALIB_NTARGETS; k++)
		cookie[k] = pg_probe_cookie(t.site[k], (uint32_t)(run->nfuncs + (size_t)k));
	err = pg_probes_attach_set(p, t.path, t.offset, cookie, PG_CALIB_NTARGETS);
	for (int try = 1; !err; try++) {
		char what[48];

		err = calibrate_once(p, run, ncpu, &t, out);
		if (err && best.valid) {	/* keep the disturbed one we have */
			pg_warn("probe calibration: try %d failed (%s); keeping a disturbed try "
				"before it: compensated latencies may be off by more than usual",
				try, strerror(-err));
			*out = best;
			err = 0;
			break;
		}
		if (err || pg_calib_plausible(out))
			break;
		snprintf(what, sizeof(what), "calibration try %d was disturbed:", try);
		debug_calib(what, out);
		/* of the disturbed tries, the least disturbed (pg_calib_excess()) */
		if (!best.valid || pg_calib_excess(out) <= pg_calib_excess(&best))
			best = *out;
		if (try == CALIB_TRIES) {
			*out = best;
			pg_warn("probe calibration: the machine disturbed all %d tries (a probe "
				"costing nothing inside a call, less than its timed part, or many "
				"times more); "
				"compensated latencies may be off by more than usual", CALIB_TRIES);
			break;
		}
		/* the targets' counts and histograms start again */
		err = pg_maps_reset(p, run->nfuncs + PG_CALIB_NTARGETS, ncpu);
	}
	if (err)	/* not an earlier try's figures: uncompensated */
		memset(out, 0, sizeof(*out));
	pg_calib_targets_release(&t);
	return err;
}

void pg_calib_compensate_hists(struct pg_probes *p, struct pg_run *run)
{
	const struct pg_calib *c = &run->calib;
	double desc[PG_SITE_COUNT], trip[PG_SITE_COUNT];

	if (!c->valid || !c->measured)
		return;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		desc[k] = pg_calib_desc_ns(c, k);
		trip[k] = pg_calib_trip_ns(c, k);
	}
	pg_probes_compensate(p, c->in_ns, desc, trip);
	run->hist_compensated = true;
}

void pg_calib_report(int err, const struct pg_calib *c, bool quiet)
{
	if (err) {
		pg_warn("probe calibration failed (%s): latencies are recorded uncompensated",
			strerror(-err));
		return;
	}
	if (!quiet)
		pg_info("a traced call costs %.2f +-%.2f us on a nop5 site, %.2f +-%.2f us "
			"emulated, %.2f +-%.2f us single-stepped (calibrated; compensated in "
			"reports)",
			(c->in_ns[PG_SITE_NOP5] + c->out_ns[PG_SITE_NOP5]) / 1e3,
			c->spread_ns[PG_SITE_NOP5] / 1e3,
			(c->in_ns[PG_SITE_EMULATED] + c->out_ns[PG_SITE_EMULATED]) / 1e3,
			c->spread_ns[PG_SITE_EMULATED] / 1e3,
			(c->in_ns[PG_SITE_SSTEP] + c->out_ns[PG_SITE_SSTEP]) / 1e3,
			c->spread_ns[PG_SITE_SSTEP] / 1e3);
	debug_calib("calibration", c);
}

void pg_calib_warn_overhead(const struct pg_run *run, const struct pg_rep *rep)
{
	const struct pg_fstat *top[3] = { NULL };
	double cost[3] = { 0 }, total = 0;
	char names[3][96] = { "", "", "" };

	if (!run->calib.valid || !rep->wall_ns)
		return;
	for (size_t i = 0; i < rep->nstats; i++) {
		const struct pg_fstat *s = &rep->stats[i];
		double c = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s);

		total += c;
		for (int k = 0; k < 3; k++) {
			if (c <= cost[k])
				continue;
			memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof(top[0]));
			memmove(&cost[k + 1], &cost[k], (size_t)(2 - k) * sizeof(cost[0]));
			top[k] = s;
			cost[k] = c;
			break;
		}
	}
	if (total <= 0.5 * (double)rep->wall_ns)
		return;
	for (int k = 0; k < 3 && top[k]; k++)
		snprintf(names[k], sizeof(names[k]), "%s%.60s (%llu calls)", k ? ", " : "",
			 run->funcs[top[k]->func].display, (unsigned long long)top[k]->calls);
	pg_warn("tracing more than doubles the run time: the probes cost ~%.0f ms of the first "
		"repetition's %.0f ms, most in %s%s%s; exclude such functions with -x, or trace "
		"longer-running ones", total / 1e6, (double)rep->wall_ns / 1e6, names[0],
		names[1], names[2]);
}
