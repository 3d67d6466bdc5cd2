// SPDX-License-Identifier: MIT
/*
 * runner/probes/maps.c - clearing and reading the BPF maps of a recording. See maps.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "maps.h"

static int clear_hash(int fd, size_t keysz)
{
	size_t n = 0, cap = 0;
	char *keys = NULL;
	int err = 0;

	/* keys[n] is where the next key goes; keys[n - 1] is the previous one */
	while (!(err = pg_alloc_grow((void **)&keys, keysz, n + 1, &cap)) &&
	       !bpf_map_get_next_key(fd, n ? keys + (n - 1) * keysz : NULL, keys + n * keysz))
		n++;
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * keysz);
	free(keys);
	return err;
}

int pg_maps_reset(const struct pg_probes *p, size_t nfuncs, int ncpu)
{
	struct pg_bpf_fstat *zero = calloc((size_t)ncpu, sizeof(*zero));
	__u64 *zc = calloc((size_t)ncpu, sizeof(*zc));
	int err = 0;

	if (!zero || !zc) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (__u32 i = 0; i < nfuncs; i++)
		bpf_map_update_elem(pg_probes_map_fd(p, PG_MAP_FSTATS), &i, zero, BPF_ANY);
	for (__u32 i = 0; i < PG_CNT_MAX; i++)
		bpf_map_update_elem(pg_probes_map_fd(p, PG_MAP_COUNTERS), &i, zc, BPF_ANY);
	err = clear_hash(pg_probes_map_fd(p, PG_MAP_HIST), sizeof(struct pg_bpf_hkey));
	if (!err)
		err = clear_hash(pg_probes_map_fd(p, PG_MAP_STACKS), sizeof(__u32));
	if (!err)
		err = clear_hash(pg_probes_map_fd(p, PG_MAP_TRACED), sizeof(__u32));
	if (!err)
		err = clear_hash(pg_probes_map_fd(p, PG_MAP_THREADS), sizeof(__u32));
cleanup:
	free(zero);
	free(zc);
	return err;
}

void pg_maps_read_fstat(int fd, __u32 id, int ncpu, struct pg_bpf_fstat *v,
			struct pg_fstat *s)
{
	if (bpf_map_lookup_elem(fd, &id, v))
		return;
	s->func = id;
	for (int c = 0; c < ncpu; c++) {
		s->calls += v[c].calls;
		s->total_ns += v[c].total_ns;
		s->self_ns += v[c].self_ns;
		if (v[c].calls && (!s->min_ns || v[c].min_ns < s->min_ns))
			s->min_ns = v[c].min_ns;
		if (v[c].max_ns > s->max_ns)
			s->max_ns = v[c].max_ns;
		for (int k = 0; k < PG_NSITES; k++) {
			s->desc[k] += v[c].desc[k];
			s->kids[k] += v[c].kids[k];
			s->tails[k] += v[c].tails[k];
			s->desc_tails[k] += v[c].desc_tails[k];
		}
		s->probe_ns += v[c].probe_ns;
		s->desc_probe_ns += v[c].desc_probe_ns;
		s->kids_probe_ns += v[c].kids_probe_ns;
		s->offcpu_ns += v[c].offcpu_ns;
		s->runq_ns += v[c].runq_ns;
		s->self_offcpu_ns += v[c].self_offcpu_ns;
		s->self_runq_ns += v[c].self_runq_ns;
	}
}

static int thread_cmp(const void *a, const void *b)
{
	const struct pg_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int pg_maps_read_threads(int fd, struct pg_rep *rep)
{
	struct pg_bpf_thread v;
	size_t alloc = rep->nthreads;
	__u32 key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		struct pg_thread *t;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		if (PG_ALLOC_GROW(rep->threads, rep->nthreads + 1, alloc))
			return -ENOMEM;
		t = &rep->threads[rep->nthreads];
		t->comm = strndup(v.comm, sizeof(v.comm));
		if (!t->comm)
			return -ENOMEM;
		t->tid = key;
		t->cpu_ns = v.cpu_ns;
		t->runq_ns = v.runq_ns;
		t->blocked_ns = v.blocked_ns;
		rep->nthreads++;
	}
	if (rep->nthreads)
		qsort(rep->threads, rep->nthreads, sizeof(*rep->threads), thread_cmp);
	return 0;
}

int pg_maps_read_hists(int fd, __u32 first, size_t n, struct pg_fstat *s)
{
	struct pg_bpf_hkey key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		__u64 cnt = 0;

		prev = &key;
		if (key.func < first || key.func - first >= n ||
		    bpf_map_lookup_elem(fd, &key, &cnt))
			continue;
		if (cnt && pg_hist_add(&s[key.func - first].hist, key.bucket, cnt))
			return -ENOMEM;
	}
	return 0;
}

int pg_maps_read(const struct pg_probes *p, size_t nfuncs, int ncpu, struct pg_rep *rep,
		 __u64 counters[PG_CNT_MAX])
{
	int fst = pg_probes_map_fd(p, PG_MAP_FSTATS), hfd = pg_probes_map_fd(p, PG_MAP_HIST);
	struct pg_bpf_fstat *v = calloc((size_t)ncpu, sizeof(*v));
	struct pg_fstat *tmp = calloc(nfuncs, sizeof(*tmp));
	__u64 *cv = calloc((size_t)ncpu, sizeof(*cv));
	int err = 0;

	if (!v || !tmp || !cv) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (__u32 i = 0; i < nfuncs; i++)
		pg_maps_read_fstat(fst, i, ncpu, v, &tmp[i]);
	err = pg_maps_read_hists(hfd, 0, nfuncs, tmp);
	err = err ?: pg_maps_read_threads(pg_probes_map_fd(p, PG_MAP_THREADS), rep);
	if (err)
		goto cleanup;
	for (__u32 i = 0; i < PG_CNT_MAX; i++) {
		if (bpf_map_lookup_elem(pg_probes_map_fd(p, PG_MAP_COUNTERS), &i, cv))
			continue;
		for (int c = 0; c < ncpu; c++)
			counters[i] += cv[c];
	}
	for (size_t i = 0; i < nfuncs; i++) {
		struct pg_fstat *s;

		if (!tmp[i].calls)
			continue;
		if (pg_hist_total(&tmp[i].hist) != tmp[i].calls) {
			pg_err("the latency histogram map overflowed (%llu of %llu calls binned); "
			       "trace fewer functions",
			       (unsigned long long)pg_hist_total(&tmp[i].hist),
			       (unsigned long long)tmp[i].calls);
			err = -ENOSPC;
			goto cleanup;
		}
		s = pg_rep_add_stat(rep, (uint32_t)i);
		if (!s) {
			err = -ENOMEM;
			goto cleanup;
		}
		*s = tmp[i];
		pg_hist_init(&tmp[i].hist);	/* moved into the repetition */
	}
cleanup:
	if (tmp)
		for (size_t i = 0; i < nfuncs; i++)
			pg_hist_release(&tmp[i].hist);
	free(tmp);
	free(v);
	free(cv);
	return err;
}

void pg_maps_explain_counters(const __u64 c[PG_CNT_MAX])
{
	if (c[PG_CNT_OVERFLOW])
		pg_warn("%llu calls nested deeper than %d traced frames (the kernel's limit of "
			"return probes per thread) were not timed: they are not in the results",
			(unsigned long long)c[PG_CNT_OVERFLOW], PG_MAX_DEPTH);
	if (c[PG_CNT_NO_STACK])
		pg_warn("%llu calls were not timed: too many threads at once",
			(unsigned long long)c[PG_CNT_NO_STACK]);
	if (c[PG_CNT_NO_THREAD])
		pg_warn("%llu context switches of threads beyond the first %d of a repetition were "
			"not timed: their threads are not in the results",
			(unsigned long long)c[PG_CNT_NO_THREAD], PG_MAX_THREADS);
	if (c[PG_CNT_UNWOUND])
		pg_info("%llu traced calls never returned (longjmp, exceptions or exit): not "
			"counted", (unsigned long long)c[PG_CNT_UNWOUND]);
	if (c[PG_CNT_TAIL])
		pg_debug("%llu traced calls were tail calls (jmp) of traced callers: compensated "
			 "with one probe return trip less each",
			 (unsigned long long)c[PG_CNT_TAIL]);
	if (c[PG_CNT_UNMATCHED])
		pg_debug("%llu returns without a traced entry",
			 (unsigned long long)c[PG_CNT_UNMATCHED]);
	if (c[PG_CNT_UNSEEN_SWITCH])
		pg_debug("%llu switch-ins the scheduler's tracepoint did not report: dated from "
			 "the threads' run time", (unsigned long long)c[PG_CNT_UNSEEN_SWITCH]);
}
