/* SPDX-License-Identifier: MIT */
/*
 * formats/folded.h - folded stacks: the text format of flamegraph.pl, inferno and speedscope.
 *
 * One stack per line, frames root first separated by ';', then one space and a sample count:
 *
 *	main;parse;lex 123
 *
 * Frame names may contain spaces (the count follows the last one) but no ';' and no control
 * characters (see pg_folded_valid() in core/run.h). perfgate writes stacks sorted by the stack
 * string, one line each, "\n"-terminated.
 */
#ifndef PG_FOLDED_H
#define PG_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/run.h"

/*
 * Parse folded text @text[0..len) (not necessarily NUL-terminated) into a sorted, unique array
 * (counts of repeated stacks are added). Empty lines and a final line without "\n" are fine;
 * "\r\n" line ends are accepted. Anything else malformed - no count, a count that is not a
 * decimal integer >= 1 or overflows 64 bits (also when summed), an empty frame, a control
 * character or NUL byte - fails the whole parse with -EINVAL and a reason naming the line in
 * @why (of @whylen bytes, may be NULL). On success *out (malloc'd, free with
 * pg_stacks_free()) and *n are set; -ENOMEM on allocation failure. Never reads past @len.
 */
int pg_folded_parse(const char *text, size_t len, struct pg_stack **out, size_t *n, char *why,
		    size_t whylen);

/*
 * The stacks of repetition @rep of @run, or of all repetitions added up when @rep < 0, as a
 * new sorted unique array. 0, -ENOMEM, or -EINVAL if @rep does not exist.
 */
int pg_stacks_merge(const struct pg_run *run, long rep, struct pg_stack **out, size_t *n);

void pg_stacks_free(struct pg_stack *v, size_t n);

/* The off-CPU stacks of @run, over all repetitions (0: none were recorded). */
size_t pg_run_noffcpu(const struct pg_run *run);

/*
 * Make each repetition's off-CPU stacks (pg_rep.offcpu, counts in nanoseconds) its stacks, so
 * that whatever reads stacks (probe folding, merging, flame trees, pprof) reads them: the
 * sampled stacks and own samples (pg_rep.own, pg_run.objects) are freed, samples becomes the
 * repetition's off-CPU nanoseconds in stacks, samples_lost and samples_truncated 0 (the run
 * stays valid). 0, or -EOVERFLOW when a
 * repetition's nanoseconds do not fit 64 bits (the run is then partly converted).
 */
int pg_run_offcpu_as_stacks(struct pg_run *run);

/* Write @v[0..n) as folded text. 0 or -EIO. */
int pg_folded_write(FILE *f, const struct pg_stack *v, size_t n);

#endif
