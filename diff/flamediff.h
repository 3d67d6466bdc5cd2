/* SPDX-License-Identifier: MIT */
/*
 * diff/flamediff.h - flame graph trees from sampled stacks, and differential flame graphs.
 * Pure computation: no I/O, no logging.
 *
 * A tree has one node per distinct path of frames from the root ("all", node 0). Widths are
 * the samples of the NEW run (for a plain flame graph, the one run), added up over its
 * repetitions: `total` holds the samples whose stack passes through the node, `self` those
 * that end there.
 *
 * A differential tree also holds the BASE run's counts of the same paths, and for every node
 * that has samples in NEW compares the two sides' per-repetition *shares*: for repetition r,
 * share_r = count_r / (all samples of repetition r), with count_r the node's inclusive count
 * (PG_FLAME_INCLUSIVE) or self count (PG_FLAME_SELF). Normalizing by each repetition's total
 * makes runs of different lengths or sampling rates comparable. The shares are compared with
 * the two-sided Mann-Whitney U test used by perfgate compare (pg_mwu_test), p-values adjusted
 * over all tested nodes with Benjamini-Hochberg (pg_bh_adjust). Only nodes with at least one
 * sample of the metric per repetition (both sides pooled) are tested: rarer ones could not
 * reach significance and would only dilute the correction. A node whose q <= alpha grew
 * (mean share rose) or shrank; everything else is NEUTRAL: the counts cannot tell its change
 * from sampling noise. intensity is |delta| relative to the largest significant |delta|.
 * only_new marks a path no BASE repetition has. Paths only in BASE have no width and are not
 * in the tree's drawing (their samples are missing from NEW); they are counted in
 * gone_samples.
 *
 * Traced functions: given perfgate compare's result (pg_flame_diff_exact()), every node whose
 * frame names a compared function (its display name, as frames are named) takes its change
 * from the exact verdict instead: REGRESSION grew, IMPROVEMENT shrank, anything else NEUTRAL
 * (node.exact points to the function's result, with the reason); a frame of a function judged
 * from the samples (origin PG_ORIGIN_SAMPLED) keeps its path's colour and points to that
 * verdict in node.sampled, for the tooltip. Nodes of traced functions are not in the
 * sample test's family; their intensity is |change| relative to the largest |change| of a
 * regression or improvement in the tree. When two compared functions share a display name
 * (two binaries), the first in the comparison's order (regressions first) colours the frame.
 *
 * Ownership: struct pg_flame owns its nodes and names; pg_flame_release() frees them. A tree
 * built with a comparison points into it (node.exact): the comparison must outlive the tree.
 *
 *	struct pg_flame f;
 *	char why[256];
 *
 *	pg_flame_init(&f);
 *	if (!pg_flame_diff_exact(&base, &new, PG_FLAME_SELF, 0.05, &cmp, &f, why, sizeof(why)))
 *		... f.nodes[0 .. f.n) ...
 *	pg_flame_release(&f);
 */
#ifndef PG_FLAMEDIFF_H
#define PG_FLAMEDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/run.h"
#include "compare.h"

#define PG_FLAME_NONE ((size_t)-1)

enum pg_flame_metric {
	PG_FLAME_SELF = 0,	/* colour by the change of self share (where the time is spent) */
	PG_FLAME_INCLUSIVE,	/* colour by the change of inclusive share */
};

enum pg_flame_change {
	PG_FLAME_NEUTRAL = 0,	/* not tested, or not significant */
	PG_FLAME_GREW,
	PG_FLAME_SHRANK,
};

struct pg_flame_node {
	char *name;		/* frame; "all" for the root */
	size_t parent;		/* PG_FLAME_NONE for the root */
	size_t first_child;	/* children are linked in name order */
	size_t next_sibling;
	size_t depth;		/* root 0 */
	uint64_t total, self;	/* NEW (or the only run): samples over all repetitions */
	uint64_t base_total, base_self;	/* BASE (differential only) */
	/* differential only */
	double base_share, new_share;	/* mean per-repetition share of the coloured metric */
	double delta;		/* new_share - base_share */
	double p, q;		/* NAN when not tested */
	enum pg_flame_change change;
	double intensity;	/* 0..1 for GREW and SHRANK, else 0 */
	bool only_new;		/* in NEW, in no BASE repetition */
	const struct pg_fcmp *exact;	/* the compared traced function of this frame, or NULL:
					 * change then comes from its verdict, not from the
					 * samples */
	const struct pg_fcmp *sampled;	/* the sampled verdict of this frame's function (over
					 * all its frames: it does not colour this path), or
					 * NULL */
	uint64_t *cnt;		/* private: per-repetition counts */
};

struct pg_flame {
	bool diff;
	enum pg_flame_metric metric;
	double alpha;
	size_t n, cap;
	struct pg_flame_node *nodes;	/* [0] is the root */
	size_t nbase, nnew;		/* repetitions of each side */
	uint64_t total;			/* NEW samples in stacks */
	uint64_t base_total;		/* BASE samples in stacks */
	uint64_t gone_samples;		/* BASE samples on paths NEW does not have */
	size_t max_depth;
	bool tested;		/* both sides had >= 2 repetitions with samples */
	bool offcpu;		/* the counts are off-CPU nanoseconds, not samples (the caller
				 * sets it, for the words of the drawing) */
	size_t ngrew, nshrank, nonly_new;	/* frames; ngrew and nshrank include nexact_* */
	bool exact;		/* coloured with a comparison: traced frames by their verdict */
	enum pg_metric exact_metric;	/* the metric the comparison used */
	size_t nexact;		/* frames of compared functions */
	size_t nexact_grew, nexact_shrank;	/* of those, regressions and improvements */
	/* private: the (parent, name) -> node index */
	size_t hcap;
	size_t *hash;
};

void pg_flame_init(struct pg_flame *f);
void pg_flame_release(struct pg_flame *f);

/* The flame tree of repetition @rep of @run, or of all of them when @rep < 0.
 * 0, -ENOMEM, or -EINVAL when @rep does not exist. */
int pg_flame_build(const struct pg_run *run, long rep, struct pg_flame *f);

/*
 * The differential tree of @base against @new (widths from @new), coloured by @metric with
 * false discovery rate @alpha. 0 or -ENOMEM; -EINVAL with a reason in @why when a run has no
 * samples at all.
 */
int pg_flame_diff(const struct pg_run *base, const struct pg_run *new,
		  enum pg_flame_metric metric, double alpha, struct pg_flame *f, char *why,
		  size_t whylen);

/*
 * pg_flame_diff(), with the frames of the functions @cmp compared (perfgate compare's result
 * for the same two runs) coloured by their verdicts; @cmp NULL: pg_flame_diff().
 */
int pg_flame_diff_exact(const struct pg_run *base, const struct pg_run *new,
			enum pg_flame_metric metric, double alpha, const struct pg_comparison *cmp,
			struct pg_flame *f, char *why, size_t whylen);

#endif
