// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../bpf/sample.h"
#include "../core/log.h"
#include "../core/strbuf.h"
#include "sampler.h"
#include "symbolize.h"
#include "unwind.h"
#include "sample.skel.h"

/* One address space seen in this repetition, with its symbol cache. */
struct space {
	pid_t pid;
	bool retired;		/* the process exec'd since: a new space took over */
	struct pg_aspace *as;
	struct pg_symcache cache;
};

/* A sample kept for unwinding after the repetition: the record, its stack trimmed. */
struct kept {
	size_t space;
	struct pg_rec_sample *rec;
};

struct pg_sampler {
	uint32_t hz;
	struct sample_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *link;	/* owns the perf event fd */
	int pidfd;		/* the root process, until it exits */
	int err;		/* first error while taking records in */
	uint64_t base_samples, base_lost;
	size_t nspaces;
	struct space *spaces;
	size_t nkept, capkept;
	struct kept *kept;
	struct pg_ksyms ksyms;
	struct pg_srcs srcs;
	/* cost of unwinding + symbolizing, over the whole recording */
	uint64_t unwind_ns, unwound;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void drop_spaces(struct pg_sampler *s)
{
	for (size_t i = 0; i < s->nspaces; i++) {
		pg_aspace_free(s->spaces[i].as);
		pg_symcache_release(&s->spaces[i].cache);
	}
	free(s->spaces);
	s->spaces = NULL;
	s->nspaces = 0;
	for (size_t i = 0; i < s->nkept; i++)
		free(s->kept[i].rec);
	free(s->kept);
	s->kept = NULL;
	s->nkept = s->capkept = 0;
}

/* The current address space of @pid, created (maps read) on its first sample. */
static long space_of(struct pg_sampler *s, pid_t pid)
{
	struct space *ns;

	for (size_t i = s->nspaces; i-- > 0;)
		if (s->spaces[i].pid == pid && !s->spaces[i].retired)
			return (long)i;
	ns = realloc(s->spaces, (s->nspaces + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	s->spaces = ns;
	memset(&ns[s->nspaces], 0, sizeof(*ns));
	ns[s->nspaces].pid = pid;
	ns[s->nspaces].as = pg_aspace_new(pid);
	if (!ns[s->nspaces].as)
		return -ENOMEM;
	return (long)s->nspaces++;
}

static int take_sample(struct pg_sampler *s, const struct pg_rec_sample *r, size_t size)
{
	size_t len = offsetof(struct pg_rec_sample, stack) + r->stack_len;
	long sp;

	if (size < offsetof(struct pg_rec_sample, stack) || r->stack_len > PG_SAMPLE_STACK_BYTES)
		return -EINVAL;
	sp = space_of(s, (pid_t)r->h.pid);
	if (sp < 0)
		return (int)sp;
	pg_aspace_check(s->spaces[sp].as, r);
	if (s->nkept == s->capkept) {
		size_t nc = s->capkept ? s->capkept * 2 : 1024;
		struct kept *nk = realloc(s->kept, nc * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		s->kept = nk;
		s->capkept = nc;
	}
	s->kept[s->nkept].space = (size_t)sp;
	s->kept[s->nkept].rec = malloc(len);
	if (!s->kept[s->nkept].rec)
		return -ENOMEM;
	memcpy(s->kept[s->nkept].rec, r, len);
	s->nkept++;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct pg_sampler *s = ctx;
	const struct pg_rec_hdr *h = data;
	int err = 0;

	if (size < sizeof(*h))
		return 0;
	if (h->kind == PG_REC_EXEC) {
		for (size_t i = 0; i < s->nspaces; i++)
			if (s->spaces[i].pid == (pid_t)h->pid)
				s->spaces[i].retired = true;
	} else if (h->kind == PG_REC_SAMPLE) {
		err = take_sample(s, data, size);
	}
	if (err && !s->err) {
		s->err = err;
		pg_err("cannot keep a sample: %s", strerror(-err));
	}
	return 0;	/* keep consuming: a failure is reported at stop */
}

struct pg_sampler *pg_sampler_open(uint32_t hz, int traced_fd)
{
	struct pg_sampler *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->hz = hz;
	s->pidfd = -1;
	s->skel = sample_bpf__open();
	if (!s->skel) {
		pg_err("cannot open the sampling BPF object: %s", strerror(errno));
		goto fail;
	}
	err = bpf_map__reuse_fd(s->skel->maps.traced, traced_fd);
	if (!err)
		err = sample_bpf__load(s->skel);
	if (err) {
		pg_err("cannot load the sampling BPF program: %s", strerror(-err));
		goto fail;
	}
	err = sample_bpf__attach(s->skel);	/* the exec tracepoint */
	if (err) {
		pg_err("cannot attach to sched_process_exec: %s", strerror(-err));
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), on_record, s, NULL);
	if (!s->rb) {
		pg_err("cannot open the sample ring buffer: %s", strerror(errno));
		goto fail;
	}
	pg_ksyms_load(&s->ksyms);
	return s;
fail:
	pg_sampler_free(s);
	return NULL;
}

void pg_sampler_free(struct pg_sampler *s)
{
	if (!s)
		return;
	if (s->unwound)
		pg_debug("unwound and symbolized %llu samples, %.1f us each",
			 (unsigned long long)s->unwound,
			 (double)s->unwind_ns / (double)s->unwound / 1e3);
	bpf_link__destroy(s->link);
	if (s->pidfd >= 0)
		close(s->pidfd);
	ring_buffer__free(s->rb);
	sample_bpf__destroy(s->skel);
	drop_spaces(s);
	pg_ksyms_release(&s->ksyms);
	pg_srcs_release(&s->srcs);
	free(s);
}

int pg_sampler_start(struct pg_sampler *s, pid_t pid)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = s->hz,
		.freq = 1,
		.inherit = 1,
		.disabled = 1,
	};
	int fd, err;

	drop_spaces(s);
	s->err = 0;
	s->base_samples = s->skel->bss->nsamples;
	s->base_lost = s->skel->bss->nlost;
	fd = (int)syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pg_err("cannot open a cpu-clock perf event for process %d: %s (--no-sample "
		       "records without a profile)", (int)pid, strerror(errno));
		return err;
	}
	s->link = bpf_program__attach_perf_event(s->skel->progs.pg_sample, fd);
	if (!s->link) {
		err = -errno;
		close(fd);
		pg_err("cannot attach the sampling program: %s", strerror(-err));
		return err;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		pg_err("cannot enable the cpu-clock perf event: %s", strerror(errno));
		return err;
	}
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

int pg_sampler_poll(struct pg_sampler *s, int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN },
		{ .fd = s->pidfd, .events = POLLIN },
	};
	int n = poll(p, s->pidfd >= 0 ? 2 : 1,
		     s->pidfd >= 0 || timeout_ms < PG_SAMPLER_ORPHAN_MS ? timeout_ms :
		     PG_SAMPLER_ORPHAN_MS);

	if (n < 0 && errno != EINTR)
		return -errno;
	if (s->pidfd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
		close(s->pidfd);	/* exited: from now on the caller's timeout rules */
		s->pidfd = -1;
	}
	n = ring_buffer__consume(s->rb);
	return n < 0 ? n : 0;
}

/* Unwind and symbolize one sample into its folded stack (malloc'd). NULL on ENOMEM. */
static char *fold(struct pg_sampler *s, const struct kept *k, bool *truncated)
{
	uint64_t pcs[PG_UNWIND_MAX_FRAMES];
	bool act[PG_UNWIND_MAX_FRAMES];
	struct space *sp = &s->spaces[k->space];
	const struct pg_rec_sample *r = k->rec;
	struct pg_strbuf b = PG_STRBUF_INIT;
	size_t n = 0, nk = r->kbytes > 0 ? (size_t)r->kbytes / 8 : 0;

	pg_unwind(sp->as, r, pcs, act, &n, truncated);
	if (nk >= PG_SAMPLE_KFRAMES)
		*truncated = true;
	for (size_t i = n; i-- > 0;) {
		if (b.len)
			pg_strbuf_add(&b, ";");
		pg_sym_user(sp->as->dwfl, &sp->cache, &s->srcs, pcs[i], act[i], &b);
	}
	for (size_t i = nk; i-- > 0;) {
		if (b.len)
			pg_strbuf_add(&b, ";");
		pg_sym_kernel(&s->ksyms, r->kips[i], &b);
	}
	if (!b.len)
		pg_strbuf_add(&b, "[unknown]");
	return pg_strbuf_take(&b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Turn the kept samples into @rep's sorted, counted stacks. */
static int fold_all(struct pg_sampler *s, struct pg_rep *rep)
{
	char **v = calloc(s->nkept ? s->nkept : 1, sizeof(*v));
	uint64_t t0 = mono_ns();
	size_t nu = 0;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nkept; i++) {
		bool trunc = false;

		v[i] = fold(s, &s->kept[i], &trunc);
		if (!v[i]) {
			err = -ENOMEM;
			goto cleanup;
		}
		rep->samples_truncated += trunc;
	}
	s->unwind_ns += mono_ns() - t0;
	s->unwound += s->nkept;
	qsort(v, s->nkept, sizeof(*v), cmp_str);
	for (size_t i = 0; i < s->nkept; i++)
		nu += !i || strcmp(v[i - 1], v[i]);
	rep->stacks = calloc(nu ? nu : 1, sizeof(*rep->stacks));
	if (!rep->stacks) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < s->nkept; i++) {
		if (rep->nstacks && !strcmp(rep->stacks[rep->nstacks - 1].folded, v[i])) {
			rep->stacks[rep->nstacks - 1].count++;
			free(v[i]);
		} else {
			rep->stacks[rep->nstacks].folded = v[i];
			rep->stacks[rep->nstacks++].count = 1;
		}
		v[i] = NULL;
	}
cleanup:
	for (size_t i = 0; i < s->nkept; i++)
		free(v[i]);
	free(v);
	return err;
}

int pg_sampler_stop(struct pg_sampler *s, struct pg_rep *rep)
{
	int err;

	bpf_link__destroy(s->link);	/* closes the event and its inherited copies */
	s->link = NULL;
	if (s->pidfd >= 0) {
		close(s->pidfd);
		s->pidfd = -1;
	}
	ring_buffer__consume(s->rb);
	rep->samples = s->skel->bss->nsamples - s->base_samples;
	pg_debug("sampling: %llu samples, %zu records kept, %llu lost",
		 (unsigned long long)rep->samples, s->nkept,
		 (unsigned long long)(s->skel->bss->nlost - s->base_lost));
	rep->samples_lost = s->skel->bss->nlost - s->base_lost;
	err = s->err;
	if (!err)
		err = fold_all(s, rep);
	/* a sample can be counted in nsamples after its record was taken: keep the invariant */
	if (rep->samples < rep->samples_lost + s->nkept)
		rep->samples = rep->samples_lost + s->nkept;
	drop_spaces(s);
	if (rep->samples < 2 && rep->wall_ns > 20ULL * 1000000000ULL / s->hz)
		pg_warn("the benchmark ran %.3f s but gave %llu samples: the kernel stops "
			"sampling a process whose exec gains privileges (setuid or file "
			"capabilities), and a benchmark that sleeps is not on the CPU",
			(double)rep->wall_ns / 1e9, (unsigned long long)rep->samples);
	if (rep->samples_lost)
		pg_warn("%llu of %llu samples were lost (the ring buffer was full): lower -F",
			(unsigned long long)rep->samples_lost, (unsigned long long)rep->samples);
	return err;
}

int pg_sampler_finish(struct pg_sampler *s, struct pg_run *run)
{
	return pg_srcs_finish(&s->srcs, run);
}
