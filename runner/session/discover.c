// SPDX-License-Identifier: MIT
/*
 * runner/session/discover.c - the sampled first pass: the objects and stacks of what the
 * benchmark's processes ran (discover.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "../../core/log.h"
#include "../launch/resolve.h"
#include "../probes/probes.h"
#include "../profile/sampler.h"
#include "discover.h"

void pg_discovery_release(struct pg_discovery *d)
{
	pg_coverage_release(&d->cov);
	pg_objects_release(&d->objs);
	*d = (struct pg_discovery)PG_DISCOVERY_INIT;
}

bool pg_is_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, m, sizeof(m)) == (ssize_t)sizeof(m) && !memcmp(m, "\177ELF", 4);
	close(fd);
	return elf;
}

/* Does a [BINARY:]GLOB of @specs name a library by its name (not a path: that names a file)? */
static bool names_binary(char *const *specs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *c = specs[i];

		for (; *c; c++) {	/* a single ':' (not C++ "::") ends a BINARY: */
			if (c[0] == ':' && c[1] == ':')
				c++;
			else if (c[0] == ':')
				break;
		}
		if (*c == ':' && !memchr(specs[i], '/', (size_t)(c - specs[i])))
			return true;
	}
	return false;
}

bool pg_discovery_needed(const struct pg_record_opts *o, const char *argv0)
{
	char *exe;
	bool elf;

	/* the budget weighs by the pass, unless --no-sample said no sampling at all */
	if ((o->budget_pct > 0 && o->sample_hz) || o->functions_of ||
	    names_binary(o->filters, o->nfilters) ||
	    names_binary(o->excludes, o->nexcludes))
		return true;
	exe = pg_find_command(argv0);
	elf = exe && pg_is_elf(exe);
	free(exe);
	return !elf;
}

/* Samples of @rep that cannot speak for every function: unknown frames, or cut short. */
static uint64_t unsure_samples(const struct pg_rep *rep)
{
	uint64_t n = rep->samples_truncated;

	for (size_t k = 0; k < rep->nstacks; k++)
		if (strstr(rep->stacks[k].folded, "[unknown]"))
			n += rep->stacks[k].count;
	return n;
}

int pg_unrecorded_run_failed(const struct pg_record_opts *o, const struct pg_launch *l,
			     const char *what, const struct pg_rep *rep, bool timed_out)
{
	const char *how = rep->signal ? "was killed by signal" : "exited with status";

	if (o->allow_failure)
		return 0;
	if (timed_out && l->side)
		pg_err("%s side: %s ran past --timeout %g s in the %s: its processes were ended; "
		       "no run files written (--allow-failure goes on)", l->side, l->argv[0],
		       (double)o->timeout_ms / 1000, what);
	else if (timed_out)
		pg_err("the %s ran past --timeout %g s: its processes were ended; no run file "
		       "written (--allow-failure goes on)", what, (double)o->timeout_ms / 1000);
	if (timed_out)
		return -ETIME;
	if (!rep->signal && !rep->exit_code)
		return 0;
	if (l->side)
		pg_err("%s side: %s %s %d in the %s; no run files written", l->side, l->argv[0],
		       how, rep->signal ? rep->signal : rep->exit_code, what);
	else
		pg_err("the %s %s %d; no run file written", what, how,
		       rep->signal ? rep->signal : rep->exit_code);
	return -ECHILD;
}

/* One run of the pass into @d. 0, or -errno; -EIO: the sampler could not start. */
static int discover_once(const struct pg_record_opts *o, struct pg_launch *l,
			 struct pg_probes *sp, struct pg_discovery *d)
{
	struct pg_rep one = { .exit_code = -1 };
	bool timed_out;
	int err;

	l->stop_signal = pg_signals_wait(0);
	if (l->stop_signal)
		return pg_launch_stopped_by(l->stop_signal);
	pg_launch_phase(l, d->wall_ns, "%s%sthe sampled first pass, run %d (%llu of %d samples)",
			l->side ? l->side : "", l->side ? " side: " : "", d->runs + 1,
			(unsigned long long)d->samples, PG_DISCOVER_WANT);
	err = sp->sampler ? pg_launch_run(sp, l, &one) : -EIO;
	err = err ?: pg_sampler_stop(sp->sampler, &one);
	timed_out = l->timed_out;
	l->timed_out = false;
	err = err ?: pg_unrecorded_run_failed(o, l, "sampled first pass", &one, timed_out);
	/* the benchmark's own time: the fastest complete run, the least disturbed */
	if (!err && !timed_out && !one.signal && !one.exit_code &&
	    (!d->wall_ns || one.wall_ns < d->wall_ns))
		d->wall_ns = one.wall_ns;
	err = err ?: pg_coverage_add(&d->cov, &one);
	d->samples += one.samples;
	d->unsure += unsure_samples(&one);
	d->runs++;
	pg_rep_release(&one);
	return err ?: timed_out ? -ETIME : 0;
}

int pg_discover(const struct pg_record_opts *o, struct pg_launch *l, struct pg_discovery *d)
{
	struct pg_probes sp = { 0 };
	uint64_t spent = 0;
	int err;

	err = pg_probes_open_bare(&sp);
	if (err)
		return err;
	sp.sampler = pg_sampler_open(PG_DISCOVER_HZ, pg_probes_map_fd(&sp, PG_MAP_TRACED), false);
	for (int k = 0; k < PG_DISCOVER_RUNS; k++) {
		if (k && (d->samples >= PG_DISCOVER_WANT || spent >= PG_DISCOVER_NS))
			break;
		err = discover_once(o, l, &sp, d);
		if (err == -EIO && !k) {
			pg_warn("no sampled first pass (sampling does not work here): the "
				"functions are chosen from the command's executable as named");
			err = 0;
			goto out;
		}
		if (err == -ETIME && o->allow_failure)
			err = 0;	/* what ran is what there is */
		if (err)
			goto out;
		spent += d->wall_ns;
	}
	err = pg_objects_copy(&d->objs, pg_sampler_objects(sp.sampler));
	d->done = !err;
out:
	pg_probes_release(&sp);
	return err;
}

const struct pg_object *pg_discovery_program(const struct pg_discovery *d, const char *named)
{
	const struct pg_object *best = NULL, *it = named ? pg_objects_find(&d->objs, named) : NULL;

	if (!d->done)
		return NULL;
	if (it && it->ran)
		return it;
	for (size_t i = 0; i < d->objs.n; i++) {
		const struct pg_object *o = &d->objs.v[i];

		if (o->ran && (!best || o->ran > best->ran))
			best = o;
	}
	return best;
}

void pg_discovery_explain(const struct pg_discovery *d, const char *argv0, const char *side,
			  bool quiet)
{
	char *named = pg_find_command(argv0);
	const struct pg_object *prog = pg_discovery_program(d, named);

	if (prog && named && strcmp(named, prog->path) && !quiet)
		pg_info("%s%s is %s; the program it ran is %s", side, argv0,
			pg_is_elf(named) ? "a program that runs another" :
			"a script (a wrapper such as libtool's)", prog->path);
	free(named);
}
