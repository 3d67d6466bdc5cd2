// SPDX-License-Identifier: MIT
/*
 * formats/runfile_stats.c - the compact rows of version-3 run files and the checks of one
 * statistic (formats/runfile_stats.h; the format: docs/run-format.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runfile_stats.h"

#define WHY(...) ((why && whylen) ? (void)snprintf(why, whylen, __VA_ARGS__) : (void)0)

/* In the order of enum pg_statcol; the site columns in the order of enum pg_site. */
static const char *const col_names[PG_STATCOL_KNOWN] = {
	"id", "calls", "total_ns", "self_ns", "min_ns", "max_ns",
	"desc.unknown", "desc.nop5", "desc.emulated", "desc.sstep",
	"kids.unknown", "kids.nop5", "kids.emulated", "kids.sstep",
	"probe_ns", "desc_probe_ns", "kids_probe_ns",
	"tails.unknown", "tails.nop5", "tails.emulated", "tails.sstep",
	"desc_tails.unknown", "desc_tails.nop5", "desc_tails.emulated", "desc_tails.sstep",
	"offcpu_ns", "runq_ns", "self_offcpu_ns", "self_runq_ns",
};

_Static_assert(PG_SITE_COUNT == 4 && PG_SITE_UNKNOWN == 0 && PG_SITE_NOP5 == 1 &&
	       PG_SITE_EMULATED == 2 && PG_SITE_SSTEP == 3,
	       "the desc./kids./tails./desc_tails. column names follow enum pg_site");

const char *pg_statcol_name(int col)
{
	return col >= 0 && col < PG_STATCOL_KNOWN ? col_names[col] : "?";
}

/* The field of @s that known column @col (not the id) holds. */
static uint64_t *field(struct pg_fstat *s, int col)
{
	switch (col) {
	case PG_STATCOL_CALLS:
		return &s->calls;
	case PG_STATCOL_TOTAL:
		return &s->total_ns;
	case PG_STATCOL_SELF:
		return &s->self_ns;
	case PG_STATCOL_MIN:
		return &s->min_ns;
	case PG_STATCOL_MAX:
		return &s->max_ns;
	case PG_STATCOL_PROBE:
		return &s->probe_ns;
	case PG_STATCOL_DESC_PROBE:
		return &s->desc_probe_ns;
	case PG_STATCOL_KIDS_PROBE:
		return &s->kids_probe_ns;
	case PG_STATCOL_OFFCPU:
		return &s->offcpu_ns;
	case PG_STATCOL_RUNQ:
		return &s->runq_ns;
	case PG_STATCOL_SELF_OFFCPU:
		return &s->self_offcpu_ns;
	case PG_STATCOL_SELF_RUNQ:
		return &s->self_runq_ns;
	}
	if (col >= PG_STATCOL_DESC_TAILS)
		return &s->desc_tails[col - PG_STATCOL_DESC_TAILS];
	if (col >= PG_STATCOL_TAILS)
		return &s->tails[col - PG_STATCOL_TAILS];
	if (col >= PG_STATCOL_KIDS)
		return &s->kids[col - PG_STATCOL_KIDS];
	return &s->desc[col - PG_STATCOL_DESC];
}

static uint64_t value(const struct pg_fstat *s, int col)
{
	return col == PG_STATCOL_ID ? s->func : *field((struct pg_fstat *)s, col);
}

void pg_statcols_for_run(const struct pg_run *run, struct pg_statcols *out)
{
	bool used[PG_STATCOL_KNOWN] = { false };

	for (size_t r = 0; r < run->nreps; r++)
		for (size_t i = 0; i < run->reps[r].nstats; i++)
			for (int c = PG_STATCOL_NREQUIRED; c < PG_STATCOL_KNOWN; c++)
				used[c] |= value(&run->reps[r].stats[i], c) != 0;
	out->n = 0;
	for (int c = 0; c < PG_STATCOL_KNOWN; c++)
		if (c < PG_STATCOL_NREQUIRED || used[c])
			out->col[out->n++] = c;
}

int pg_statcols_add(struct pg_statcols *c, const char *name, char *why, size_t whylen)
{
	int col = PG_STATCOL_UNKNOWN;

	for (int k = 0; k < PG_STATCOL_KNOWN; k++)
		if (!strcmp(name, col_names[k]))
			col = k;
	if (c->n == PG_STATCOLS_MAX) {
		WHY("more than %d columns", PG_STATCOLS_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; col != PG_STATCOL_UNKNOWN && i < c->n; i++) {
		if (c->col[i] == col) {
			WHY("column \"%s\" is named twice", name);
			return -EINVAL;
		}
	}
	c->col[c->n++] = col;
	return 0;
}

int pg_statcols_check(const struct pg_statcols *c, char *why, size_t whylen)
{
	for (int k = 0; k < PG_STATCOL_NREQUIRED; k++) {
		bool found = false;

		for (size_t i = 0; i < c->n; i++)
			found |= c->col[i] == k;
		if (!found) {
			WHY("column \"%s\" is missing", col_names[k]);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- writing ---- */

/* Rows are formatted into a small buffer, moved to the string buffer when it fills up. */
struct out {
	struct pg_strbuf *sb;
	size_t n;
	char buf[4096];
};

static void out_flush(struct out *o)
{
	pg_strbuf_addn(o->sb, o->buf, o->n);
	o->n = 0;
}

/* @sep (unless 0) then @v in decimal. */
static void out_u64(struct out *o, char sep, uint64_t v)
{
	char digits[20];
	int n = 0;

	if (o->n + 1 + sizeof(digits) > sizeof(o->buf))
		out_flush(o);
	if (sep)
		o->buf[o->n++] = sep;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		o->buf[o->n++] = digits[--n];
}

int pg_stats_encode(const struct pg_rep *rep, const struct pg_statcols *c, struct pg_strbuf *sb)
{
	struct out o = { .sb = sb };

	for (size_t i = 0; i < rep->nstats; i++) {
		const struct pg_fstat *s = &rep->stats[i];

		for (size_t k = 0; k < c->n; k++)
			out_u64(&o, i && !k ? ';' : k ? ' ' : 0, value(s, c->col[k]));
		for (size_t b = 0; b < s->hist.n; b++) {
			out_u64(&o, ' ', s->hist.idx[b]);
			out_u64(&o, ':', s->hist.count[b]);
		}
	}
	out_flush(&o);
	return sb->err;
}

/* ---- reading ---- */

/* A canonical unsigned decimal at *@p (before @end) into *@v; advances *@p. */
static int get_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p, *stop = end - s > 19 ? s + 19 : end;
	uint64_t x = 0;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	if (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9')
		return -EINVAL;
	/* 19 digits cannot overflow */
	for (; s < stop && *s >= '0' && *s <= '9'; s++)
		x = x * 10 + (unsigned int)(*s - '0');
	if (s < end && *s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s - '0');

		if (x > (UINT64_MAX - d) / 10 || (++s < end && *s >= '0' && *s <= '9'))
			return -ERANGE;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

/* What was expected at *p, for a message ("the end of the row", a character). */
static const char *seen(const char *p, const char *end, char *buf, size_t size)
{
	if (p == end)
		return "the end of the string";
	if (*p >= 0x20 && *p < 0x7f)
		snprintf(buf, size, "'%c'", *p);
	else
		snprintf(buf, size, "byte 0x%02x", (unsigned char)*p);
	return buf;
}

/* One row's histogram, " bucket:count" pairs, into @h (exactly the room it needs). */
static int get_hist(const char **pp, const char *end, size_t row, struct pg_hist *h,
		    char *why, size_t whylen)
{
	uint32_t idx[PG_HIST_NBUCKETS];
	uint64_t count[PG_HIST_NBUCKETS], total = 0;
	const char *p = *pp;
	char ch[16];
	size_t n = 0;

	while (p < end && *p == ' ') {
		uint64_t b, c;
		int err;

		p++;
		err = get_u64(&p, end, &b);
		if (!err && (p == end || *p != ':')) {
			WHY("row %zu: expected ':' after histogram bucket %" PRIu64 ", not %s", row,
			    b, seen(p, end, ch, sizeof(ch)));
			return -EINVAL;
		}
		if (!err) {
			p++;
			err = get_u64(&p, end, &c);
		}
		if (err) {
			WHY("row %zu: histogram pair %zu is not bucket:count (unsigned decimals "
			    "below 2^64, no leading zeros)", row, n);
			return -EINVAL;
		}
		if (b >= PG_HIST_NBUCKETS) {
			WHY("row %zu: histogram bucket %" PRIu64 " is out of range (> %d)", row, b,
			    PG_HIST_NBUCKETS - 1);
			return -EINVAL;
		}
		if (!c) {
			WHY("row %zu: histogram bucket %" PRIu64 " has count 0 (only non-empty "
			    "buckets are listed)", row, b);
			return -EINVAL;
		}
		if (n && b <= idx[n - 1]) {
			WHY("row %zu: histogram buckets must be strictly increasing (%" PRIu64
			    " after %u)", row, b, idx[n - 1]);
			return -EINVAL;
		}
		if (total + c < total) {
			WHY("row %zu: histogram counts overflow", row);
			return -EINVAL;
		}
		total += c;
		idx[n] = (uint32_t)b;
		count[n++] = c;
	}
	if (!n) {
		WHY("row %zu: expected a histogram (\" bucket:count\" pairs) after the %s, not %s",
		    row, "columns", seen(p, end, ch, sizeof(ch)));
		return -EINVAL;
	}
	if (pg_hist_reserve(h, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		pg_hist_add(h, idx[i], count[i]);	/* in order: appends into the room */
	*pp = p;
	return 0;
}

int pg_stats_decode(const char *s, size_t len, const struct pg_statcols *c, size_t nfuncs,
		    struct pg_rep *rep, char *why, size_t whylen)
{
	const char *p = s, *end = s + len;
	size_t rows = len ? 1 : 0;
	char ch[16];

	/* one row a function, ';' between them: the repetition's statistics, allocated once */
	for (const char *q = memchr(p, ';', len); q; q = memchr(q + 1, ';', (size_t)(end - q - 1)))
		rows++;
	if (pg_rep_reserve_stats(rep, rep->nstats + rows)) {
		WHY("out of memory");
		return -ENOMEM;
	}
	for (size_t row = 0; p < end; row++) {
		struct pg_fstat st = { 0 }, *dst;
		char msg[200];
		int err;

		if (row) {
			if (*p != ';') {
				WHY("row %zu: expected ';' or the end of the string after the "
				    "histogram, not %s", row - 1, seen(p, end, ch, sizeof(ch)));
				return -EINVAL;
			}
			p++;
		}
		for (size_t k = 0; k < c->n; k++) {
			uint64_t v;

			if (k && (p == end || *p++ != ' ')) {
				WHY("row %zu: expected a space before column \"%s\"", row,
				    pg_statcol_name(c->col[k]));
				return -EINVAL;
			}
			if (get_u64(&p, end, &v)) {
				WHY("row %zu: column \"%s\" must be an unsigned decimal below 2^64 "
				    "without leading zeros, not %s", row,
				    c->col[k] == PG_STATCOL_UNKNOWN ? "(unknown)" :
				    pg_statcol_name(c->col[k]), seen(p, end, ch, sizeof(ch)));
				return -EINVAL;
			}
			if (c->col[k] == PG_STATCOL_ID) {
				if (v > UINT32_MAX) {
					WHY("row %zu: \"id\" %" PRIu64 " is out of range", row, v);
					return -EINVAL;
				}
				st.func = (uint32_t)v;
			} else if (c->col[k] != PG_STATCOL_UNKNOWN) {
				*field(&st, c->col[k]) = v;
			}
		}
		err = get_hist(&p, end, row, &st.hist, why, whylen);
		if (!err) {
			err = pg_runfile_check_stat(rep, nfuncs, &st, msg, sizeof(msg));
			if (err)
				WHY("row %zu: %s", row, msg);
		}
		if (!err) {
			dst = pg_rep_add_stat(rep, st.func);
			err = dst ? 0 : -ENOMEM;
		}
		if (err) {
			pg_hist_release(&st.hist);
			if (err == -ENOMEM)
				WHY("out of memory");
			return err;
		}
		*dst = st;	/* the histogram's arrays move into the repetition */
	}
	return 0;
}

int pg_runfile_check_stat(const struct pg_rep *rep, size_t nfuncs, const struct pg_fstat *s,
			  char *why, size_t whylen)
{
	const struct pg_fstat *last = rep->nstats ? &rep->stats[rep->nstats - 1] : NULL;
	bool any_desc = false;
	uint64_t held;

	if (s->func >= nfuncs) {
		WHY("\"id\" %u is not a function of this run (it has %zu)", s->func, nfuncs);
		return -EINVAL;
	}
	if (last && s->func == last->func) {
		WHY("function %u appears twice", s->func);
		return -EINVAL;
	}
	if (last && s->func < last->func) {
		WHY("functions must be sorted by id (%u after %u)", s->func, last->func);
		return -EINVAL;
	}
	if (!s->calls) {
		WHY("\"calls\" is 0 (functions that were not called are left out)");
		return -EINVAL;
	}
	if (s->self_ns > s->total_ns) {
		WHY("\"self_ns\" %" PRIu64 " is larger than \"total_ns\" %" PRIu64, s->self_ns,
		    s->total_ns);
		return -EINVAL;
	}
	if (s->min_ns > s->max_ns) {
		WHY("\"min_ns\" %" PRIu64 " is larger than \"max_ns\" %" PRIu64, s->min_ns,
		    s->max_ns);
		return -EINVAL;
	}
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		if (s->kids[k] > s->desc[k]) {
			WHY("\"kids\" counts more %s calls than \"desc\"",
			    pg_site_name((enum pg_site)k));
			return -EINVAL;
		}
		if (s->tails[k] > s->kids[k] || s->desc_tails[k] > s->desc[k]) {
			WHY("\"tails\" or \"desc_tails\" counts more %s calls than \"kids\" or "
			    "\"desc\"", pg_site_name((enum pg_site)k));
			return -EINVAL;
		}
		any_desc |= s->desc[k] != 0;
	}
	if (s->kids_probe_ns > s->desc_probe_ns) {
		WHY("\"kids_probe_ns\" is larger than \"desc_probe_ns\"");
		return -EINVAL;
	}
	if (s->desc_probe_ns && !any_desc) {
		WHY("\"desc_probe_ns\" without traced calls in \"desc\"");
		return -EINVAL;
	}
	if (pg_fstat_check_offcpu(s, why, whylen))
		return -EINVAL;
	held = pg_hist_total(&s->hist);
	if (held != s->calls) {
		WHY("\"hist\" holds %" PRIu64 " calls, \"calls\" is %" PRIu64, held, s->calls);
		return -EINVAL;
	}
	return 0;
}
