// SPDX-License-Identifier: MIT
/*
 * formats/pprof.c - write a run's sampled stacks as a gzipped pprof profile.proto
 * (see pprof.h). Field numbers are those of perftools.profiles in
 * github.com/google/pprof/blob/main/proto/profile.proto.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#include "../core/alloc.h"
#include "../core/atomic.h"
#include "../core/log.h"
#include "pprof.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

#define KERNEL_MAPPING "[kernel.kallsyms]"

/* A growing byte buffer; after a failure every later write fails too (check err at the end). */
struct pb {
	unsigned char *b;
	size_t len, alloc;
	int err;
};

static void pb_put(struct pb *p, const void *data, size_t n)
{
	if (p->err)
		return;
	if (PG_ALLOC_GROW(p->b, p->len + n, p->alloc)) {
		p->err = -ENOMEM;
		return;
	}
	memcpy(p->b + p->len, data, n);
	p->len += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	unsigned char buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_put(p, buf, n);
}

static void pb_key(struct pb *p, unsigned int field, unsigned int wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

/* A varint field; 0 (the default) is not written. */
static void pb_uint(struct pb *p, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(p, field, WIRE_VARINT);
	pb_varint(p, v);
}

static void pb_bytes(struct pb *p, unsigned int field, const void *data, size_t n)
{
	pb_key(p, field, WIRE_LEN);
	pb_varint(p, n);
	pb_put(p, data, n);
}

/* Append @sub as embedded message @field of @p and empty @sub for the next one. */
static void pb_msg(struct pb *p, unsigned int field, struct pb *sub)
{
	if (sub->err && !p->err)
		p->err = sub->err;
	pb_bytes(p, field, sub->b, sub->len);
	sub->len = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort @v[0..*n) and drop repeats. */
static void sort_unique(const char **v, size_t *n)
{
	size_t k = 0;

	if (!*n)
		return;
	qsort(v, *n, sizeof(*v), cmp_str);
	for (size_t i = 1; i < *n; i++)
		if (strcmp(v[i], v[k]))
			v[++k] = v[i];
	*n = k + 1;
}

/* Index of @s in sorted unique @v[0..n) (it must be there). */
static uint64_t find_str(const char *const *v, size_t n, const char *s)
{
	const char *const *hit = bsearch(&s, v, n, sizeof(*v), cmp_str);

	return hit ? (uint64_t)(hit - v) : 0;
}

/* What a distinct frame name turns into. */
struct frame {
	const char *name;
	const char *sysname;
	const char *file;	/* NULL: unknown */
	uint32_t line;
	const char *mapping;	/* NULL: none */
	uint64_t addr;
	char *module;		/* owned: the module of a module+0xADDR frame */
};

static int cmp_source(const void *key, const void *elem)
{
	return strcmp(key, ((const struct pg_source *)elem)->frame);
}

/* "module+0xADDR": split into a new string for the module and the address. */
static int parse_module_addr(const char *name, char **module, uint64_t *addr)
{
	const char *plus = strrchr(name, '+');
	char *end;

	if (!plus || plus == name || strncmp(plus, "+0x", 3) || !plus[3] ||
	    strchr(name, ' '))
		return 0;
	errno = 0;
	*addr = strtoull(plus + 3, &end, 16);
	if (*end || errno)
		return 0;
	*module = strndup(name, plus - name);
	return *module ? 1 : -ENOMEM;
}

static int frame_fill(struct frame *fr, const struct pg_run *run, const struct pg_func **bydisp)
{
	const struct pg_source *src = bsearch(fr->name, run->sources, run->nsources,
					      sizeof(*run->sources), cmp_source);
	size_t len = strlen(fr->name);
	const struct pg_func *fn;
	int ret;

	fr->sysname = fr->name;
	if (src) {
		fr->file = src->file;
		fr->line = src->line;
	}
	if (pg_frame_kernel(fr->name, len)) {
		fr->mapping = KERNEL_MAPPING;
		return 0;
	}
	fn = pg_func_by_display(bydisp, run->nfuncs, fr->name);
	if (fn) {
		fr->mapping = fn->binary;
		fr->sysname = fn->name;
		if (!fr->file && fn->src_file) {
			fr->file = fn->src_file;
			fr->line = fn->src_line;
		}
		return 0;
	}
	ret = parse_module_addr(fr->name, &fr->module, &fr->addr);
	if (ret > 0)
		fr->mapping = fr->module;
	return ret < 0 ? ret : 0;
}

/* Everything the encoding needs, built from the stacks. */
struct tables {
	char **copies;		/* one writable copy per stack, split at ';' */
	const char **flat;	/* every frame of every stack, stack after stack */
	size_t *start;		/* stack i's frames: flat[start[i] .. start[i+1]) */
	const char **names;	/* distinct frame names, sorted: function/location id - 1 */
	size_t nnames;
	struct frame *frames;	/* per name */
	const char **maps;	/* distinct mapping files, sorted: mapping id - 1 */
	size_t nmaps;
	const char **strs;	/* the string table, sorted ("" first) */
	size_t nstrs;
};

static void tables_release(struct tables *t, size_t nstacks)
{
	if (t->copies)
		for (size_t i = 0; i < nstacks; i++)
			free(t->copies[i]);
	if (t->frames)
		for (size_t i = 0; i < t->nnames; i++)
			free(t->frames[i].module);
	free(t->copies);
	free(t->flat);
	free(t->start);
	free(t->names);
	free(t->frames);
	free(t->maps);
	free(t->strs);
}

static int tables_build(struct tables *t, const struct pg_run *run, const struct pg_stack *v,
			size_t n, bool offcpu)
{
	static const char *const fixed[] = { "", "samples", "count", "cpu", "nanoseconds" };
	static const char *const fixed_offcpu[] = { "", "offcpu", "nanoseconds" };
	const struct pg_func **bydisp = NULL;
	size_t nflat = 0, alloc = 0, ns;
	int ret = -ENOMEM;

	t->copies = calloc(n ? n : 1, sizeof(*t->copies));
	t->start = calloc(n + 1, sizeof(*t->start));
	if (!t->copies || !t->start)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char *save = NULL, *f;

		t->copies[i] = strdup(v[i].folded);
		if (!t->copies[i])
			return -ENOMEM;
		t->start[i] = nflat;
		for (f = strtok_r(t->copies[i], ";", &save); f; f = strtok_r(NULL, ";", &save)) {
			if (PG_ALLOC_GROW(t->flat, nflat + 1, alloc))
				return -ENOMEM;
			t->flat[nflat++] = f;
		}
	}
	t->start[n] = nflat;

	t->names = malloc((nflat ? nflat : 1) * sizeof(*t->names));
	if (!t->names)
		return -ENOMEM;
	memcpy(t->names, t->flat, nflat * sizeof(*t->names));
	t->nnames = nflat;
	sort_unique(t->names, &t->nnames);

	bydisp = pg_run_by_display(run);
	t->frames = calloc(t->nnames ? t->nnames : 1, sizeof(*t->frames));
	t->maps = malloc((t->nnames ? t->nnames : 1) * sizeof(*t->maps));
	if (!bydisp || !t->frames || !t->maps)
		goto out;
	for (size_t i = 0; i < t->nnames; i++) {
		t->frames[i].name = t->names[i];
		if (frame_fill(&t->frames[i], run, bydisp))
			goto out;
		if (t->frames[i].mapping)
			t->maps[t->nmaps++] = t->frames[i].mapping;
	}
	sort_unique(t->maps, &t->nmaps);

	/* strings: the fixed ones, names, system names, files, mappings */
	ns = sizeof(fixed) / sizeof(*fixed) + 3 * t->nnames + t->nmaps;
	t->strs = malloc(ns * sizeof(*t->strs));
	if (!t->strs)
		goto out;
	t->nstrs = 0;
	for (size_t i = 0; offcpu && i < sizeof(fixed_offcpu) / sizeof(*fixed_offcpu); i++)
		t->strs[t->nstrs++] = fixed_offcpu[i];
	for (size_t i = 0; !offcpu && i < sizeof(fixed) / sizeof(*fixed); i++)
		if (run->meta.sample_hz || i < 3)
			t->strs[t->nstrs++] = fixed[i];
	for (size_t i = 0; i < t->nnames; i++) {
		t->strs[t->nstrs++] = t->frames[i].name;
		t->strs[t->nstrs++] = t->frames[i].sysname;
		if (t->frames[i].file)
			t->strs[t->nstrs++] = t->frames[i].file;
	}
	for (size_t i = 0; i < t->nmaps; i++)
		t->strs[t->nstrs++] = t->maps[i];
	sort_unique(t->strs, &t->nstrs);
	ret = 0;
out:
	free(bydisp);
	return ret;
}

static uint64_t str_id(const struct tables *t, const char *s)
{
	return find_str(t->strs, t->nstrs, s);
}

static void put_value_type(struct pb *p, struct pb *sub, unsigned int field,
			   const struct tables *t, const char *type, const char *unit)
{
	pb_uint(sub, VALUE_TYPE_TYPE, str_id(t, type));
	pb_uint(sub, VALUE_TYPE_UNIT, str_id(t, unit));
	pb_msg(p, field, sub);
}

/* "2026-11-21T10:22:22Z" as ns since the epoch, or 0. */
static uint64_t start_ns(const char *iso)
{
	struct tm tm = { 0 };
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	time_t t;

	if (!end || *end)
		return 0;
	t = timegm(&tm);
	return t > 0 ? (uint64_t)t * 1000000000ull : 0;
}

/* @offcpu: the counts are off-CPU nanoseconds, one sample type "offcpu"/"nanoseconds" */
static int encode(struct pb *p, const struct tables *t, const struct pg_run *run,
		  const struct pg_stack *v, size_t n, bool offcpu)
{
	uint64_t period = run->meta.sample_hz && !offcpu ?
		(1000000000ull + run->meta.sample_hz / 2) / run->meta.sample_hz : 0;
	const char *type = offcpu ? "offcpu" : "cpu";
	struct pb sub = { 0 }, line = { 0 }, packed = { 0 };
	uint64_t wall = 0;
	int ret;

	put_value_type(p, &sub, PROFILE_SAMPLE_TYPE, t, offcpu ? "offcpu" : "samples",
		       offcpu ? "nanoseconds" : "count");
	if (period)
		put_value_type(p, &sub, PROFILE_SAMPLE_TYPE, t, "cpu", "nanoseconds");
	if (offcpu)
		period = 1;	/* one value per sample, already in ns: the period of a ns */

	for (size_t i = 0; i < n; i++) {
		/* leaf first */
		for (size_t k = t->start[i + 1]; k-- > t->start[i];)
			pb_varint(&packed, find_str(t->names, t->nnames, t->flat[k]) + 1);
		pb_bytes(&sub, SAMPLE_LOCATION_ID, packed.b, packed.len);
		packed.len = 0;
		if (v[i].count > INT64_MAX || (period && v[i].count > INT64_MAX / period)) {
			pg_err("pprof: the sample count %llu of a stack is too large",
			       (unsigned long long)v[i].count);
			ret = -EOVERFLOW;
			goto out;
		}
		pb_varint(&packed, v[i].count);
		if (period && !offcpu)
			pb_varint(&packed, v[i].count * period);
		pb_bytes(&sub, SAMPLE_VALUE, packed.b, packed.len);
		packed.len = 0;
		pb_msg(p, PROFILE_SAMPLE, &sub);
	}

	for (size_t i = 0; i < t->nmaps; i++) {
		pb_uint(&sub, MAPPING_ID, i + 1);
		pb_uint(&sub, MAPPING_FILENAME, str_id(t, t->maps[i]));
		pb_uint(&sub, MAPPING_HAS_FUNCTIONS, 1);
		pb_uint(&sub, MAPPING_HAS_FILENAMES, 1);
		pb_uint(&sub, MAPPING_HAS_LINE_NUMBERS, 1);
		pb_msg(p, PROFILE_MAPPING, &sub);
	}

	for (size_t i = 0; i < t->nnames; i++) {
		const struct frame *fr = &t->frames[i];

		pb_uint(&sub, LOCATION_ID, i + 1);
		if (fr->mapping)
			pb_uint(&sub, LOCATION_MAPPING_ID,
				find_str(t->maps, t->nmaps, fr->mapping) + 1);
		pb_uint(&sub, LOCATION_ADDRESS, fr->addr);
		pb_uint(&line, LINE_FUNCTION_ID, i + 1);
		pb_uint(&line, LINE_LINE, fr->line);
		pb_msg(&sub, LOCATION_LINE, &line);
		pb_msg(p, PROFILE_LOCATION, &sub);
	}

	for (size_t i = 0; i < t->nnames; i++) {
		const struct frame *fr = &t->frames[i];

		pb_uint(&sub, FUNCTION_ID, i + 1);
		pb_uint(&sub, FUNCTION_NAME, str_id(t, fr->name));
		pb_uint(&sub, FUNCTION_SYSTEM_NAME, str_id(t, fr->sysname));
		if (fr->file)
			pb_uint(&sub, FUNCTION_FILENAME, str_id(t, fr->file));
		pb_uint(&sub, FUNCTION_START_LINE, fr->line);
		pb_msg(p, PROFILE_FUNCTION, &sub);
	}

	for (size_t i = 0; i < t->nstrs; i++)
		pb_bytes(p, PROFILE_STRING_TABLE, t->strs[i], strlen(t->strs[i]));

	pb_uint(p, PROFILE_TIME_NANOS, start_ns(run->meta.start_time));
	for (size_t r = 0; r < run->nreps; r++)
		wall += run->reps[r].wall_ns;
	pb_uint(p, PROFILE_DURATION_NANOS, wall <= INT64_MAX ? wall : 0);
	if (period) {
		put_value_type(p, &sub, PROFILE_PERIOD_TYPE, t, type, "nanoseconds");
		pb_uint(p, PROFILE_PERIOD, period);
		pb_uint(p, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(t, type));
	}
	ret = p->err || sub.err || line.err || packed.err ? -ENOMEM : 0;
	if (ret)
		pg_err("pprof: out of memory");
out:
	free(sub.b);
	free(line.b);
	free(packed.b);
	return ret;
}

int pg_pprof_encode_as(const struct pg_run *run, const struct pg_stack *v, size_t n,
		       bool offcpu, unsigned char **out, size_t *len)
{
	struct tables t = { 0 };
	struct pb p = { 0 };
	int ret = tables_build(&t, run, v, n, offcpu);

	if (ret)
		pg_err("pprof: out of memory");
	else
		ret = encode(&p, &t, run, v, n, offcpu);
	tables_release(&t, n);
	if (ret) {
		free(p.b);
		return ret;
	}
	*out = p.b ? p.b : malloc(1);
	*len = p.len;
	return *out ? 0 : -ENOMEM;
}

int pg_pprof_encode(const struct pg_run *run, const struct pg_stack *v, size_t n,
		    unsigned char **out, size_t *len)
{
	return pg_pprof_encode_as(run, v, n, false, out, len);
}

int pg_pprof_write(const char *path, const struct pg_run *run, const struct pg_stack *v,
		   size_t n, bool offcpu)
{
	unsigned char *raw = NULL, *gz = NULL;
	z_stream z = { 0 };
	size_t len, cap;
	int ret = pg_pprof_encode_as(run, v, n, offcpu, &raw, &len);

	if (ret)
		return ret;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		pg_err("pprof: cannot start zlib's deflate");
		free(raw);
		return -ENOMEM;
	}
	cap = deflateBound(&z, len);
	gz = malloc(cap);
	ret = -ENOMEM;
	if (!gz) {
		pg_err("pprof: out of memory");
		goto out;
	}
	z.next_in = raw;
	z.avail_in = len;
	z.next_out = gz;
	z.avail_out = cap;
	if (len != z.avail_in || cap != z.avail_out || deflate(&z, Z_FINISH) != Z_STREAM_END) {
		pg_err("pprof: cannot compress the profile (%zu bytes)", len);
		goto out;
	}
	ret = pg_atomic_write(path, gz, z.total_out);
out:
	deflateEnd(&z);
	free(gz);
	free(raw);
	return ret;
}
