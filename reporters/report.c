// SPDX-License-Identifier: MIT
/*
 * reporters/report.c - `perfgate report`: one row per function, all repetitions added up
 * (see report.h). Text is for people (human units, ASCII), CSV follows RFC 4180 with LF
 * line ends, JSON is written with json-c.
 *
 * Write errors on @out are returned (-EIO or the errno) without a message: the caller knows
 * what @out is. Other failures (an inconsistent run, no memory) are logged here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../core/alloc.h"
#include "../core/env.h"
#include "../core/jsonw.h"
#include "../core/log.h"
#include "fmt.h"
#include "gbench_text.h"
#include "report.h"

/*
 * One function over all repetitions. total_ns and self_ns are compensated for probe overhead
 * when the run is calibrated (core/run.h); raw_* are as measured; mean is total_ns / calls.
 * The percentiles come from histograms the BPF programs compensate call by call
 * (pg_run.hist_compensated): for callers too, without the scale of the sums (core/run.h).
 * min and max, and the percentiles of older run files, are shifted by the probe work every
 * call carries (in_ns of its site): exact for a leaf, while a caller's still include its
 * traced callees' probe costs. On nop5 sites the mean subtracts a call's own in scaled by its
 * probes' BPF run time (pg_fstat_own_in()), min, max and percentiles the calibrated one: a
 * leaf with little spread can show a mean below its p50.
 *
 * A compensated value that came out at 0 from a measured value above 0 is unresolved (the
 * bits of @unresolved): the probe costs subtracted were as large as what was measured or
 * larger, so the value lies within the calibration's error and is not known, not 0. A parent
 * of ten traced ~2 us children measures ~14 us of self time per call for ~1 us of its own:
 * a 7% error in the per-child cost is all of it. The report says so instead of printing 0:
 * "n/a*" with a note in text, an empty field in CSV, null in JSON (as for unknown values).
 */
enum {
	U_TOTAL = 1 << 0, U_SELF = 1 << 1, U_MEAN = 1 << 2, U_P50 = 1 << 3, U_P90 = 1 << 4,
	U_P99 = 1 << 5, U_MIN = 1 << 6, U_MAX = 1 << 7,
};

struct row {
	const struct pg_func *func;	/* NULL: not called in any repetition */
	uint64_t calls, total_ns, self_ns, min_ns, max_ns;
	uint64_t raw_total_ns, raw_self_ns;
	double comp_total, comp_self;	/* compensated sums, before rounding */
	double overhead_ns;		/* estimated cost of the probes of its own calls */
	/* off-CPU sums, as measured (pg_meta.offcpu); on-CPU is the compensated time less them */
	uint64_t offcpu_ns, self_offcpu_ns, runq_ns, self_runq_ns;
	struct pg_hist hist;		/* merged over the repetitions */
	double mean_ns, p50_ns, p90_ns, p99_ns, min_c, max_c;
	unsigned int unresolved;	/* U_* of the values compensation took to 0 */
};

int pg_report_format_parse(const char *s, enum pg_report_format *out)
{
	static const char *const names[] = {
		[PG_REPORT_TEXT] = "text",
		[PG_REPORT_CSV] = "csv",
		[PG_REPORT_JSON] = "json",
	};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum pg_report_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* @x rounded to an integer in [0, 2^64 - 1] (a crafted run file can sum past 2^64). */
static uint64_t round_u64(double x)
{
	if (!(x > 0))
		return 0;
	return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(x + 0.5);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Sort: total time descending, then display name and id for a stable order. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	c = strcmp(a->func->display, b->func->display);
	if (c)
		return c;
	return a->func->id < b->func->id ? -1 : a->func->id > b->func->id;
}

static void free_rows(struct row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		pg_hist_release(&rows[i].hist);
	free(rows);
}

static double unshift(double v, double shift)
{
	return isnan(v) ? v : v > shift ? v - shift : 0;
}

/* The U_* bits of @row's compensated values that came out at 0 from measured values above 0. */
static unsigned int unresolved(const struct row *row)
{
	unsigned int u = 0;

	if (!row->total_ns && row->raw_total_ns)
		u |= U_TOTAL | U_MEAN;
	if (!row->self_ns && row->raw_self_ns)
		u |= U_SELF;
	u |= (row->p50_ns == 0 ? U_P50 : 0) | (row->p90_ns == 0 ? U_P90 : 0) |
	     (row->p99_ns == 0 ? U_P99 : 0);
	if (row->min_c == 0 && row->min_ns)
		u |= U_MIN;
	if (row->max_c == 0 && row->max_ns)
		u |= U_MAX;
	return u;
}

/* The sorted rows of the functions called in @run; *nrows of them in a new array. */
static int aggregate(const struct pg_run *run, struct row **out, size_t *nrows)
{
	size_t nfuncs = run->nfuncs, n = 0;
	struct row *rows = calloc(nfuncs ? nfuncs : 1, sizeof(*rows));

	if (!rows) {
		pg_err("report: out of memory");
		return -ENOMEM;
	}
	for (size_t r = 0; r < run->nreps; r++) {
		const struct pg_rep *rep = &run->reps[r];

		for (size_t i = 0; i < rep->nstats; i++) {
			const struct pg_fstat *s = &rep->stats[i];
			struct row *row;

			if (s->func >= nfuncs) {
				pg_err("report: repetition %zu refers to function %u of %zu", r,
				       s->func, nfuncs);
				free_rows(rows, nfuncs);
				return -EINVAL;
			}
			row = &rows[s->func];
			if (!row->func) {
				row->func = &run->funcs[s->func];
				row->min_ns = s->min_ns;
				row->max_ns = s->max_ns;
			}
			row->calls = add_sat(row->calls, s->calls);
			row->raw_total_ns = add_sat(row->raw_total_ns, s->total_ns);
			row->raw_self_ns = add_sat(row->raw_self_ns, s->self_ns);
			row->comp_total += pg_fstat_comp_total(&run->calib, row->func, s);
			row->comp_self += pg_fstat_comp_self(&run->calib, row->func, s);
			row->overhead_ns += pg_fstat_probe_cost(&run->calib, row->func, s);
			row->offcpu_ns = add_sat(row->offcpu_ns, s->offcpu_ns);
			row->self_offcpu_ns = add_sat(row->self_offcpu_ns, s->self_offcpu_ns);
			row->runq_ns = add_sat(row->runq_ns, s->runq_ns);
			row->self_runq_ns = add_sat(row->self_runq_ns, s->self_runq_ns);
			if (s->min_ns < row->min_ns)
				row->min_ns = s->min_ns;
			if (s->max_ns > row->max_ns)
				row->max_ns = s->max_ns;
			if (pg_hist_merge(&row->hist, &s->hist)) {
				pg_err("report: out of memory");
				free_rows(rows, nfuncs);
				return -ENOMEM;
			}
		}
	}
	/* keep the called functions, in place */
	for (size_t i = 0; i < nfuncs; i++) {
		if (!rows[i].func)
			continue;
		if (n != i) {
			rows[n] = rows[i];
			memset(&rows[i], 0, sizeof(rows[i]));
		}
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		struct row *row = &rows[i];

		/* every call carries its own probes' in_ns; callees' probes vary per call */
		double shift = run->calib.valid ? run->calib.in_ns[row->func->site] : 0;
		/* compensated histograms need none */
		double hshift = run->hist_compensated ? 0 : shift;

		row->total_ns = round_u64(row->comp_total);
		row->self_ns = round_u64(row->comp_self);
		if (row->self_ns > row->total_ns)
			row->self_ns = row->total_ns;
		row->mean_ns = row->calls ? row->comp_total / (double)row->calls : NAN;
		row->p50_ns = unshift(pg_hist_quantile(&row->hist, 0.50), hshift);
		row->p90_ns = unshift(pg_hist_quantile(&row->hist, 0.90), hshift);
		row->p99_ns = unshift(pg_hist_quantile(&row->hist, 0.99), hshift);
		row->min_c = unshift((double)row->min_ns, shift);
		row->max_c = unshift((double)row->max_ns, shift);
		if (run->calib.valid)
			row->unresolved = unresolved(row);
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);
	*out = rows;
	*nrows = n;
	return 0;
}

/* On-CPU time: the compensated time less the off-CPU time (the probes run on the CPU). */
static uint64_t on_cpu(uint64_t ns, uint64_t off)
{
	return ns > off ? ns - off : 0;
}

/* ---- text ---- */

#define TIME_WIDTH 9	/* "999.9 ms", "1.23 us" (7 columns), with room to spare */

/* Columns a UTF-8 string takes on a terminal (one per code point: no wide characters here). */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

#define UNRESOLVED "n/a*"	/* a value compensation could not resolve (see struct row) */

/* @ns in human units, or UNRESOLVED when @row's bit @u says so. */
static void put_time(FILE *out, const struct row *row, unsigned int u, double ns)
{
	char buf[32];

	if (row->unresolved & u)
		snprintf(buf, sizeof(buf), UNRESOLVED);
	else
		pg_fmt_ns(buf, sizeof(buf), ns);
	fprintf(out, "  %*s%s", (int)(TIME_WIDTH - columns(buf)), "", buf);
}

/* A name from the run file, with control characters (terminal escapes) made harmless. */
static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* Threads of one name, over all repetitions. */
struct tgroup {
	const char *comm;
	size_t n;			/* threads, over all repetitions */
	uint64_t cpu_ns, runq_ns, blocked_ns;
};

static int cmp_tgroup(const void *pa, const void *pb)
{
	const struct tgroup *a = pa, *b = pb;
	uint64_t ta = a->cpu_ns + a->runq_ns + a->blocked_ns;
	uint64_t tb = b->cpu_ns + b->runq_ns + b->blocked_ns;

	return ta != tb ? (ta > tb ? -1 : 1) : strcmp(a->comm, b->comm);
}

/* The calibration's spread by kind of site (core/calib.h), or that it was not recorded. */
static void calib_spread(FILE *out, const struct pg_calib *c)
{
	if (!pg_calib_spread_known(c)) {
		fputs("The calibration's spread is unknown (recorded by an older perfgate): "
		      "intervals do not carry its uncertainty.\n", out);
		return;
	}
	fprintf(out, "The calibration is known to +-%.2f us a traced call on nop5 sites, "
		"+-%.2f us emulated, +-%.2f us single-stepped (its spread).\n",
		c->spread_ns[PG_SITE_NOP5] / 1e3, c->spread_ns[PG_SITE_EMULATED] / 1e3,
		c->spread_ns[PG_SITE_SSTEP] / 1e3);
}

/*
 * The off-CPU legend and the threads, grouped by name (their ids change from one repetition to
 * the next): per repetition, how many, and their on-CPU, runnable and blocked time.
 */
static void write_threads(const struct pg_run *run, const struct row *rows, size_t n, FILE *out)
{
	struct tgroup *g = NULL;
	size_t ng = 0, alloc = 0;
	double reps = run->nreps ? (double)run->nreps : 1;
	uint64_t off = 0, runq = 0;

	for (size_t i = 0; i < n; i++) {
		off = add_sat(off, rows[i].self_offcpu_ns);
		runq = add_sat(runq, rows[i].self_runq_ns);
	}
	fprintf(out, "on-CPU and off-CPU split the total: off-CPU is the time the calling thread "
		"did not run, exactly\n(context switches); of the functions' own off-CPU time "
		"%.0f%% waited for a CPU (runnable), the rest\nwas blocked (sleeping, I/O, "
		"locks).\n",
		off ? 100.0 * (double)runq / (double)off : 0.0);
	for (size_t r = 0; r < run->nreps; r++) {
		for (size_t i = 0; i < run->reps[r].nthreads; i++) {
			const struct pg_thread *t = &run->reps[r].threads[i];
			size_t k = 0;

			while (k < ng && strcmp(g[k].comm, t->comm))
				k++;
			if (k == ng) {
				if (PG_ALLOC_GROW(g, ng + 1, alloc)) {
					free(g);
					return;	/* the table above stands without it */
				}
				memset(&g[ng++], 0, sizeof(*g));
				g[k].comm = t->comm;
			}
			g[k].n++;
			g[k].cpu_ns = add_sat(g[k].cpu_ns, t->cpu_ns);
			g[k].runq_ns = add_sat(g[k].runq_ns, t->runq_ns);
			g[k].blocked_ns = add_sat(g[k].blocked_ns, t->blocked_ns);
		}
	}
	if (!ng)
		return;
	qsort(g, ng, sizeof(*g), cmp_tgroup);
	fprintf(out, "\nthreads per repetition, by name:\n%7s  %*s  %*s  %*s  name\n", "threads",
		TIME_WIDTH, "on-CPU", TIME_WIDTH, "runnable", TIME_WIDTH, "blocked");
	for (size_t k = 0; k < ng; k++) {
		char c[32], q[32], b[32];

		pg_fmt_ns(c, sizeof(c), (double)g[k].cpu_ns / reps);
		pg_fmt_ns(q, sizeof(q), (double)g[k].runq_ns / reps);
		pg_fmt_ns(b, sizeof(b), (double)g[k].blocked_ns / reps);
		fprintf(out, "%7.1f  %*s  %*s  %*s  ", (double)g[k].n / reps, TIME_WIDTH, c,
			TIME_WIDTH, q, TIME_WIDTH, b);
		put_name(out, g[k].comm);
		fputc('\n', out);
	}
	free(g);
}

/*
 * The shared libraries the run's processes loaded (core/env.h), one a line: soname, version
 * and package when known, build-id (12 hex digits), path.
 */
static void write_libs(const struct pg_meta *m, FILE *out)
{
	size_t plen = strlen(PG_ENV_LIB_PREFIX), listed = 0;

	for (size_t i = 0; i < m->nenv; i++) {
		const char *kv = m->env[i], *eq = strchr(kv, '=');
		struct pg_env_lib l;
		char line[512];

		if (strncmp(kv, PG_ENV_LIB_PREFIX, plen) || !eq || pg_env_lib_parse(eq + 1, &l))
			continue;
		snprintf(line, sizeof(line), "%.*s  %s%s%s%s%s%.12s%s", (int)(eq - kv - plen),
			 kv + plen, l.version ? l.version : "", l.version ? " (" : "",
			 l.version && l.package ? l.package : "", l.version ? ")  " : "",
			 l.build_id ? "build-id " : "", l.build_id ? l.build_id : "",
			 l.build_id ? "  " : "");
		fputs(listed++ ? "  " : "\nshared libraries loaded:\n  ", out);
		put_name(out, line);
		put_name(out, l.path);
		fputc('\n', out);
		pg_env_lib_release(&l);
	}
}

static int write_text(const struct pg_run *run, const struct row *rows, size_t n, FILE *out)
{
	static const char *const heads[] = { "total", "self", "mean", "p50", "p90", "p99",
					     "probes" };
	const struct pg_meta *m = &run->meta;
	char *cmd = pg_fmt_command(m), wall[32];
	double probes = 0;
	uint64_t wall_sum = 0;
	int calls_width = 5;
	bool many_binaries = false, any_unresolved = false;

	if (!cmd) {
		pg_err("report: out of memory");
		return -ENOMEM;
	}
	for (size_t r = 0; r < run->nreps; r++)
		wall_sum = add_sat(wall_sum, run->reps[r].wall_ns);
	pg_fmt_ns(wall, sizeof(wall), run->nreps ? (double)wall_sum / (double)run->nreps : NAN);
	fputs("perfgate report: ", out);
	put_name(out, cmd);
	fprintf(out, "\n%zu repetition%s, mean wall time %s", run->nreps,
		pg_plural(run->nreps), wall);
	if (m->start_time) {
		fputs(", recorded ", out);
		put_name(out, m->start_time);
	}
	if (m->host) {
		fputs(" on ", out);
		put_name(out, m->host);
	}
	if (m->git_commit) {
		char commit[PG_FMT_LEN];

		fprintf(out, " at commit %s", pg_fmt_commit(commit, sizeof(commit), m->git_commit));
	}
	fputs("\n\n", out);
	free(cmd);
	if (!n) {
		fputs("no traced function was called\n", out);
		return 0;
	}

	for (size_t i = 0; i < n; i++) {
		char buf[24];
		int w = snprintf(buf, sizeof(buf), "%" PRIu64, rows[i].calls);

		if (w > calls_width)
			calls_width = w;
		if (strcmp(rows[i].func->binary, rows[0].func->binary))
			many_binaries = true;
	}
	fprintf(out, "%*s", calls_width, "calls");
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		fprintf(out, "  %*s", TIME_WIDTH, heads[i]);
		if (i == 1 && m->offcpu)
			fprintf(out, "  %*s  %*s", TIME_WIDTH, "on-CPU", TIME_WIDTH, "off-CPU");
	}
	fputs("  site      function\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct row *row = &rows[i];

		probes += row->overhead_ns;
		any_unresolved |= (row->unresolved & (U_TOTAL | U_SELF | U_MEAN | U_P50 | U_P90 |
						       U_P99)) != 0;
		fprintf(out, "%*" PRIu64, calls_width, row->calls);
		put_time(out, row, U_TOTAL, (double)row->total_ns);
		put_time(out, row, U_SELF, (double)row->self_ns);
		if (m->offcpu) {
			put_time(out, row, U_TOTAL, (double)on_cpu(row->total_ns, row->offcpu_ns));
			put_time(out, row, 0, (double)row->offcpu_ns);
		}
		put_time(out, row, U_MEAN, row->mean_ns);
		put_time(out, row, U_P50, row->p50_ns);
		put_time(out, row, U_P90, row->p90_ns);
		put_time(out, row, U_P99, row->p99_ns);
		put_time(out, row, 0, run->calib.valid ? row->overhead_ns : NAN);
		fprintf(out, "  %-8s  ", pg_site_name(row->func->site));
		put_name(out, row->func->display);
		if (many_binaries) {
			fputs(" [", out);
			put_name(out, pg_basename(row->func->binary));
			fputc(']', out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	if (run->calib.valid && wall_sum) {
		char per_rep[32];

		pg_fmt_ns(per_rep, sizeof(per_rep), probes / (double)run->nreps);
		fprintf(out, "Times are compensated for probe overhead. The probes cost an "
			"estimated %s per repetition (%.1f%% of its wall time).\n", per_rep,
			100.0 * probes / (double)wall_sum);
		calib_spread(out, &run->calib);
		if (probes > 0.5 * (double)wall_sum)
			fputs("That is more than the benchmark itself: trace fewer, longer "
			      "functions (-x), or build with cheap probe sites "
			      "(docs/recording.md).\n", out);
	} else {
		fputs("Times are raw: this run has no probe calibration.\n", out);
	}
	for (size_t k = 0; k < m->nleft_out; k++) {
		char line[512];

		pg_budget_out_say(&m->left_out[k], m->budget_pct, line, sizeof(line));
		fprintf(out, "%s.\n", line);
	}
	if (m->offcpu)
		write_threads(run, rows, n, out);
	if (any_unresolved)
		fputs(UNRESOLVED ": the probe costs subtracted were as large as what was measured "
		      "or larger: the value is within\nthe calibration's error, not known (a "
		      "percentile: at least that share of the calls). The raw\nsums are in "
		      "--format json "
		      "(raw_total_ns, raw_self_ns). Trace fewer or longer-running callees.\n", out);
	pg_gb_write_report(run, out);	/* Google Benchmark's own figures, if any */
	write_libs(m, out);
	return 0;
}

/* ---- CSV ---- */

/* A field, in double quotes (inner quotes doubled) if it holds a comma, quote or line break. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * A per-call time in ns by @fmt ("%.1f," or "%.0f,": the value and the separator), only the
 * separator when unknown or unresolved (@row's bit @u).
 */
static void csv_ns(FILE *out, const struct row *row, unsigned int u, double ns, const char *fmt)
{
	if (!isnan(ns) && !(row->unresolved & u))
		fprintf(out, fmt, ns);
	else
		fputc(',', out);
}

static int write_csv(const struct pg_run *run, const struct row *rows, size_t n, FILE *out)
{
	bool offcpu = run->meta.offcpu;

	fputs("function,binary,calls,total_ns,self_ns,mean_ns,p50_ns,p90_ns,p99_ns,min_ns,max_ns,"
	      "site,raw_total_ns,raw_self_ns,overhead_ns", out);
	fputs(offcpu ? ",cpu_ns,offcpu_ns,self_cpu_ns,self_offcpu_ns\n" : "\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct row *row = &rows[i];

		csv_str(out, row->func->display);
		fputc(',', out);
		csv_str(out, row->func->binary);
		fprintf(out, ",%" PRIu64 ",", row->calls);
		if (!(row->unresolved & U_TOTAL))
			fprintf(out, "%" PRIu64, row->total_ns);
		fputc(',', out);
		if (!(row->unresolved & U_SELF))
			fprintf(out, "%" PRIu64, row->self_ns);
		fputc(',', out);
		csv_ns(out, row, U_MEAN, row->mean_ns, "%.1f,");
		csv_ns(out, row, U_P50, row->p50_ns, "%.1f,");
		csv_ns(out, row, U_P90, row->p90_ns, "%.1f,");
		csv_ns(out, row, U_P99, row->p99_ns, "%.1f,");
		csv_ns(out, row, U_MIN, row->min_c, "%.0f,");
		csv_ns(out, row, U_MAX, row->max_c, "%.0f,");
		fprintf(out, "%s,%" PRIu64 ",%" PRIu64 ",%.0f", pg_site_name(row->func->site),
			row->raw_total_ns, row->raw_self_ns, row->overhead_ns);
		if (offcpu)
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				on_cpu(row->total_ns, row->offcpu_ns), row->offcpu_ns,
				on_cpu(row->self_ns, row->self_offcpu_ns), row->self_offcpu_ns);
		fputc('\n', out);
	}
	return 0;
}

/* ---- JSON ---- */

/* A per-call time in ns with one decimal; null when unknown or unresolved (@row's bit @u). */
static int jput_ns(struct json_object *obj, const char *key, const struct row *row,
		   unsigned int u, double ns)
{
	char buf[48];

	if (isnan(ns) || (row->unresolved & u))
		return pg_json_put_null(obj, key);
	snprintf(buf, sizeof(buf), "%.1f", ns);
	return pg_json_put(obj, key, json_object_new_double_s(ns, buf));
}

/* A sum in whole ns; null when unresolved (@row's bit @u). */
static int jput_sum(struct json_object *obj, const char *key, const struct row *row,
		    unsigned int u, uint64_t ns)
{
	if (row->unresolved & u)
		return pg_json_put_null(obj, key);
	return pg_json_put(obj, key, json_object_new_uint64(ns));
}

/* The off-CPU fields of a row (pg_meta.offcpu). */
static int json_offcpu(struct json_object *o, const struct row *row)
{
	return pg_json_put(o, "cpu_ns",
			   json_object_new_uint64(on_cpu(row->total_ns, row->offcpu_ns))) ||
	       pg_json_put(o, "offcpu_ns", json_object_new_uint64(row->offcpu_ns)) ||
	       pg_json_put(o, "runq_ns", json_object_new_uint64(row->runq_ns)) ||
	       pg_json_put(o, "self_cpu_ns",
			   json_object_new_uint64(on_cpu(row->self_ns, row->self_offcpu_ns))) ||
	       pg_json_put(o, "self_offcpu_ns", json_object_new_uint64(row->self_offcpu_ns)) ||
	       pg_json_put(o, "self_runq_ns", json_object_new_uint64(row->self_runq_ns));
}

static struct json_object *json_row(const struct row *row, bool offcpu)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put(o, "function", json_object_new_string(row->func->display)) ||
	    pg_json_put(o, "binary", json_object_new_string(row->func->binary)) ||
	    pg_json_put(o, "calls", json_object_new_uint64(row->calls)) ||
	    jput_sum(o, "total_ns", row, U_TOTAL, row->total_ns) ||
	    jput_sum(o, "self_ns", row, U_SELF, row->self_ns) ||
	    jput_ns(o, "mean_ns", row, U_MEAN, row->mean_ns) ||
	    jput_ns(o, "p50_ns", row, U_P50, row->p50_ns) ||
	    jput_ns(o, "p90_ns", row, U_P90, row->p90_ns) ||
	    jput_ns(o, "p99_ns", row, U_P99, row->p99_ns) ||
	    jput_ns(o, "min_ns", row, U_MIN, row->min_c) ||
	    jput_ns(o, "max_ns", row, U_MAX, row->max_c) ||
	    pg_json_put(o, "site", json_object_new_string(pg_site_name(row->func->site))) ||
	    pg_json_put(o, "raw_total_ns", json_object_new_uint64(row->raw_total_ns)) ||
	    pg_json_put(o, "raw_self_ns", json_object_new_uint64(row->raw_self_ns)) ||
	    jput_ns(o, "overhead_ns", row, 0, row->overhead_ns) ||
	    (offcpu && json_offcpu(o, row))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int write_json(const struct pg_run *run, const struct row *rows, size_t n, FILE *out)
{
	struct json_object *root = json_object_new_object();
	struct json_object *funcs = json_object_new_array();
	const char *text;
	int err = -ENOMEM;

	if (!root || !funcs) {
		json_object_put(funcs);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_row(&rows[i], run->meta.offcpu);

		if (pg_json_push(funcs, o)) {
			json_object_put(funcs);
			goto out;
		}
	}
	if (pg_json_put(root, "functions", funcs) ||
	    pg_json_put(root, "repetitions", json_object_new_uint64(run->nreps)))
		goto out;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		goto out;
	fputs(text, out);
	fputc('\n', out);
	err = 0;
out:
	if (err)
		pg_err("report: out of memory");
	json_object_put(root);
	return err;
}

int pg_report_write(const struct pg_run *run, enum pg_report_format fmt, FILE *out)
{
	struct row *rows;
	size_t n;
	int err = aggregate(run, &rows, &n);

	if (err)
		return err;
	switch (fmt) {
	case PG_REPORT_TEXT:
		err = write_text(run, rows, n, out);
		break;
	case PG_REPORT_CSV:
		err = write_csv(run, rows, n, out);
		break;
	case PG_REPORT_JSON:
		err = write_json(run, rows, n, out);
		break;
	default:
		pg_err("report: unknown format %d", (int)fmt);
		err = -EINVAL;
		break;
	}
	free_rows(rows, run->nfuncs);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}
