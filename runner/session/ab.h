/* SPDX-License-Identifier: MIT */
/*
 * runner/session/ab.h - perfgate ab: two commands, BASE and NEW, recorded in one interleaved
 * session (docs/recording.md, "Interleaved A/B"). The machine's drift hits both sides alike, so
 * that compare can test pair by pair.
 *
 * One session, block by block:
 *   pg_ab_begin()	the life cycle of runner/session/session.h for BASE: its functions (the
 *			default budget: sampled pass and pilot on BASE, as record does), the BPF
 *			object, one calibration; then NEW's functions by key (binary base name,
 *			symbol name, scope) in NEW's own binaries, as record --functions-of finds
 *			them; and, when some are in other files than BASE's, the probes attached
 *			again for both (below). Both runs get the same calibration.
 *   pg_ab_pairs()	n more pairs: half of them run BASE first, half NEW first (an odd one
 *			either way), in a random order; each repetition a fresh process tree.
 *			Called again to extend the session (perfgate ab --max-reps).
 *   pg_ab_end()	the end of runner/session/session.h's life cycle; both runs finished.
 *
 * Two sides, one BPF object: the probes' function table (s->probed) is BASE's functions (ids
 * 0 .. base->nfuncs - 1), then NEW's functions whose probe is not one of BASE's (another
 * file, another offset: a build in another directory), ids from base->nfuncs on. A NEW
 * function in the same file at the same offset as a BASE one (the same binary, or a shared
 * library both use) shares its probe and id. s->new_ids maps NEW's function j to its probe
 * id. A repetition's maps are read for the whole table into a scratch repetition and split:
 * BASE keeps ids below base->nfuncs, NEW's function j takes the stat of new_ids[j]. When
 * every NEW function shares a BASE probe, the table is BASE itself and nothing is attached
 * again; otherwise the object is loaded once more with the whole table, after BASE's
 * selection is final and before the first pair (the calibration stays: the same programs).
 *
 * Invariants after each pg_ab_pairs(): both runs have s->npairs repetitions; each pair index
 * 0 .. npairs - 1 is on one repetition of each run; the seq of the two runs' repetitions are
 * 0 .. 2 npairs - 1, each once, in the order they ran (and each run's repetitions are in the
 * order they ran). Both runs carry the session id and their side from pg_ab_begin() on.
 *
 * Life cycle and ownership: zero the struct, pg_ab_begin(), pg_ab_pairs() any number of times,
 * pg_ab_end() always (also after a failure), which releases what the struct owns. The options
 * and the two runs (initialised, empty) are borrowed; the runs are the caller's to write.
 * Stop signals are blocked from pg_ab_begin() to pg_ab_end() (runner/launch/launch.h): a SIGINT
 * between two blocks ends the next pg_ab_pairs(), or pg_ab_end(), with -EINTR.
 *
 *	struct pg_ab ab = { 0 };
 *
 *	err = pg_ab_begin(&ab, &opts, &base, &new);
 *	err = err ?: pg_ab_pairs(&ab, 10);
 *	while (!err && more_needed(&base, &new) && ab.npairs < 20)
 *		err = pg_ab_pairs(&ab, 5);
 *	err = pg_ab_end(&ab, err);
 *	if (!err)
 *		...			// write base and new (formats/runfile.h)
 */
#ifndef PG_AB_H
#define PG_AB_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/run.h"
#include "../profile/codesum.h"
#include "recorder.h"
#include "session.h"

struct pg_ab_opts {
	struct pg_record_opts rec;	/* rec.argv: BASE; selection, budget, sampling, timeout,
					 * user, failures: as record takes them; rec.repetitions
					 * is not read (pg_ab_pairs() says how many) */
	char **new_argv;		/* NEW, NULL-terminated */
	size_t new_argc;
	const char *base_name;		/* how NEW's selection names BASE's run in messages
					 * and in NEW's meta.options.functions_of
					 * ("DIR/base.json") */
	uint64_t seed;			/* of the running order; 0: a random one */
};

struct pg_ab {
	const struct pg_ab_opts *o;
	struct pg_run *base, *new;	/* borrowed */
	struct pg_recording rec;
	struct pg_run probed;		/* the probes' table when NEW adds some, else empty */
	const struct pg_run *table;	/* &probed, or base */
	uint32_t *new_ids;		/* new->nfuncs entries: NEW function -> probe id */
	struct pg_rep scratch;		/* a repetition's maps, before they are split */
	uint32_t npairs;		/* recorded so far, on each side */
	uint64_t seed;			/* the running order's (o->seed, or the random one) */
	uint64_t rng;
	struct pg_codesums codes;	/* the files whose code digests were taken */
};

/*
 * Begin the session: BASE's and NEW's functions, the probes, the calibration (above); the
 * runs' metadata with the session id and sides. 0 or -errno (logged): -EPERM without the
 * privileges, -ENOENT when NEW has none of BASE's functions, ... as pg_record().
 */
int pg_ab_begin(struct pg_ab *s, const struct pg_ab_opts *o, struct pg_run *base,
		struct pg_run *new);

/*
 * Record @n more pairs (a progress line each, unless quiet: "pair 3/10: base 0.101 s, new
 * 0.108 s"). 0, or -errno (logged): -EINTR after a stop signal; -ECHILD or -ETIME when a side
 * failed without rec.allow_failure, the message naming the side and its command.
 */
int pg_ab_pairs(struct pg_ab *s, uint32_t n);

/*
 * The running order of a block of @n pairs (pure; pg_ab_pairs() uses it): new_first[k] (@n
 * entries) says whether pair k runs NEW first. n / 2 of them do, and the odd one of an odd @n
 * either way, chosen with the generator state *@rng (any value; advanced), as is which
 * pairs they are (every arrangement equally likely).
 */
void pg_ab_order(uint64_t *rng, uint32_t n, bool *new_first);

/*
 * The whole session, as perfgate ab runs it: begin, the first block of @first pairs and a
 * comparison (diff/compare.h, with @copts), then while the comparison is undecided blocks of
 * PG_AB_BLOCK pairs up to @max, one sequential look each (a single look at alpha when @max ==
 * @first), and the end. The last look's result in @cmp (initialised). 0 or -errno (logged).
 */
#define PG_AB_BLOCK 5
struct pg_comparison;
struct pg_compare_opts;
int pg_ab_session(const struct pg_ab_opts *o, uint32_t first, uint32_t max,
		  const struct pg_compare_opts *copts, struct pg_run *base, struct pg_run *new,
		  struct pg_comparison *cmp);

/*
 * End the session that ended with @err: finish both runs (their repetition counts; the
 * sampled frames' sources, in both), detach everything, restore the signals, free what @s
 * owns. Returns the session's result: -EINTR when a stop signal came after the last pair.
 */
int pg_ab_end(struct pg_ab *s, int err);

#endif
