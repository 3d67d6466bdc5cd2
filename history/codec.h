/* SPDX-License-Identifier: MIT */
/*
 * history/codec.h - one series' values as the bytes of a stored blob (the store's format;
 * docs/history.md, "Storage"). The first byte says how the rest is written:
 *   'q'  times (every value finite and > 0): the reference r (the series' median, a
 *        little-endian IEEE double), the count n (varint), then n zigzag varints
 *        k_i = round((log v_i - log r) / PG_HCODEC_STEP): v_i = r * exp(k_i * STEP), within a
 *        relative 0.025% of the value written (half a step), and about one byte a value for
 *        series spread within 3% of their median
 *   'c'  counts (whole numbers from 0 to 2^53): n, then runs of (value, length), varints
 *   'd'  anything else: n, then n little-endian doubles, exactly
 *   '='  followed by one byte, a metric: the same values as that metric's series of the same
 *        object in the same session (a leaf's total time is its self time)
 * A session's summary of a metric over all objects is two blobs: the objects' ids and the
 * values as floats (7 significant digits: the change points need no more).
 */
#ifndef PG_HISTORY_CODEC_H
#define PG_HISTORY_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define PG_HCODEC_STEP (1.0 / 2048)
#define PG_HCODEC_ALIAS '='

/* A blob never holds more values than this (a run's repetitions are far fewer). */
#define PG_HCODEC_MAX_VALUES 1000000

/*
 * v[0..n) (n > 0) as a blob: *@out (malloc'd; the caller frees it), *@len bytes. @counts:
 * the values are counts ('c' when they are whole). 0 or -ENOMEM.
 */
int pg_hcodec_encode(const double *v, size_t n, int counts, uint8_t **out, size_t *len);

/*
 * The values of the blob b[0..len): *@v (malloc'd) and *@n. 0, -EINVAL (not a blob of this
 * format: a corrupt database) or -ENOMEM. Nothing is logged.
 */
int pg_hcodec_decode(const uint8_t *b, size_t len, double **v, size_t *n);

/*
 * A session's summary of one metric: object ids ids[0..n) (increasing) as varint deltas into
 * *@ob, values v[0..n) as little-endian floats into *@vb (both malloc'd). 0 or -ENOMEM.
 */
int pg_hcodec_summary_encode(const int64_t *ids, const double *v, size_t n, uint8_t **ob,
			     size_t *olen, uint8_t **vb, size_t *vlen);
/* And back: *@ids and *@v (malloc'd), *@n. 0, -EINVAL (corrupt) or -ENOMEM. */
int pg_hcodec_summary_decode(const uint8_t *ob, size_t olen, const uint8_t *vb, size_t vlen,
			     int64_t **ids, double **v, size_t *n);

/* The varints and doubles of the blobs, for the store's other blobs (the change points'
 * cache, history/analysis.c): put returns the bytes written (at most 10, or 8); get reads at
 * *@at, advancing it: 0, or -EINVAL past @len. */
size_t pg_hcodec_put_varint(uint8_t *p, uint64_t x);
int pg_hcodec_get_varint(const uint8_t *b, size_t len, size_t *at, uint64_t *x);
size_t pg_hcodec_put_double(uint8_t *p, double d);
int pg_hcodec_get_double(const uint8_t *b, size_t len, size_t *at, double *d);

#endif
