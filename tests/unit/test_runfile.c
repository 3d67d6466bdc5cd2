// SPDX-License-Identifier: MIT
/*
 * Unit tests of run files (formats/runfile*.c): round trip, atomic writing, and a table of
 * corrupt files that must each be refused with one clear error line (and never crash).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cmocka.h>

#include "../../formats/runfile.h"
#include "fixtures.h"

/* ---- helpers ---- */

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	strcpy(tmpdir, "/tmp/pg-test-runfile-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *tmp_path(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", tmpdir, name) > 0);
	return p;
}

static void write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Names in @dir, sorted and joined by spaces. */
static char *list_dir(const char *dir)
{
	struct dirent **ents;
	char *s = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);
	int n = scandir(dir, &ents, NULL, alphasort);
	const char *sep = "";

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			fprintf(f, "%s%s", sep, ents[i]->d_name);
			sep = " ";
		}
		free(ents[i]);
	}
	free(ents);
	fclose(f);
	return s;
}

/* stderr into a file while a call runs, to check what perfgate says. */
static int saved_stderr = -1;
static char captured[4096];

static void capture_begin(void)
{
	char *path = tmp_path(".stderr");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	dup2(fd, 2);
	close(fd);
	free(path);
}

static const char *capture_end(void)
{
	char *path = tmp_path(".stderr");
	int fd;
	ssize_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, captured, sizeof(captured) - 1);
	close(fd);
	unlink(path);
	free(path);
	captured[n > 0 ? n : 0] = '\0';
	return captured;
}

static void assert_one_error_line(const char *msg, const char *path, const char *expect)
{
	const char *nl = strchr(msg, '\n');

	if (!nl || nl[1] || strncmp(msg, "perfgate: error: ", 17) || !strstr(msg, path) ||
	    (expect && !strstr(msg, expect)))
		fail_msg("expected one error line naming %s and saying \"%s\", got: %s", path,
			 expect ? expect : "", msg);
}

static void assert_run_empty(const struct pg_run *run)
{
	assert_int_equal(run->nfuncs, 0);
	assert_null(run->funcs);
	assert_int_equal(run->nreps, 0);
	assert_null(run->reps);
	assert_int_equal(run->meta.argc, 0);
	assert_null(run->meta.argv);
	assert_null(run->meta.host);
	assert_null(run->meta.filters);
}

/* ---- a run with everything in it ---- */

static char **strv(size_t n, ...)
{
	char **v = calloc(n, sizeof(*v));
	va_list ap;

	assert_non_null(v);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		v[i] = strdup(va_arg(ap, const char *));
	va_end(ap);
	return v;
}

static void make_run(struct pg_run *run)
{
	static const uint64_t v0[] = { 1, 63, 64, 100, 1000, 1001, 123456, 1ULL << 41 };
	static const uint64_t v1[] = { 5000, 5001, 5002 };
	static const uint64_t v2[] = { 70, 70, 70, 70, 80000000 };
	struct pg_meta *m = &run->meta;
	struct pg_rep *rep;
	struct pg_fstat *s;

	pg_run_init(run);
	m->perfgate_version = strdup("0.1.0");
	m->argc = 3;
	m->argv = strv(3, "./bench", "--name=a b", "\xc3\xbcn\xc3\xaf\"c\xc3\xb6" "d\xc3\xa9");
	m->start_time = strdup("2026-11-21T10:22:22Z");
	m->host = strdup("build-01");
	m->kernel = strdup("6.1.0-13-amd64");
	m->cpu_model = strdup("Intel(R) Xeon(R) CPU @ 2.20GHz");
	m->git_commit = NULL;
	m->cwd = strdup("/home/u/src/my project");
	m->repetitions = 3;
	m->nfilters = 2;
	m->filters = strv(2, "foo*", "*::bar");
	pg_fx_func_at(run, "/usr/lib/libfoo.so.1", "_ZN3fooC2ERKSt6vectorIiSaIiEE",
		      "foo::foo(std::vector<int, std::allocator<int> > const&)", 0x1139, 4409,
		      PG_SITE_NOP5, false);
	pg_fx_func_at(run, "/opt/my bench/bench", "_Zli3_kmy",
		      "operator\"\" _km(unsigned long long)", 0xdeadbeefcafeULL, UINT64_MAX - 1,
		      PG_SITE_SSTEP, true);
	/* UTF-8, quotes, backslashes, slashes and control characters */
	pg_fx_func_at(run, "/opt/my bench/bench", "gr\xc3\xbc\xc3\x9f" "e_\\back\\slash/\t",
		      "gr\xc3\xbc\xc3\x9f" "e \xe2\x86\x92 \xce\xbb \"q\" \\ / \t\x01", 0, 0,
		      PG_SITE_EMULATED, false);
	pg_fx_func_at(run, "/opt/my bench/bench", "never_called", NULL, 0x42, 0x42,
		      PG_SITE_UNKNOWN, false);
	/* a static function of one name in two files: told apart by their scope */
	pg_fx_func_at(run, "/opt/my bench/bench", "step", NULL, 0x50, 0x50, PG_SITE_NOP5, false);
	assert_int_equal(pg_func_set_scope(&run->funcs[run->nfuncs - 1], "a.c"), 0);
	pg_fx_func_at(run, "/opt/my bench/bench", "step", NULL, 0x60, 0x60, PG_SITE_NOP5, false);
	assert_int_equal(pg_func_set_scope(&run->funcs[run->nfuncs - 1], "b.c"), 0);

	rep = pg_run_add_rep(run);
	assert_non_null(rep);
	rep->wall_ns = 1234567890;
	rep->exit_code = 0;
	s = pg_fx_stat(rep, 0, v0, sizeof(v0) / sizeof(v0[0]));
	s->self_ns = s->total_ns / 2;
	s->desc[PG_SITE_NOP5] = 7;
	s->desc[PG_SITE_SSTEP] = 2;
	s->kids[PG_SITE_NOP5] = 5;
	s->probe_ns = 123456;
	s->desc_probe_ns = 98765;
	s->kids_probe_ns = 4321;
	pg_fx_stat(rep, 1, v1, sizeof(v1) / sizeof(v1[0]));
	run->calib = (struct pg_calib){
		.valid = true, .measured = true,
		.in_ns = { 11000.5, 600.25, 700, 11000.5 },
		.out_ns = { 1500, 1000.75, 1100, 1500 },
		.measured_ns = { 900, 450.5, 500, 900 },
		.spread_ns = { 2500.5, 180.25, 0, 2500.5 },
	};
	run->hist_compensated = true;
	/* counters beyond 2^63 */
	s = pg_rep_add_stat(rep, 2);
	assert_non_null(s);
	s->calls = (1ULL << 63) + 5;
	assert_int_equal(pg_hist_add(&s->hist, PG_HIST_NBUCKETS - 1, s->calls), 0);
	s->total_ns = UINT64_MAX - 1;
	s->self_ns = 1ULL << 63;
	s->min_ns = 1;	/* calls x min_ns <= total_ns <= calls x max_ns */
	s->max_ns = UINT64_MAX - 1;

	rep = pg_run_add_rep(run);	/* killed before anything was called */
	assert_non_null(rep);
	rep->wall_ns = 5;
	rep->exit_code = -1;
	rep->signal = 9;

	rep = pg_run_add_rep(run);
	assert_non_null(rep);
	rep->wall_ns = UINT64_MAX;
	rep->exit_code = 255;
	s = pg_fx_stat(rep, 2, v2, sizeof(v2) / sizeof(v2[0]));
	s->self_ns = s->total_ns / 3;
	assert_int_equal(pg_run_validate(run, NULL, 0), 0);
}

static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_strv_eq(char **a, size_t na, char **b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(a[i], b[i]);
}

static void assert_runs_equal(const struct pg_run *a, const struct pg_run *b)
{
	const struct pg_meta *ma = &a->meta, *mb = &b->meta;

	assert_str_eq(ma->perfgate_version, mb->perfgate_version);
	assert_strv_eq(ma->argv, ma->argc, mb->argv, mb->argc);
	assert_str_eq(ma->start_time, mb->start_time);
	assert_str_eq(ma->host, mb->host);
	assert_str_eq(ma->kernel, mb->kernel);
	assert_str_eq(ma->cpu_model, mb->cpu_model);
	assert_str_eq(ma->git_commit, mb->git_commit);
	assert_str_eq(ma->cwd, mb->cwd);
	assert_int_equal(ma->repetitions, mb->repetitions);
	assert_strv_eq(ma->filters, ma->nfilters, mb->filters, mb->nfilters);
	assert_strv_eq(ma->excludes, ma->nexcludes, mb->excludes, mb->nexcludes);

	assert_int_equal(a->calib.valid, b->calib.valid);
	assert_int_equal(a->calib.measured, b->calib.measured);
	assert_int_equal(a->hist_compensated, b->hist_compensated);
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		assert_true(a->calib.in_ns[k] == b->calib.in_ns[k]);
		assert_true(a->calib.out_ns[k] == b->calib.out_ns[k]);
		assert_true(a->calib.measured_ns[k] == b->calib.measured_ns[k]);
		assert_true(a->calib.spread_ns[k] == b->calib.spread_ns[k]);
	}
	assert_int_equal(a->nfuncs, b->nfuncs);
	for (size_t i = 0; i < a->nfuncs; i++) {
		const struct pg_func *fa = &a->funcs[i], *fb = &b->funcs[i];

		assert_int_equal(fa->id, fb->id);
		assert_string_equal(fa->name, fb->name);
		assert_string_equal(fa->display, fb->display);
		assert_string_equal(fa->binary, fb->binary);
		assert_int_equal(fa->addr, fb->addr);
		assert_int_equal(fa->offset, fb->offset);
		assert_int_equal(fa->site, fb->site);
		assert_int_equal(fa->endbr, fb->endbr);
		if (fa->scope || fb->scope)
			assert_string_equal(fa->scope, fb->scope);
	}
	assert_int_equal(a->nreps, b->nreps);
	for (size_t r = 0; r < a->nreps; r++) {
		const struct pg_rep *ra = &a->reps[r], *rb = &b->reps[r];

		assert_int_equal(ra->wall_ns, rb->wall_ns);
		assert_int_equal(ra->exit_code, rb->exit_code);
		assert_int_equal(ra->signal, rb->signal);
		assert_int_equal(ra->nstats, rb->nstats);
		for (size_t i = 0; i < ra->nstats; i++) {
			const struct pg_fstat *sa = &ra->stats[i], *sb = &rb->stats[i];

			assert_int_equal(sa->func, sb->func);
			assert_int_equal(sa->calls, sb->calls);
			assert_int_equal(sa->total_ns, sb->total_ns);
			assert_int_equal(sa->self_ns, sb->self_ns);
			assert_int_equal(sa->min_ns, sb->min_ns);
			assert_int_equal(sa->max_ns, sb->max_ns);
			assert_memory_equal(sa->desc, sb->desc, sizeof(sa->desc));
			assert_memory_equal(sa->kids, sb->kids, sizeof(sa->kids));
			assert_int_equal(sa->probe_ns, sb->probe_ns);
			assert_int_equal(sa->desc_probe_ns, sb->desc_probe_ns);
			assert_int_equal(sa->kids_probe_ns, sb->kids_probe_ns);
			assert_int_equal(sa->hist.n, sb->hist.n);
			for (size_t k = 0; k < sa->hist.n; k++) {
				assert_int_equal(sa->hist.idx[k], sb->hist.idx[k]);
				assert_int_equal(sa->hist.count[k], sb->hist.count[k]);
			}
		}
	}
}

/* ---- round trip ---- */

static void test_round_trip(void **state)
{
	struct pg_run a, b;
	char *path = tmp_path("run.json"), *path2 = tmp_path("again.json");
	char *t1, *t2;
	size_t n1, n2;

	make_run(&a);
	pg_run_init(&b);
	capture_begin();
	assert_int_equal(pg_runfile_write(&a, path), 0);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_string_equal(capture_end(), "");
	assert_runs_equal(&a, &b);
	assert_null(b.meta.git_commit);

	/* what was read writes out to the same bytes */
	assert_int_equal(pg_runfile_write(&b, path2), 0);
	t1 = read_text(path, &n1);
	t2 = read_text(path2, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	assert_true(n1 > 0 && t1[n1 - 1] == '\n');
	assert_non_null(strstr(t1, "\"format\":\"perfgate-run\""));
	/* version 3 (compact statistics); compensated histograms, which it says */
	assert_non_null(strstr(t1, "\"version\":3,"));
	assert_non_null(strstr(t1, "\"max_exponent\":41,\"durations\":\"compensated\"}"));
	assert_non_null(strstr(t1, "\"git_commit\":null"));
	assert_non_null(strstr(t1, "\"address\":\"0xdeadbeefcafe\""));
	assert_non_null(strstr(t1, "\"binary\":\"/opt/my bench/bench\""));	/* no "\/" */
	assert_non_null(strstr(t1, " 9223372036854775813 "));	/* a row's calls */
	assert_non_null(strstr(t1, "\"display\":\"step [b.c]\""));
	assert_non_null(strstr(t1, "\"scope\":\"b.c\""));

	/* reading into a run that holds something replaces it */
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_runs_equal(&a, &b);

	free(t1);
	free(t2);
	pg_run_release(&a);
	pg_run_release(&b);
	free(path);
	free(path2);
}

static void test_round_trip_minimal(void **state)
{
	struct pg_run a, b;
	char *path = tmp_path("min.json"), *t;
	size_t n;

	/* a command and nothing else: no functions, no repetitions, unknown metadata */
	pg_run_init(&a);
	pg_run_init(&b);
	a.meta.argc = 1;
	a.meta.argv = strv(1, "true");
	assert_int_equal(pg_runfile_write(&a, path), 0);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_runs_equal(&a, &b);
	/* raw histograms: version 3 too, which says they are raw */
	t = read_text(path, &n);
	assert_non_null(strstr(t, "\"version\":3,"));
	assert_non_null(strstr(t, "\"durations\":\"raw\""));
	free(t);
	pg_run_release(&a);
	pg_run_release(&b);
	free(path);
}

/* the functions record --budget left out: kept as written, and a bad entry refused */
static void test_left_out(void **state)
{
	struct pg_run a, b;
	char *path = tmp_path("lo.json"), *t;
	struct pg_budget_out *o;
	size_t n;

	make_run(&a);
	pg_run_init(&b);
	a.meta.left_out = calloc(1, sizeof(*a.meta.left_out));
	assert_non_null(a.meta.left_out);
	a.meta.nleft_out = 1;
	o = a.meta.left_out;
	o->name = strdup("obj_init");
	o->binary = strdup("/bin/kc");
	*o = (struct pg_budget_out){ .name = o->name, .binary = o->binary, .site = PG_SITE_EMULATED,
				     .share = 0.125, .calls = 40000, .call_ns = 2500,
				     .cost_pct = 50, .ref_call_ns = 1700, .ref_cost_pct = 34,
				     .samples = 40, .judged = true };
	assert_int_equal(pg_runfile_write(&a, path), 0);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_int_equal(b.meta.nleft_out, 1);
	o = b.meta.left_out;
	assert_string_equal(o->name, "obj_init");
	assert_string_equal(o->binary, "/bin/kc");
	assert_int_equal(o->site, PG_SITE_EMULATED);
	assert_true(o->share == 0.125 && o->calls == 40000 && o->call_ns == 2500);
	assert_true(o->cost_pct == 50 && o->ref_call_ns == 1700 && o->ref_cost_pct == 34);
	assert_true(o->samples == 40 && o->judged);
	pg_run_release(&b);

	/* a share over 1: refused, naming the member */
	t = read_text(path, &n);
	assert_non_null(strstr(t, "\"share\":0.125"));
	memcpy(strstr(t, "\"share\":0.125"), "\"share\":1.125", 13);
	write_text(path, t, n);
	pg_run_init(&b);
	capture_begin();
	assert_int_equal(pg_runfile_read(path, &b), -EINVAL);
	assert_non_null(strstr(capture_end(), "meta.budget_left_out"));
	assert_run_empty(&b);
	free(t);
	pg_run_release(&a);
	pg_run_release(&b);
	free(path);
}

/* the reference spin: kept as written, its run queue waits optional, one per repetition */
static void test_reference_spin(void **state)
{
	struct pg_run a, b;
	char *path = tmp_path("spin.json"), *t, *q;
	size_t n;

	make_run(&a);
	pg_run_init(&b);
	for (uint64_t i = 0; i < a.nreps; i++)
		pg_fx_spin(&a, 10000000 + i, 3 * i);
	assert_int_equal(pg_runfile_write(&a, path), 0);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_string_equal(b.meta.spin_workload, "test-spin");
	assert_int_equal(b.meta.nspin, a.nreps);
	for (size_t i = 0; i < a.nreps; i++) {
		assert_int_equal(b.meta.spin[i].cpu_ns, 10000000 + i);
		assert_int_equal(b.meta.spin[i].wall_ns, 10000000 + 4 * i);
		assert_int_equal(b.meta.spin[i].runq_ns, 3 * i);
	}
	pg_run_release(&b);

	/* without "runq_ns" (optional): no wait */
	t = read_text(path, &n);
	q = strstr(t, ",\"runq_ns\":[0,3,6]");
	assert_non_null(q);
	memmove(q, q + 18, strlen(q + 18) + 1);
	write_text(path, t, strlen(t));
	pg_run_init(&b);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_int_equal(b.meta.spin[2].runq_ns, 0);
	assert_int_equal(b.meta.spin[2].wall_ns, 10000008);
	pg_run_release(&b);
	free(t);

	/* spins on two CPUs: each CPU's times and samples kept, the samples' weights combined */
	a.meta.spin[1].ncpu = 2;
	a.meta.spin[1].cpus[0] = (struct pg_spin_cpu){ 3, 20000000, 19000000, 1000000, 30 };
	a.meta.spin[1].cpus[1] = (struct pg_spin_cpu){ 1, 10000000, 9000000, 0, 10 };
	pg_spin_combine(&a.meta.spin[1]);
	assert_int_equal(a.meta.spin[1].cpu_ns, (30 * 19000000ull + 10 * 9000000ull) / 40);
	assert_int_equal(a.meta.spin[1].runq_ns, 750000);
	assert_int_equal(pg_spin_samples(&a.meta.spin[1]), 40);
	assert_int_equal(pg_runfile_write(&a, path), 0);
	pg_run_init(&b);
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_int_equal(b.meta.spin[0].ncpu, 0);
	assert_int_equal(b.meta.spin[1].ncpu, 2);
	for (int c = 0; c < 2; c++) {
		const struct pg_spin_cpu *x = &a.meta.spin[1].cpus[c], *y = &b.meta.spin[1].cpus[c];

		assert_true(x->cpu == y->cpu && x->wall_ns == y->wall_ns &&
			    x->cpu_ns == y->cpu_ns && x->runq_ns == y->runq_ns &&
			    x->samples == y->samples);
	}
	assert_int_equal(b.meta.spin[1].cpu_ns, 16500000);
	pg_run_release(&b);
	/* without samples, the mean; a CPU named twice is refused */
	a.meta.spin[1].cpus[0].samples = a.meta.spin[1].cpus[1].samples = 0;
	pg_spin_combine(&a.meta.spin[1]);
	assert_int_equal(a.meta.spin[1].wall_ns, 15000000);
	a.meta.spin[1].cpus[1].cpu = 3;
	capture_begin();
	assert_int_equal(pg_runfile_write(&a, path), -EINVAL);
	assert_non_null(strstr(capture_end(), "names CPU 3 twice"));
	a.meta.spin[1].ncpu = 0;

	/* a spin too few for the repetitions: refused */
	a.meta.nspin--;
	capture_begin();
	assert_int_equal(pg_runfile_write(&a, path), -EINVAL);
	assert_non_null(strstr(capture_end(), "reference spin"));
	pg_run_release(&a);
	free(path);
}

/* ---- atomic writing ---- */

static void test_write_missing_dir(void **state)
{
	struct pg_run a;
	char *path = tmp_path("missing/run.json");
	char *names;
	struct stat st;
	const char *msg;

	make_run(&a);
	capture_begin();
	assert_true(pg_runfile_write(&a, path) < 0);
	msg = capture_end();
	assert_one_error_line(msg, path, NULL);
	names = list_dir(tmpdir);
	assert_string_equal(names, "");
	assert_int_equal(stat(path, &st), -1);
	free(names);
	pg_run_release(&a);
	free(path);
}

static void test_write_replaces(void **state)
{
	struct pg_run big, small, b;
	char *path = tmp_path("run.json"), *names, *text;

	make_run(&big);
	pg_run_init(&small);
	pg_run_init(&b);
	small.meta.argc = 1;
	small.meta.argv = strv(1, "./small");
	assert_int_equal(pg_runfile_write(&big, path), 0);
	assert_int_equal(pg_runfile_write(&small, path), 0);
	text = read_text(path, NULL);
	assert_null(strstr(text, "foo"));		/* nothing of the old file is left */
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_runs_equal(&small, &b);
	names = list_dir(tmpdir);
	assert_string_equal(names, "run.json");	/* no temporary file left behind */
	free(names);
	free(text);
	pg_run_release(&big);
	pg_run_release(&small);
	pg_run_release(&b);
	free(path);
}

static void test_write_invalid_run(void **state)
{
	struct pg_run good, bad, b;
	char *path = tmp_path("run.json"), *names;

	make_run(&good);
	make_run(&bad);
	pg_run_init(&b);
	assert_int_equal(pg_runfile_write(&good, path), 0);
	bad.reps[0].stats[0].self_ns = bad.reps[0].stats[0].total_ns + 1;
	capture_begin();
	assert_int_equal(pg_runfile_write(&bad, path), -EINVAL);
	assert_one_error_line(capture_end(), path, "invalid run");
	/* duplicate (binary, name): pg_run_validate() refuses it, so the writer does */
	pg_run_release(&bad);
	make_run(&bad);
	free(bad.funcs[1].name);
	bad.funcs[1].name = strdup(bad.funcs[0].name);
	free(bad.funcs[1].binary);
	bad.funcs[1].binary = strdup(bad.funcs[0].binary);
	capture_begin();
	assert_int_equal(pg_runfile_write(&bad, path), -EINVAL);
	assert_one_error_line(capture_end(), path, "both");
	/* compensated histograms without the measured calibration they were compensated with */
	pg_run_release(&bad);
	make_run(&bad);
	bad.calib.measured = false;
	capture_begin();
	assert_int_equal(pg_runfile_write(&bad, path), -EINVAL);
	assert_one_error_line(capture_end(), path, "compensated histograms");
	/* the old file is untouched */
	assert_int_equal(pg_runfile_read(path, &b), 0);
	assert_runs_equal(&good, &b);
	names = list_dir(tmpdir);
	assert_string_equal(names, "run.json");
	free(names);
	pg_run_release(&good);
	pg_run_release(&bad);
	pg_run_release(&b);
	free(path);
}

/* ---- corrupt files ---- */

/* A valid run file, written by hand. The cases below edit it. */
static const char base_json[] =
	"{\"format\":\"perfgate-run\",\"version\":1,\n"
	" \"meta\":{\"perfgate_version\":\"0.1.0\",\"command\":[\"./bench\",\"-n\",\"3\"],"
	"\"start_time\":\"2026-11-21T10:22:22Z\",\"host\":\"box\",\"kernel\":\"6.1.0\","
	"\"cpu_model\":\"cpu\",\"git_commit\":null,\"cwd\":\"/src\",\n"
	"  \"options\":{\"repetitions\":2,\"functions\":[\"foo*\"],\"exclude\":[]}},\n"
	" \"histogram\":{\"scheme\":\"log-linear\",\"sub_bucket_bits\":6,\"max_exponent\":41},\n"
	" \"calibration\":{\"unknown\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2},"
	"\"nop5\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1},"
	"\"emulated\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1.5},"
	"\"sstep\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2}},\n"
	" \"functions\":[\n"
	"  {\"id\":0,\"name\":\"foo\",\"display\":\"foo\",\"binary\":\"/bin/b\","
	"\"address\":\"0x1139\",\"offset\":4409,\"site\":\"nop5\",\"endbr\":false},\n"
	"  {\"id\":1,\"name\":\"bar\",\"display\":\"bar\",\"binary\":\"/bin/b\","
	"\"address\":\"0x1200\",\"offset\":4608,\"site\":\"sstep\",\"endbr\":true}],\n"
	" \"repetitions\":[{\"wall_ns\":1000000,\"exit_code\":0,\"signal\":0,\"functions\":[\n"
	"  {\"id\":0,\"calls\":3,\"total_ns\":300,\"self_ns\":200,\"min_ns\":90,\"max_ns\":110,"
	"\"desc\":{\"sstep\":1},\"kids\":{\"sstep\":1},\"probe_ns\":30,\"desc_probe_ns\":20,"
	"\"kids_probe_ns\":20,\"hist\":[[90,1],[100,2]]},\n"
	"  {\"id\":1,\"calls\":1,\"total_ns\":50,\"self_ns\":50,\"min_ns\":50,\"max_ns\":50,"
	"\"hist\":[[50,1]]}]}]}\n";

struct edit {
	const char *from, *to;
};

struct corrupt_case {
	const char *name;
	struct edit edits[2];	/* applied to base_json; each @from must occur once */
	const char *expect;	/* in the error message */
};

static const struct corrupt_case corrupt_cases[] = {
	{ "wrong format", { { "perfgate-run", "perfgate-compare" } }, "not a perfgate run file" },
	{ "no format", { { "\"format\":\"perfgate-run\",", "" } }, "not a perfgate run file" },
	{ "version 99", { { "\"version\":1", "\"version\":99" } },
	  "version 99 is not supported (this perfgate reads versions 1 to 3" },
	{ "version 2 without durations", { { "\"version\":1", "\"version\":2" } },
	  "histogram: \"durations\" is missing" },
	{ "durations not a string", { { "\"version\":1", "\"version\":2" },
				      { "\"max_exponent\":41}",
					"\"max_exponent\":41,\"durations\":5}" } },
	  "histogram: \"durations\" must be a string, not an integer" },
	{ "durations unknown", { { "\"max_exponent\":41}",
				   "\"max_exponent\":41,\"durations\":\"cooked\"}" } },
	  "histogram: \"durations\" must be \"raw\" or \"compensated\"" },
	{ "compensated in version 1", { { "\"max_exponent\":41}",
					  "\"max_exponent\":41,\"durations\":\"compensated\"}" } },
	  "compensated durations in a version 1 file (they need version 2)" },
	{ "compensated without calibration",
	  { { "\"version\":1", "\"version\":2" },
	    { "\"max_exponent\":41},\n \"calibration\"",
	      "\"max_exponent\":41,\"durations\":\"compensated\"},\n \"x_calibration\"" } },
	  "the durations are compensated, but the calibration they were compensated with is "
	  "missing" },
	{ "compensated without measured probe times",
	  { { "\"version\":1", "\"version\":2" },
	    { "\"max_exponent\":41},\n \"calibration\":{"
	      "\"unknown\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2},"
	      "\"nop5\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1},"
	      "\"emulated\":{\"in_ns\":1,\"out_ns\":2,\"measured_ns\":1.5},"
	      "\"sstep\":{\"in_ns\":9,\"out_ns\":5,\"measured_ns\":2}}",
	      "\"max_exponent\":41,\"durations\":\"compensated\"},\n \"calibration\":{"
	      "\"unknown\":{\"in_ns\":9,\"out_ns\":5},\"nop5\":{\"in_ns\":1,\"out_ns\":2},"
	      "\"emulated\":{\"in_ns\":1,\"out_ns\":2},\"sstep\":{\"in_ns\":9,\"out_ns\":5}}" } },
	  "the durations are compensated, but the calibration they were compensated with is "
	  "without \"measured_ns\"" },
	{ "spread on one site only",
	  { { "\"measured_ns\":1.5}", "\"measured_ns\":1.5,\"spread_ns\":30}" } },
	  "\"spread_ns\" is given for some site kinds only" },
	{ "negative spread",
	  { { "\"measured_ns\":1.5}", "\"measured_ns\":1.5,\"spread_ns\":-3}" } },
	  "emulated.spread_ns is out of range" },
	{ "version 0", { { "\"version\":1", "\"version\":0" } }, "version 0 is not supported" },
	{ "version string", { { "\"version\":1", "\"version\":\"1\"" } },
	  "\"version\" must be an integer, not a string" },
	{ "no version", { { "\"version\":1,", "" } }, "\"version\" is missing" },
	{ "negative calls", { { "\"calls\":3", "\"calls\":-3" } },
	  "repetitions[0].functions[0]: \"calls\" must not be negative" },
	{ "zero calls", { { "\"calls\":1,", "\"calls\":0," } }, "\"calls\" is 0" },
	{ "fractional calls", { { "\"calls\":3", "\"calls\":3.0" } },
	  "\"calls\" must be an integer, not a fractional number" },
	{ "huge number", { { "\"wall_ns\":1000000", "\"wall_ns\":1e30" } },
	  "\"wall_ns\" must be an integer" },
	{ "string for number", { { "\"total_ns\":300", "\"total_ns\":\"300\"" } },
	  "\"total_ns\" must be an integer, not a string" },
	{ "boolean for number", { { "\"signal\":0", "\"signal\":false" } },
	  "\"signal\" must be an integer, not a boolean" },
	{ "null for number", { { "\"offset\":4409", "\"offset\":null" } },
	  "functions[0]: \"offset\" must be an integer, not null" },
	{ "bucket out of range", { { "[100,2]", "[2368,2]" } }, "out of range (2368 > 2367)" },
	{ "negative bucket", { { "[90,1]", "[-1,1]" } }, "bucket must not be negative" },
	{ "hist not a pair", { { "[50,1]", "[50,1,2]" } }, "must be a [bucket, count] pair" },
	{ "hist count zero", { { "[50,1]", "[50,0]" } }, "count is 0" },
	{ "hist unsorted", { { "[[90,1],[100,2]]", "[[100,2],[90,1]]" } },
	  "buckets must be strictly increasing" },
	{ "hist overflow", { { "[[90,1],[100,2]]", "[[90,18446744073709551615],[100,2]]" } },
	  "counts overflow" },
	{ "hist total != calls", { { "[100,2]", "[100,3]" } },
	  "repetitions[0].functions[0]: \"hist\" holds 4 calls, \"calls\" is 3" },
	{ "stats unsorted", { { "{\"id\":0,\"calls\":3", "{\"id\":1,\"calls\":3" },
			      { "{\"id\":1,\"calls\":1", "{\"id\":0,\"calls\":1" } },
	  "sorted by id (0 after 1)" },
	{ "stats duplicate", { { "{\"id\":1,\"calls\":1", "{\"id\":0,\"calls\":1" } },
	  "function 0 appears twice" },
	{ "stats id out of range", { { "{\"id\":1,\"calls\":1", "{\"id\":2,\"calls\":1" } },
	  "\"id\" 2 is not a function of this run (it has 2)" },
	{ "function id mismatch", { { "{\"id\":1,\"name\"", "{\"id\":5,\"name\"" } },
	  "functions[1]: \"id\" is 5, not 1" },
	{ "function twice", { { "\"name\":\"bar\"", "\"name\":\"foo\"" } }, "are both foo" },
	{ "empty name", { { "\"name\":\"bar\"", "\"name\":\"\"" } }, "\"name\" is empty" },
	{ "NUL in name", { { "\"name\":\"bar\"", "\"name\":\"b\\u0000ar\"" } },
	  "contains a NUL character" },
	{ "null binary", { { "\"binary\":\"/bin/b\",\"address\":\"0x1200\"",
			     "\"binary\":null,\"address\":\"0x1200\"" } },
	  "\"binary\" must be a string, not null" },
	{ "bad address", { { "\"0x1200\"", "\"4608\"" } }, "\"address\" must be a hexadecimal" },
	{ "long address", { { "\"0x1200\"", "\"0x11112222333344445\"" } },
	  "\"address\" must be a hexadecimal" },
	{ "endbr not boolean", { { "\"endbr\":true", "\"endbr\":1" } },
	  "\"endbr\" must be a boolean" },
	{ "histogram scheme", { { "\"sub_bucket_bits\":6", "\"sub_bucket_bits\":5" } },
	  "unsupported histogram scheme" },
	{ "no histogram", { { " \"histogram\":{\"scheme\":\"log-linear\",\"sub_bucket_bits\":6,"
			      "\"max_exponent\":41},\n", "" } }, "\"histogram\" is missing" },
	{ "no host", { { "\"host\":\"box\",", "" } }, "meta: \"host\" is missing" },
	{ "empty command", { { "[\"./bench\",\"-n\",\"3\"]", "[]" } }, "\"command\" is empty" },
	{ "number in command", { { "[\"./bench\",\"-n\",\"3\"]", "[\"./bench\",\"-n\",3]" } },
	  "\"command\"[2] must be a string" },
	{ "exclude not array", { { "\"exclude\":[]", "\"exclude\":{}" } },
	  "meta.options: \"exclude\" must be an array, not an object" },
	{ "repetitions too big", { { "\"repetitions\":2", "\"repetitions\":4294967296" } },
	  "out of range" },
	{ "exit code 256", { { "\"exit_code\":0", "\"exit_code\":256" } },
	  "\"exit_code\" is out of range (256 is not in -1..255)" },
	{ "negative signal", { { "\"signal\":0", "\"signal\":-1" } },
	  "\"signal\" is out of range" },
	{ "self > total", { { "\"self_ns\":200", "\"self_ns\":400" } },
	  "\"self_ns\" 400 is larger than \"total_ns\" 300" },
	{ "min > max", { { "\"min_ns\":90", "\"min_ns\":120" } },
	  "\"min_ns\" 120 is larger than \"max_ns\" 110" },
	{ "total > calls x max", { { "\"total_ns\":300", "\"total_ns\":331" } },
	  "repetition 0, function 0: \"total_ns\" 331 is not between calls x min_ns" },
	{ "total < calls x min", { { "\"total_ns\":300,\"self_ns\":200",
				     "\"total_ns\":266,\"self_ns\":200" } },
	  "\"total_ns\" 266 is not between calls x min_ns and calls x max_ns" },
	{ "repetition not object", { { "\"repetitions\":[{\"wall_ns\":1000000,\"exit_code\":0,"
				       "\"signal\":0,\"functions\":[\n",
				       "\"repetitions\":[7,{\"wall_ns\":1000000,\"exit_code\":0,"
				       "\"signal\":0,\"functions\":[\n" } },
	  "repetitions[0]: the entry must be an object, not an integer" },
	{ "functions not array", { { "\"functions\":[\n  {\"id\":0,\"name\"",
				     "\"functions\":7,\"x\":[\n  {\"id\":0,\"name\"" } },
	  "\"functions\" must be an array, not an integer" },
	{ "kids probe > desc probe", { { "\"kids_probe_ns\":20", "\"kids_probe_ns\":21" } },
	  "\"kids_probe_ns\" is larger than \"desc_probe_ns\"" },
	{ "desc probe without desc", { { "\"desc\":{\"sstep\":1},\"kids\":{\"sstep\":1},", "" },
				       { "\"kids_probe_ns\":20", "\"kids_probe_ns\":0" } },
	  "\"desc_probe_ns\" without traced calls in \"desc\"" },
	{ "probe time negative", { { "\"probe_ns\":30", "\"probe_ns\":-30" } },
	  "\"probe_ns\" must not be negative" },
	{ "measured on some sites", { { ",\"measured_ns\":1.5", "" } },
	  "\"measured_ns\" is given for some site kinds only" },
	{ "measured out of range", { { "\"measured_ns\":1.5", "\"measured_ns\":-1" } },
	  "emulated.measured_ns is out of range" },
	{ "measured not a number", { { "\"measured_ns\":1.5", "\"measured_ns\":\"x\"" } },
	  "emulated.measured_ns must be a number" },
	{ "trailing comma", { { "[50,1]]", "[50,1],]" } }, "invalid JSON at line 11" },
	{ "trailing data", { { "]}]}\n", "]}]}\n{}" } },
	  "line 12, column 1: unexpected data after the end" },
	{ "truncated", { { "]}]}\n", "]}" } }, "unexpected end of file at line 11" },
};

/* base_json with the edits of @c applied; a new string. */
static char *apply(const struct corrupt_case *c)
{
	char *s = strdup(base_json);

	for (size_t i = 0; i < 2 && c->edits[i].from; i++) {
		const char *from = c->edits[i].from, *to = c->edits[i].to;
		char *at = strstr(s, from), *t;

		if (!at || strstr(at + 1, from))
			fail_msg("case \"%s\": \"%s\" does not occur exactly once", c->name, from);
		assert_true(asprintf(&t, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from)) > 0);
		free(s);
		s = t;
	}
	return s;
}

/* Reading @text must fail with one error line that says @expect; the run is left empty. */
static int read_bad(const char *text, size_t len, const char *expect)
{
	char *path = tmp_path("bad.json");
	struct pg_run run;
	int err;

	pg_run_init(&run);
	write_text(path, text, len);
	capture_begin();
	err = pg_runfile_read(path, &run);
	assert_one_error_line(capture_end(), path, expect);
	assert_true(err < 0);
	assert_run_empty(&run);
	unlink(path);
	free(path);
	return err;
}

static void test_base_is_valid(void **state)
{
	char *path = tmp_path("base.json");
	struct pg_run run;

	pg_run_init(&run);
	write_text(path, base_json, strlen(base_json));
	assert_int_equal(pg_runfile_read(path, &run), 0);
	assert_int_equal(run.nfuncs, 2);
	assert_int_equal(run.nreps, 1);
	assert_int_equal(run.reps[0].nstats, 2);
	assert_int_equal(run.funcs[1].addr, 0x1200);
	assert_int_equal(run.funcs[1].site, PG_SITE_SSTEP);
	assert_true(run.funcs[1].endbr);
	assert_int_equal(run.meta.nexcludes, 0);
	assert_false(run.hist_compensated);
	/* written before calibrations had a spread: unknown, not 0 */
	assert_true(run.calib.valid);
	assert_false(pg_calib_spread_known(&run.calib));
	pg_run_release(&run);
	free(path);
}

/* "histogram": {"durations": ...}: raw in version 1 (said or not), either in version 2. */
static void test_hist_durations(void **state)
{
	static const struct edit raw = { "\"max_exponent\":41}",
					  "\"max_exponent\":41,\"durations\":\"raw\"}" };
	static const struct edit comp = { "\"max_exponent\":41}",
					   "\"max_exponent\":41,\"durations\":\"compensated\"}" };
	static const struct edit v2 = { "\"version\":1", "\"version\":2" };
	const struct corrupt_case ok[] = {
		{ "v1 raw", { raw }, NULL },
		{ "v2 raw", { v2, raw }, NULL },
		{ "v2 compensated", { v2, comp }, NULL },
	};
	char *path = tmp_path("durations.json");

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct pg_run run;
		char *text = apply(&ok[i]);

		pg_run_init(&run);
		write_text(path, text, strlen(text));
		assert_int_equal(pg_runfile_read(path, &run), 0);
		assert_int_equal(run.hist_compensated, i == 2);
		pg_run_release(&run);
		free(text);
	}
	free(path);
}

static void test_corrupt_table(void **state)
{
	for (size_t i = 0; i < sizeof(corrupt_cases) / sizeof(corrupt_cases[0]); i++) {
		const struct corrupt_case *c = &corrupt_cases[i];
		char *text = apply(c);

		print_message("  %s\n", c->name);
		assert_int_equal(read_bad(text, strlen(text), c->expect), -EINVAL);
		free(text);
	}
}

static void test_corrupt_whole(void **state)
{
	static const struct {
		const char *text, *expect;
	} cases[] = {
		{ "", "it is empty" },
		{ " \n\t\n", "it is empty" },
		{ "hello world", "invalid JSON at line 1, column 1" },
		{ "{\"format\":\"perfgate-run\",\n\"version\":1,\n\"meta\":{\"host\":\"a\"",
		  "unexpected end of file at line 3" },
		{ "[1,2]", "the top level is an array" },
		{ "42", "the top level is an integer" },
		{ "null", "the top level is null" },
		{ "\"perfgate-run\"", "the top level is a string" },
		{ "{\"format\":1}", "not a perfgate run file" },
		{ "{}", "not a perfgate run file" },
		{ "{\"format\":\"perfgate-run\",\"version\":4}",
		  "version 4 is not supported (this perfgate reads versions 1 to 3; the file is "
		  "from a newer perfgate)" },
		{ "{\"format\":\"perfgate-run\",\"version\":1}", "\"meta\" is missing" },
		{ "{\"format\":\"perfgate-run\",\"version\":-1}", "version -1 is not supported" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(read_bad(cases[i].text, strlen(cases[i].text), cases[i].expect),
				 -EINVAL);
	/* a NUL byte */
	assert_int_equal(read_bad("{\"format\"\0:1}", 13, "line 1, column 10: NUL byte"),
			 -EINVAL);
	/* nesting deeper than json-c's limit */
	{
		char deep[2001];

		memset(deep, '[', 1000);
		memset(deep + 1000, ']', 1000);
		deep[2000] = '\0';
		assert_int_equal(read_bad(deep, 2000, "invalid JSON"), -EINVAL);
	}
}

/* Every proper prefix of a valid file is refused. */
static void test_truncated_everywhere(void **state)
{
	size_t len = strlen(base_json);

	/* the last byte is the newline after the closing brace */
	for (size_t n = 0; n < len - 1; n++)
		assert_int_equal(read_bad(base_json, n, NULL), -EINVAL);
}

/* Random byte changes must never crash; whatever reads back must be valid. */
static void test_mutations(void **state)
{
	char *path = tmp_path("mut.json");
	size_t len = strlen(base_json);
	char *buf = malloc(len);
	uint64_t x = 88172645463325252ULL;
	static const char bytes[] = "{}[]\",:0123456789-.eE \\ntfu";

	assert_non_null(buf);
	for (int k = 0; k < 3000; k++) {
		struct pg_run run;
		int err;

		memcpy(buf, base_json, len);
		for (int j = 0; j < 1 + k % 3; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[x % len] = bytes[(x >> 32) % (sizeof(bytes) - 1)];
		}
		write_text(path, buf, len);
		pg_run_init(&run);
		capture_begin();
		err = pg_runfile_read(path, &run);
		capture_end();
		if (err)
			assert_run_empty(&run);
		else
			assert_int_equal(pg_run_validate(&run, NULL, 0), 0);
		pg_run_release(&run);
	}
	free(buf);
	unlink(path);
	free(path);
}

static void test_unknown_keys_ignored(void **state)
{
	static const struct corrupt_case extra = {
		"extra keys",
		{ { "{\"format\":\"perfgate-run\",",
		    "{\"format\":\"perfgate-run\",\"x_future_calibration\":{\"probe_ns\":[1.5,2]},"
		    "\"future\":[[[[1]]]]," },
		  { "\"wall_ns\":1000000,",
		    "\"wall_ns\":1000000,\"x_future_stacks\":[{\"frames\":[0,1],"
		    "\"count\":3}],\"cpu\":null," } },
		NULL,
	};
	char *text = apply(&extra), *path = tmp_path("extra.json");
	struct pg_run run;

	pg_run_init(&run);
	write_text(path, text, strlen(text));
	assert_int_equal(pg_runfile_read(path, &run), 0);
	assert_int_equal(run.nreps, 1);
	assert_int_equal(run.reps[0].wall_ns, 1000000);
	/* an unknown site kind (from a later version) reads as "unknown" */
	free(text);
	text = strdup(base_json);
	memcpy(strstr(text, "\"site\":\"sstep\""), "\"site\":\"xstep\"", 14);
	write_text(path, text, strlen(text));
	pg_run_release(&run);
	assert_int_equal(pg_runfile_read(path, &run), 0);
	assert_int_equal(run.funcs[1].site, PG_SITE_UNKNOWN);
	pg_run_release(&run);
	free(text);
	free(path);
}

static void test_read_errors(void **state)
{
	char *missing = tmp_path("nope.json"), *big = tmp_path("big.json");
	struct pg_run run;
	int fd;

	pg_run_init(&run);
	capture_begin();
	assert_int_equal(pg_runfile_read(missing, &run), -ENOENT);
	assert_one_error_line(capture_end(), missing, "No such file");
	assert_run_empty(&run);

	capture_begin();
	assert_int_equal(pg_runfile_read(tmpdir, &run), -EISDIR);
	assert_one_error_line(capture_end(), tmpdir, "is a directory");
	assert_run_empty(&run);

	/* a sparse file one byte over the limit: refused before it is read */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, pg_runfile_max_bytes() + 1), 0);
	close(fd);
	capture_begin();
	assert_int_equal(pg_runfile_read(big, &run), -EFBIG);
	assert_one_error_line(capture_end(), big, "larger than the limit");
	assert_run_empty(&run);
	unlink(big);
	free(missing);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip_minimal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reference_spin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_missing_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_invalid_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_is_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hist_durations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_keys_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("runfile", tests, NULL, NULL);
}
