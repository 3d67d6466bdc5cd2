// SPDX-License-Identifier: MIT
/*
 * diff/program.c - the whole program's CPU time and wall time judged like a function, and
 * what explains a change of its CPU time (program.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "rspeed.h"

double pg_program_cpu_ns(const struct pg_run *run)
{
	double *v = malloc((run->nreps ? run->nreps : 1) * sizeof(*v)), m;

	if (!v || !run->nreps) {
		free(v);
		return NAN;
	}
	for (size_t r = 0; r < run->nreps; r++) {
		if (!run->reps[r].cpu_ns) {
			free(v);
			return NAN;
		}
		v[r] = (double)run->reps[r].cpu_ns;
	}
	m = pg_median(v, run->nreps);
	free(v);
	return m;
}

/* @s := the per-repetition values of @run's CPU time (@cpu) or wall time; 0 ones left out. */
static void gather(struct pg_sample *s, const struct pg_run *run, bool cpu)
{
	s->n = 0;
	s->measured = s->compensated = s->calls = s->callees = 0;
	for (size_t r = 0; r < run->nreps; r++) {
		uint64_t v = cpu ? run->reps[r].cpu_ns : run->reps[r].wall_ns;

		if (v)
			pg_sample_push(s, (double)v, pg_rep_tag(run, r));
	}
}

/*
 * One entry: the CPU time (@cpu) or the wall time; the new run's values less @shift (log: the
 * machine's speed against the base run's), or as measured when @shift is NAN; its interval
 * widened by the standard error @se (log; 0: none) of what the two runs' speeds leave unknown.
 */
static int program_entry(struct pg_comparison *out, const struct pg_run *base,
			 const struct pg_run *new, const struct pg_compare_opts *o,
			 bool sets_differ, bool cpu, double shift, double se, double wall_ns,
			 struct pg_sample *sb, struct pg_sample *sn, struct pg_stats_ws *ws,
			 struct pg_family *fam)
{
	struct pg_fcmp *f = pg_comparison_add(out);

	if (!f)
		return -ENOMEM;
	f->origin = PG_ORIGIN_PROGRAM;
	f->binary = strdup(PG_PROGRAM_BINARY);
	f->name = strdup(cpu ? PG_PROGRAM_CPU : PG_PROGRAM_WALL);
	f->display = strdup(cpu ? "the program: CPU time" : "the program: wall time");
	if (!f->binary || !f->name || !f->display)
		return -ENOMEM;
	f->base_calls = f->new_calls = 1;	/* one run of it a repetition */
	gather(sb, base, cpu);
	gather(sn, new, cpu);
	for (size_t i = 0; !isnan(shift) && i < sn->n; i++)
		sn->log[i] -= shift;
	if (sets_differ) {
		pg_analyse(f, sb, sn, o, false, ws);
		f->p = NAN;
		f->cause = PG_CAUSE_ONE_SIDE;
		snprintf(f->reason, sizeof(f->reason), "the runs traced different functions, whose "
			 "probes cost differently: not judged");
		return 0;
	}
	return pg_judge_alone(f, out->n - 1, sb, sn, o, wall_ns, se, ws, fam);
}

int pg_compare_program(struct pg_comparison *out, const struct pg_run *base,
		       const struct pg_run *new, const struct pg_compare_opts *o, bool sets_differ,
		       double wall_ns, struct pg_sample *sb, struct pg_sample *sn,
		       struct pg_stats_ws *ws, struct pg_family *fam)
{
	const struct pg_speed *speed = sb->speed;
	const struct pg_rspeed *rspeed = sb->rspeed;
	double shift = NAN, se = 0;
	int err = 0;

	/*
	 * The machine's speed is estimated from the program's own functions: a change of the
	 * whole program moves them all, and correcting it by them would hide it. Two recordings
	 * with reference spins have a witness apart from the program: its CPU time is corrected
	 * by the spins' CPU time, within their uncertainty.
	 */
	sb->speed = sn->speed = NULL;
	sb->rspeed = sn->rspeed = NULL;
	if (rspeed)
		err = pg_rspeed_spin(&base->meta, &new->meta, true, &shift, &se);
	if (err) {	/* no spins of one workload on both sides: as measured */
		shift = NAN;
		se = rspeed ? PG_RSPEED_UNKNOWN : 0;
		err = err == -ENOMEM ? err : 0;
	}
	out->program_spin = isnan(shift) ? NAN : expm1(shift);
	/* two recordings: what the spin cannot see moves both times, the wall time uncorrected
	 * (rspeed.h) */
	if (!err && !isnan(pg_program_cpu_ns(base)) && !isnan(pg_program_cpu_ns(new)))
		err = program_entry(out, base, new, o, sets_differ, true, shift,
				    rspeed ? pg_rspeed_spin_error(se) : 0, wall_ns, sb, sn, ws,
				    fam);
	err = err ?: program_entry(out, base, new, o, sets_differ, false, NAN,
				   rspeed ? pg_rspeed_spin_error(0) : 0, wall_ns, sb, sn, ws, fam);
	sb->speed = speed;
	sb->rspeed = rspeed;
	return err;
}

static const struct pg_comparison *sort_c;

/* by |impact_ns|, largest first */
static int cmp_impact(const void *a, const void *b)
{
	double x = fabs(sort_c->f[*(const size_t *)a].impact_ns);
	double y = fabs(sort_c->f[*(const size_t *)b].impact_ns);

	return x > y ? -1 : x < y;
}

/*
 * The program's CPU time @f of two recordings against the machine's speed its own functions
 * tell (c->speed_shift): a change that, less that speed, is no longer surely beyond the
 * minimum effect could be the machine as well as the build, which two recordings cannot
 * tell apart (the functions are corrected by it; the program was not, or by the spin's CPU
 * time only, which a memory-bound program does not follow). Likewise an unchanged CPU time
 * that, less that speed, could be slower by the minimum effect: the spin and the functions
 * disagree on the machine, and a regression may hide in the difference.
 */
static void settle_cpu(const struct pg_comparison *c, struct pg_fcmp *f)
{
	double s = (1 + (isnan(c->program_spin) ? 0 : c->program_spin)) / (1 + c->speed_shift);
	double lo = (1 + f->ci_lo) * s - 1, hi = (1 + f->ci_hi) * s - 1, e = c->opts.min_effect;

	/* too wide to decide already: the drift said as its reason when the functions' speed
	 * moved beyond the minimum effect the way the program did */
	bool wide_drift = f->verdict == PG_VERDICT_INCONCLUSIVE && f->cause == PG_CAUSE_WIDE &&
			  fabs(c->speed_shift) > e && f->change * c->speed_shift > 0;

	/* unchanged, but less the functions' speed (not the spin's) possibly slower by the
	 * minimum effect: a regression the spin did not see the machine hide is not ruled out */
	if (f->verdict == PG_VERDICT_REGRESSION ? lo > e :
	    f->verdict == PG_VERDICT_IMPROVEMENT ? hi < -e :
	    f->verdict == PG_VERDICT_UNCHANGED ? !(hi > e) : !wide_drift)
		return;
	f->verdict = PG_VERDICT_INCONCLUSIVE;
	f->cause = PG_CAUSE_DRIFT;
	snprintf(f->reason, sizeof(f->reason), "%+.1f%%: its functions say the machine ran "
		 "%+.1f%%; less that, [%+.1f%%, %+.1f%%]: a slower build or machine (ab tells them "
		 "apart)", 100 * f->change, 100 * c->speed_shift, 100 * lo, 100 * hi);
}

void pg_program_settle(struct pg_comparison *c)
{
	for (size_t i = 0; i < c->n && !c->paired; i++) {
		struct pg_fcmp *f = &c->f[i];

		if (f->origin != PG_ORIGIN_PROGRAM)
			continue;
		if (!strcmp(f->name, PG_PROGRAM_CPU)) {
			if (c->speed_runs && c->speed_applied && isfinite(c->speed_shift))
				settle_cpu(c, f);
			continue;
		}
		if (f->verdict != PG_VERDICT_REGRESSION && f->verdict != PG_VERDICT_IMPROVEMENT)
			continue;
		f->verdict = PG_VERDICT_INCONCLUSIVE;
		f->cause = PG_CAUSE_DRIFT;
		snprintf(f->reason, sizeof(f->reason), "%+.1f%%: two recordings apart hold the "
			 "machine's drift in their wall time; the CPU time is judged (ab's pairs "
			 "judge wall time)", 100 * f->change);
	}
}

void pg_program_explain(struct pg_comparison *c, const bool *inside)
{
	struct pg_fcmp *prog = NULL;
	size_t *idx, n = 0;
	double sum = 0, base;

	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].origin == PG_ORIGIN_PROGRAM && !strcmp(c->f[i].name, PG_PROGRAM_CPU))
			prog = &c->f[i];
	if (!prog || !pg_change_counts(prog) || isnan(prog->impact_ns) || !(prog->base_ns > 0))
		return;
	idx = malloc((c->n ? c->n : 1) * sizeof(*idx));
	if (!idx)
		return;	/* no explanation: nothing wrong is said */
	for (size_t i = 0; i < c->n; i++) {
		const struct pg_fcmp *f = &c->f[i];

		/* a change of under 0.1% of the program's CPU time explains nothing of it */
		if (f->origin == PG_ORIGIN_PROGRAM || !pg_change_counts(f) || isnan(f->impact_ns) ||
		    fabs(f->impact_ns) < PG_EXPLAIN_MIN_SHARE * prog->base_ns ||
		    (inside && inside[i]))
			continue;
		idx[n++] = i;
		sum += f->impact_ns;
	}
	sort_c = c;
	qsort(idx, n, sizeof(*idx), cmp_impact);
	base = prog->base_ns;
	snprintf(prog->explain, sizeof(prog->explain), "of its %+.1f%%: ",
		 100 * prog->impact_ns / base);
	for (size_t k = 0; k < n && k < 5; k++) {
		const struct pg_fcmp *f = &c->f[idx[k]];

		pg_append(prog->explain, sizeof(prog->explain), "%s %+.1f%%%s, ", f->display,
			  100 * f->impact_ns / base,
			  f->origin == PG_ORIGIN_SAMPLED ? " (sampled)" : "");
	}
	if (n > 5)
		pg_append(prog->explain, sizeof(prog->explain), "%zu more, ", n - 5);
	if (!n)
		pg_append(prog->explain, sizeof(prog->explain),
			  "no function's change explains it; ");
	pg_append(prog->explain, sizeof(prog->explain), "unexplained %+.1f%%",
		  100 * (prog->impact_ns - sum) / base);
	free(idx);
}
