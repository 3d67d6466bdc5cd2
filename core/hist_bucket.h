/* SPDX-License-Identifier: MIT */
/*
 * core/hist_bucket.h - the log-linear latency bucket scheme, shared by the BPF program and user
 * space. Plain C with no includes so that clang -target bpf can use it as is.
 *
 * Values are nanoseconds. Values below 2^PG_HIST_SUB_BITS (64) get a bucket each (width 1 ns).
 * Above, each power of two [2^e, 2^(e+1)) is split into 64 equal sub-buckets of width
 * 2^(e-6), so a bucket is at most 1/64 = 1.56% of its lower bound wide. The last power of two
 * is PG_HIST_MAX_EXP (2^42 ns = 73 minutes); larger values fall into the last bucket.
 *
 *   index(v) = v                                   for v < 64
 *            = 64 + (e - 6) * 64 + (v >> (e - 6)) - 64   for e = floor(log2 v) >= 6
 */
#ifndef PG_HIST_BUCKET_H
#define PG_HIST_BUCKET_H

#define PG_HIST_SUB_BITS 6
#define PG_HIST_SUB (1u << PG_HIST_SUB_BITS)
#define PG_HIST_MAX_EXP 41
#define PG_HIST_NBUCKETS (PG_HIST_SUB + (PG_HIST_MAX_EXP - PG_HIST_SUB_BITS + 1) * PG_HIST_SUB)

/* floor(log2(v)) for v > 0, without clz (the BPF backend has none). */
static inline unsigned int pg_log2_u64(unsigned long long v)
{
	unsigned int r = 0, shift;

	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFFULL) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFFULL) << 3; v >>= shift; r |= shift;
	shift = (v > 0xFULL) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3ULL) << 1; v >>= shift; r |= shift;
	r |= (unsigned int)(v >> 1);
	return r;
}

static inline unsigned int pg_hist_bucket(unsigned long long v)
{
	unsigned int e;

	if (v < PG_HIST_SUB)
		return (unsigned int)v;
	e = pg_log2_u64(v);
	if (e > PG_HIST_MAX_EXP)
		return PG_HIST_NBUCKETS - 1;
	return PG_HIST_SUB + (e - PG_HIST_SUB_BITS) * PG_HIST_SUB +
	       (unsigned int)(v >> (e - PG_HIST_SUB_BITS)) - PG_HIST_SUB;
}

#endif
