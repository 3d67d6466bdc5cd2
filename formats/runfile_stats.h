/* SPDX-License-Identifier: MIT */
/*
 * formats/runfile_stats.h - the compact encoding of a repetition's function statistics in run
 * files of version 3 (docs/run-format.md, "repetitions[].stats"), and the checks every
 * version's reader applies to one statistic.
 *
 * Version 3 writes the bulk of a run file, one row per function called in a repetition, as
 * one JSON string per repetition instead of an object per function: json-c keeps a string as
 * one allocation, where an object tree of the same data takes about 35 times the file's size
 * and most of the reading time. The string holds unsigned decimal integers only:
 *
 *	"0 3 300 200 90 110 90:1 100:2;1 1 50 50 50 50 50:1"
 *
 * Rows are separated by ';'. A row is one value per column of the file's "stat_columns"
 * (struct pg_statcols), separated by single spaces, then the latency histogram as
 * " bucket:count" pairs (at least one). Numbers are canonical: digits only, no sign, no
 * leading zero, at most 2^64 - 1. The columns are named once per file, so a later version can
 * add optional columns that an older reader skips (unknown names are read and ignored).
 *
 * Invariants:
 *  - pg_stats_decode() accepts exactly what pg_stats_encode() can write for a valid run, plus
 *    unknown columns; the statistics it appends pass pg_runfile_check_stat(), in order.
 *  - Nothing here logs or touches json-c: errors come back as -EINVAL (or -ENOMEM) with a
 *    one-line reason in @why, which the reader logs with the file and JSON path.
 *
 * Example (the writer, then the reader):
 *
 *	struct pg_statcols cols;
 *	struct pg_strbuf sb = PG_STRBUF_INIT;
 *
 *	pg_statcols_for_run(run, &cols);	// names: pg_statcol_name(cols.col[i])
 *	err = pg_stats_encode(&run->reps[r], &cols, &sb);
 *	...
 *	err = pg_statcols_add(&cols, name, why, sizeof(why));	// for each name read
 *	err = err ?: pg_statcols_check(&cols, why, sizeof(why));
 *	err = err ?: pg_stats_decode(text, len, &cols, run->nfuncs, rep, why, sizeof(why));
 */
#ifndef PG_RUNFILE_STATS_H
#define PG_RUNFILE_STATS_H

#include <stddef.h>

#include "../core/run.h"
#include "../core/strbuf.h"

/* The columns this perfgate knows. desc, kids, tails and desc_tails have one column per site
 * kind. */
enum pg_statcol {
	PG_STATCOL_ID,
	PG_STATCOL_CALLS,
	PG_STATCOL_TOTAL,
	PG_STATCOL_SELF,
	PG_STATCOL_MIN,
	PG_STATCOL_MAX,
	PG_STATCOL_NREQUIRED,			/* the columns above are required */
	PG_STATCOL_DESC = PG_STATCOL_NREQUIRED,	/* + enum pg_site */
	PG_STATCOL_KIDS = PG_STATCOL_DESC + PG_SITE_COUNT,
	PG_STATCOL_PROBE = PG_STATCOL_KIDS + PG_SITE_COUNT,
	PG_STATCOL_DESC_PROBE,
	PG_STATCOL_KIDS_PROBE,
	PG_STATCOL_TAILS,			/* + enum pg_site */
	PG_STATCOL_DESC_TAILS = PG_STATCOL_TAILS + PG_SITE_COUNT,
	PG_STATCOL_OFFCPU = PG_STATCOL_DESC_TAILS + PG_SITE_COUNT,	/* pg_fstat.offcpu_ns */
	PG_STATCOL_RUNQ,			/* runq_ns */
	PG_STATCOL_SELF_OFFCPU,			/* self_offcpu_ns */
	PG_STATCOL_SELF_RUNQ,			/* self_runq_ns */
	PG_STATCOL_KNOWN,			/* how many this perfgate knows */
	PG_STATCOL_UNKNOWN = -1,		/* a column of a later version: skipped */
};

/* At most this many columns in a file (known and unknown). */
#define PG_STATCOLS_MAX 64

/* The columns of one file, in the order of its rows. */
struct pg_statcols {
	size_t n;
	int col[PG_STATCOLS_MAX];	/* enum pg_statcol, or PG_STATCOL_UNKNOWN */
};

/* The name of a known column: "id", "calls", "total_ns", ..., "desc.nop5", "kids_probe_ns". */
const char *pg_statcol_name(int col);

/*
 * The columns the writer writes for @run: the required ones, then each optional one that is
 * not 0 in some statistic of the run (absent columns read as 0).
 */
void pg_statcols_for_run(const struct pg_run *run, struct pg_statcols *out);

/*
 * Reading: append the column named @name (unknown names are PG_STATCOL_UNKNOWN); a repeated
 * known name or too many columns is -EINVAL. Then pg_statcols_check(): every required column
 * is there.
 */
int pg_statcols_add(struct pg_statcols *c, const char *name, char *why, size_t whylen);
int pg_statcols_check(const struct pg_statcols *c, char *why, size_t whylen);

/* Append the rows of @rep's statistics in columns @c to @sb (nothing for no statistics). */
int pg_stats_encode(const struct pg_rep *rep, const struct pg_statcols *c, struct pg_strbuf *sb);

/*
 * Decode the rows @s[0..len) of columns @c into statistics appended to @rep, each checked with
 * pg_runfile_check_stat() against a run of @nfuncs functions. 0, -EINVAL (@why names the row
 * and what is wrong) or -ENOMEM. On failure @rep keeps the statistics decoded before.
 */
int pg_stats_decode(const char *s, size_t len, const struct pg_statcols *c, size_t nfuncs,
		    struct pg_rep *rep, char *why, size_t whylen);

/*
 * The invariants of one statistic @s about to be appended to @rep in a run of @nfuncs
 * functions (core/run.h): its id is a function and comes after the last one in @rep, calls
 * >= 1, self <= total, min <= max, kids <= desc, tails <= kids, desc_tails <= desc,
 * kids_probe_ns <= desc_probe_ns, no
 * desc_probe_ns without desc, and the histogram holds exactly calls. @why gets the reason,
 * naming the keys as run files do ("\"calls\" is 0 ..."). 0 or -EINVAL.
 */
int pg_runfile_check_stat(const struct pg_rep *rep, size_t nfuncs, const struct pg_fstat *s,
			  char *why, size_t whylen);

#endif
