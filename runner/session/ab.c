// SPDX-License-Identifier: MIT
/*
 * runner/session/ab.c - perfgate ab: one interleaved recording session of two commands (ab.h),
 * built on the steps recorder.c shares (session.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "../../core/log.h"
#include "../../core/numfmt.h"
#include "../../core/strv.h"
#include "../../diff/compare.h"
#include "../../formats/runfile.h"
#include "../launch/launch.h"
#include "../launch/resolve.h"
#include "../probes/calibrate.h"
#include "../profile/sampler.h"
#include "ab.h"
#include "libs.h"
#include "meta.h"

/* splitmix64: the running order's generator (not for secrets; seeded per session) */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform integer in [0, n), n >= 1 (the modulo bias of 2^64 is negligible here). */
static uint32_t below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(next_random(state) % n);
}

static uint64_t random_seed(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return v ? v : 1;
}

/* "20261124T001502Z-5d1c0e3a9b27f604": when, and 64 random bits (unique per session) */
static char *new_session_id(void)
{
	char when[32], *id;
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	if (asprintf(&id, "%s-%016" PRIx64, when, random_seed()) < 0)
		return NULL;
	return id;
}

/* Both runs: the session id and their sides. 0 or -ENOMEM. */
static int mark_sides(struct pg_run *base, struct pg_run *new)
{
	base->meta.ab_session = new_session_id();
	new->meta.ab_session = base->meta.ab_session ? strdup(base->meta.ab_session) : NULL;
	if (!base->meta.ab_session || !new->meta.ab_session)
		return -ENOMEM;
	base->meta.ab_side = PG_AB_BASE;
	new->meta.ab_side = PG_AB_NEW;
	return 0;
}

/*
 * NEW's functions: BASE's, by key, in NEW's binaries (record --functions-of BASE); its
 * metadata. 0 or -errno (logged).
 */
static int select_new(struct pg_ab *s)
{
	struct pg_record_opts o = s->o->rec;
	struct pg_discovery disc = PG_DISCOVERY_INIT;
	struct pg_launch *l = &s->rec.launch;
	char why[256] = "";
	int err;

	o.argv = s->o->new_argv;
	o.argc = s->o->new_argc;
	o.functions_of = s->base;
	o.functions_of_path = s->o->base_name;
	o.functions_of_base = true;	/* not the user's --functions-of: messages say so */
	/* the new side's own objects, from its own runs: a library of its build tree */
	err = pg_launch_set_command(l, s->o->new_argv);
	l->side = "new";
	/* when the base side needed the pass (its options), or the new side is a script */
	err = err ?: pg_recording_discover(&s->o->rec, l, &disc, "the new side: ");
	l->side = NULL;
	pg_resolve_env(l->assign, l->nassign);
	err = err ?: pg_recording_select(&o, l->argv[0], &disc, s->new);
	pg_resolve_env(NULL, 0);
	pg_discovery_release(&disc);
	if (!err)	/* the base side's, as pg_recording_begin() set it */
		err = pg_launch_set_command(l, s->o->rec.argv);
	err = err ?: pg_meta_collect(&s->new->meta);
	err = err ?: pg_meta_record_opts(&s->new->meta, &o);
	if (err == -ENOMEM)
		pg_err("the new side: out of memory");
	if (err)
		return err;
	err = pg_runfile_check(s->new, why, sizeof(why));
	if (err)
		pg_err("cannot record the new side's functions: %s", why);
	return err;
}

/*
 * The probe of each NEW function: BASE's function of the same key when it is the same file
 * and offset, else a function of its own appended to s->probed (which then starts with all of
 * BASE's). 0 or -ENOMEM.
 */
static int map_new_probes(struct pg_ab *s)
{
	const struct pg_run *base = s->base, *new = s->new;
	uint32_t *by_key = pg_run_ids_by_key(base);
	size_t nextra = 0;
	int err = 0;

	s->new_ids = calloc(new->nfuncs ? new->nfuncs : 1, sizeof(*s->new_ids));
	if (!by_key || !s->new_ids) {
		free(by_key);
		return -ENOMEM;
	}
	for (size_t j = 0; j < new->nfuncs; j++) {
		const struct pg_func *f = &new->funcs[j], *b = NULL;
		size_t lo = 0, hi = base->nfuncs;

		while (lo < hi) {	/* BASE's function of the same key */
			size_t mid = lo + (hi - lo) / 2;
			int c = pg_func_key_cmp(&base->funcs[by_key[mid]], f);

			if (!c) {
				b = &base->funcs[by_key[mid]];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (b && !strcmp(b->binary, f->binary) && b->offset == f->offset) {
			s->new_ids[j] = b->id;
			continue;
		}
		s->new_ids[j] = UINT32_MAX;	/* its own probe, below */
		nextra++;
	}
	free(by_key);
	if (!nextra) {
		s->table = base;
		return 0;
	}
	/* the table the probes are attached with: BASE's functions, then NEW's others */
	for (size_t i = 0; i < base->nfuncs && !err; i++) {
		const struct pg_func *f = &base->funcs[i];

		err = pg_run_add_func(&s->probed, f->binary, f->name, f->display, f->addr,
				      f->offset, f->site, f->endbr, NULL);
	}
	for (size_t j = 0; j < new->nfuncs && !err; j++) {
		const struct pg_func *f = &new->funcs[j];

		if (s->new_ids[j] == UINT32_MAX)
			err = pg_run_add_func(&s->probed, f->binary, f->name, f->display, f->addr,
					      f->offset, f->site, f->endbr, &s->new_ids[j]);
	}
	s->probed.calib = base->calib;
	s->table = &s->probed;
	pg_debug("ab: %zu functions of the new side have probes of their own (other files)",
		 nextra);
	return err;
}

int pg_ab_begin(struct pg_ab *s, const struct pg_ab_opts *o, struct pg_run *base,
		struct pg_run *new)
{
	struct pg_recording *r = &s->rec;
	int err;

	s->o = o;
	s->base = base;
	s->new = new;
	s->seed = o->seed ? o->seed : random_seed();
	s->rng = s->seed;
	pg_run_init(&s->probed);
	r->launch.side = "base";	/* the base side's unrecorded runs say so */
	err = pg_recording_begin(r, &o->rec, base);
	r->launch.side = NULL;
	err = err ?: select_new(s);
	if (!err && map_new_probes(s)) {
		pg_err("out of memory");
		err = -ENOMEM;
	}
	if (err)
		return err;
	new->calib = base->calib;
	if (s->table != base) {	/* NEW's other files: attach both sides' probes */
		pg_probes_release(&r->probes);
		err = pg_probes_attach(&r->probes, s->table, o->rec.single_attach,
				       r->launch.preload);
		if (err)
			return err;
		pg_launch_excfix_open(&r->probes, &r->launch);
	}
	err = pg_recording_arm(r, &o->rec, base, s->table);
	if (err)
		return err;
	r->guard.narrow = false;	/* the live line only: both sides keep one selection */
	new->hist_compensated = base->hist_compensated;
	new->meta.sample_hz = base->meta.sample_hz;
	new->meta.offcpu = base->meta.offcpu;
	/* two builds in two work trees: each side's commit is its executable's */
	pg_meta_git_commit_of(&base->meta, pg_command_program(o->rec.argv));
	pg_meta_git_commit_of(&new->meta, pg_command_program(o->new_argv));
	err = mark_sides(base, new);
	if (err) {
		pg_err("out of memory");
		return err;
	}
	pg_debug("ab: session %s, running order seed %" PRIu64, base->meta.ab_session, s->seed);
	if (!o->rec.quiet)
		pg_info("tracing %zu function%s in pairs of: %s (base) and %s (new)", base->nfuncs,
			pg_plural(base->nfuncs),
			pg_command_program(o->rec.argv), pg_command_program(o->new_argv));
	return 0;
}

/* Move NEW's statistics out of the scratch repetition into @rep, renumbered. 0 or -ENOMEM. */
static int split_new(struct pg_ab *s, struct pg_rep *rep)
{
	for (size_t j = 0; j < s->new->nfuncs; j++) {
		struct pg_fstat *from = (struct pg_fstat *)pg_rep_find(&s->scratch, s->new_ids[j]);
		struct pg_fstat *to;

		if (!from)
			continue;
		to = pg_rep_add_stat(rep, (uint32_t)j);
		if (!to)
			return -ENOMEM;
		*to = *from;	/* the histogram moves */
		to->func = (uint32_t)j;
		pg_hist_init(&from->hist);
	}
	return 0;
}

/* Keep in BASE's repetition @rep the scratch's statistics of BASE's own ids. 0 or -ENOMEM. */
static int split_base(struct pg_ab *s, struct pg_rep *rep)
{
	for (size_t i = 0; i < s->scratch.nstats && s->scratch.stats[i].func < s->base->nfuncs;
	     i++) {
		struct pg_fstat *from = &s->scratch.stats[i];
		struct pg_fstat *to = pg_rep_add_stat(rep, from->func);

		if (!to)
			return -ENOMEM;
		*to = *from;
		pg_hist_init(&from->hist);
	}
	return 0;
}

/*
 * The threads the maps hold (their on-/off-CPU split) are the repetition's whichever side it is:
 * moved from the scratch into @rep, which is new and has none. (The sampler writes its samples and
 * off-CPU stacks into @rep itself: pg_recording_once().)
 */
static void move_threads(struct pg_rep *scratch, struct pg_rep *rep)
{
	rep->threads = scratch->threads;
	rep->nthreads = scratch->nthreads;
	scratch->threads = NULL;
	scratch->nthreads = 0;
}

/* One repetition of @side, of pair @pair: run, read, judged. 0 or -errno (logged). */
static int run_side(struct pg_ab *s, enum pg_ab_side side, uint32_t pair, uint32_t seq,
		    uint64_t *wall)
{
	const bool is_base = side == PG_AB_BASE;
	struct pg_run *run = is_base ? s->base : s->new;
	struct pg_launch *l = &s->rec.launch;
	/* the maps go straight into BASE's repetition when the table is BASE's */
	const bool direct = is_base && s->table == s->base;
	struct pg_rep *rep = pg_run_add_rep(run);
	int err;

	if (!rep)
		return -ENOMEM;
	rep->pair = pair;
	rep->seq = seq;
	err = pg_launch_set_command(l, is_base ? s->o->rec.argv : s->o->new_argv);
	if (err)
		return err;
	l->side = is_base ? "base" : "new";
	if (s->rec.probes.sampler)
		pg_sampler_set_side(s->rec.probes.sampler, is_base ? 0 : 1);
	pg_launch_phase(l, run->nreps > 1 ? run->reps[run->nreps - 2].wall_ns : s->rec.sampled_wall,
			"pair %u, %s side", pair + 1, l->side);
	pg_rep_release(&s->scratch);
	err = pg_recording_once(&s->rec, s->table, seq, rep, direct ? rep : &s->scratch);
	if (err == PG_GUARD_STOPPED)	/* not with narrow off; counted as it is */
		err = 0;
	if (!err && !direct) {
		move_threads(&s->scratch, rep);
		err = is_base ? split_base(s, rep) : split_new(s, rep);
	}
	if (err == -ENOMEM)
		pg_err("out of memory");
	else if (err && err != -EINTR)
		pg_err("%s side: %s could not be run (pair %u); no run files written", l->side,
		       l->argv[0], pair + 1);
	if (err)
		return err;
	*wall = rep->wall_ns;
	if (pair == 0)
		pg_calib_warn_overhead(run, rep);
	err = pg_launch_verdict(&s->o->rec, l, pair, rep, &s->rec.probes.fix);
	if (!err && pair == 0)
		err = pg_recording_check_first(&s->rec, run, rep, is_base ? "base side: " :
					       "new side: ");
	return err;
}

void pg_ab_order(uint64_t *rng, uint32_t n, bool *new_first)
{
	uint32_t nnew_first = n / 2 + (n % 2 ? below(rng, 2) : 0);

	/* balanced: half the pairs run NEW first; which ones, at random (Fisher-Yates) */
	for (uint32_t k = 0; k < n; k++)
		new_first[k] = k < nnew_first;
	for (uint32_t k = n; k > 1; k--) {
		uint32_t j = below(rng, k);
		bool t = new_first[k - 1];

		new_first[k - 1] = new_first[j];
		new_first[j] = t;
	}
}

int pg_ab_pairs(struct pg_ab *s, uint32_t n)
{
	const uint32_t first = s->npairs, end = s->npairs + n;
	bool *new_first = calloc(n ? n : 1, sizeof(*new_first));
	int err = 0;

	if (!new_first) {
		pg_err("out of memory");
		return -ENOMEM;
	}
	pg_ab_order(&s->rng, n, new_first);
	for (uint32_t k = 0; k < n && !err; k++) {
		const uint32_t pair = first + k;
		enum pg_ab_side order[2] = { PG_AB_BASE, PG_AB_NEW };
		uint64_t wall[3] = { 0 };	/* by side */

		if (new_first[k]) {
			order[0] = PG_AB_NEW;
			order[1] = PG_AB_BASE;
		}
		for (int i = 0; i < 2 && !err; i++)
			err = run_side(s, order[i], pair, 2 * pair + (uint32_t)i, &wall[order[i]]);
		if (err)
			break;
		s->npairs = pair + 1;
		if (!s->o->rec.quiet) {
			char eta[32];

			pg_eta(eta, sizeof(eta), (end - pair - 1) * (wall[PG_AB_BASE] +
								   wall[PG_AB_NEW]));
			pg_info("pair %u/%u: base %.3f s, new %.3f s%s%s%s", pair + 1, end,
				(double)wall[PG_AB_BASE] / 1e9, (double)wall[PG_AB_NEW] / 1e9,
				new_first[k] ? " (new first)" : "", eta[0] ? "; " : "", eta);
		}
	}
	free(new_first);
	return err;
}

/* NEW gets a copy of BASE's frame sources (the sampled frames of both sides). 0 or -ENOMEM. */
static int copy_sources(const struct pg_run *from, struct pg_run *to)
{
	if (!from->nsources)
		return 0;
	to->sources = calloc(from->nsources, sizeof(*to->sources));
	if (!to->sources)
		return -ENOMEM;
	for (size_t i = 0; i < from->nsources; i++) {
		struct pg_source *d = &to->sources[i];

		d->frame = strdup(from->sources[i].frame);
		d->file = strdup(from->sources[i].file);
		d->line = from->sources[i].line;
		to->nsources = i + 1;
		if (!d->frame || !d->file)
			return -ENOMEM;
	}
	return 0;
}

int pg_ab_end(struct pg_ab *s, int err)
{
	s->base->meta.repetitions = s->npairs;
	s->new->meta.repetitions = s->npairs;
	/* the new side's libraries while the sampler lives (the base's: pg_recording_end()) */
	if (!err && s->rec.probes.sampler)
		err = pg_meta_libraries(&s->new->meta, pg_sampler_objects(s->rec.probes.sampler),
					1, NULL);
	err = pg_recording_end(&s->rec, &s->o->rec, s->base, err);
	if (!err && copy_sources(s->base, s->new)) {
		pg_err("out of memory");
		err = -ENOMEM;
	}
	pg_rep_release(&s->scratch);
	pg_run_release(&s->probed);
	pg_codesums_release(&s->codes);
	free(s->new_ids);
	s->new_ids = NULL;
	return err;
}

/* Both sides' code digests so far, for a look at them (pg_recording_codes()). */
static int ab_codes(struct pg_ab *s)
{
	return pg_recording_codes(&s->rec, &s->codes, s->base, 0) ?:
	       pg_recording_codes(&s->rec, &s->codes, s->new, 1);
}

int pg_ab_session(const struct pg_ab_opts *o, uint32_t first, uint32_t max,
		  const struct pg_compare_opts *copts, struct pg_run *base, struct pg_run *new,
		  struct pg_comparison *cmp)
{
	struct pg_compare_opts co = *copts;
	struct pg_ab ab = { 0 };
	struct pg_comparison prev;
	int err;

	co.looks = max > first ? 1 + (max - first + PG_AB_BLOCK - 1) / PG_AB_BLOCK : 0;
	co.look = co.looks ? 1 : 0;
	pg_comparison_init(&prev);
	err = pg_ab_begin(&ab, o, base, new);
	err = err ?: pg_ab_pairs(&ab, first);
	err = err ?: ab_codes(&ab);
	err = err ?: pg_compare_look(base, new, &co, NULL, cmp);
	while (!err && ab.npairs < max && pg_comparison_undecided(cmp)) {
		uint32_t more = max - ab.npairs < PG_AB_BLOCK ? max - ab.npairs : PG_AB_BLOCK;

		if (!o->rec.quiet)
			pg_info("look %u of at most %u: undecided after %u pairs, %u more",
				co.look, co.looks, ab.npairs, more);
		err = pg_ab_pairs(&ab, more);
		if (err)
			break;
		/* this look's result becomes the previous one */
		pg_comparison_release(&prev);
		prev = *cmp;
		pg_comparison_init(cmp);
		co.look++;
		err = ab_codes(&ab) ?: pg_compare_look(base, new, &co, &prev, cmp);
	}
	if (err && err != -EINTR && cmp->error[0])
		pg_err("%s", cmp->error);
	pg_comparison_release(&prev);
	err = pg_ab_end(&ab, err);
	if (!err && !o->rec.quiet)
		pg_info("%u pair%s (at most %u), %u look%s", ab.npairs, pg_plural(ab.npairs), max,
			co.look ? co.look : 1, pg_plural(co.look ? co.look : 1));
	return err;
}
