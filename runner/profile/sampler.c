// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/sample.h"
#include "../../core/alloc.h"
#include "../../core/clock.h"
#include "../../core/log.h"
#include "../../core/strbuf.h"
#include "../../formats/folded.h"
#include "../select/objects.h"
#include "framecode.h"
#include "ownsamples.h"
#include "sampler.h"
#include "symbolize.h"
#include "unwind.h"
#include "sample.skel.h"

/* One address space seen in this repetition. */
struct space {
	pid_t pid;
	bool retired;		/* the process exec'd since: a new space took over */
	struct pg_aspace *as;
	char *exe;		/* its /proc/PID/exe when it was created, or NULL */
};

/* the space of the root process before its exec: perfgate's own forked code */
#define PRE_EXEC ((size_t)-1)

/* An off-CPU stack folded, and who woke its thread. */
struct offrec {
	struct pg_stack st;		/* count: nanoseconds */
	enum pg_woken_kind kind;	/* 0: its wakeup was not seen */
	char comm[PG_WAKER_COMM];	/* the waker's process, for PG_WOKEN_SAME and _OTHER */
};

_Static_assert((int)PG_WAKER_SAME == (int)PG_WOKEN_SAME &&
	       (int)PG_WAKER_OTHER == (int)PG_WOKEN_OTHER &&
	       (int)PG_WAKER_KERNEL == (int)PG_WOKEN_KERNEL &&
	       (int)PG_WAKER_IRQ == (int)PG_WOKEN_IRQ,
	       "bpf/sample.h and core/woken.h number the wakers alike");

/* A sample or off-CPU stack kept for unwinding after the repetition: the record, its stack
 * trimmed (rec->h.kind says which, rec->weight its off-CPU nanoseconds). */
struct kept {
	size_t space;		/* index in spaces, or PRE_EXEC */
	struct pg_rec_sample *rec;
};

struct pg_sampler {
	uint32_t hz;
	struct sample_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *link;	/* owns the perf event fd */
	int pidfd;		/* the root process, until it exits */
	pid_t root;		/* the root process */
	bool root_execd;	/* its exec record was seen */
	int err;		/* first error while taking records in */
	uint64_t base_samples, base_lost, base_offlost, base_offlost_ns;
	size_t nspaces, allocspaces;
	struct space *spaces;
	size_t nkept, capkept;
	struct kept *kept;
	size_t kept_bytes;
	/* stacks of this repetition folded so far (unsorted), and how many were truncated */
	size_t nfolded, capfolded;
	char **folded;
	/* off-CPU stacks of this repetition folded so far (unsorted, repeated) */
	size_t noff, capoff;
	struct offrec *off;
	uint64_t truncated;
	struct pg_ksyms ksyms;
	struct pg_symcache cache;	/* frames by module and address, for the whole recording */
	struct pg_srcs srcs;
	/* the function each innermost frame lies in, by side (pg_sampler_set_side()) */
	struct pg_framecodes codes;
	/* each sample's own time by function, object and program */
	struct pg_owntab own;
	int side;
	/* cost of unwinding + symbolizing, over the whole recording */
	uint64_t unwind_ns, unwound;
	uint64_t all_samples, all_lost, all_truncated;	/* over the whole recording */
	uint64_t all_offlost;
	/* the objects the sampled processes mapped, over the whole recording */
	struct pg_objects objs;
	uint32_t rep;		/* repetitions started (1-based number of the current one) */
};

/* What a space's modules tell of the objects: each file it mapped, in this repetition. */
struct note_ctx {
	struct pg_sampler *s;
	const struct space *sp;
	int err;
};

static int note_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	struct note_ctx *c = arg;
	struct pg_object *o;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	char hex[2 * 64 + 1] = "";
	int len;

	if (!name || name[0] != '/')
		return DWARF_CB_OK;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	for (int i = 0; i < len && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	o = pg_objects_note(&c->s->objs, name, hex[0] ? hex : NULL,
			    c->sp->exe && !strcmp(c->sp->exe, name), c->s->rep);
	if (!o) {
		c->err = -ENOMEM;
		return DWARF_CB_ABORT;
	}
	if (c->s->side >= 0 && c->s->side < 8)
		o->sides |= (uint8_t)(1u << c->s->side);
	return DWARF_CB_OK;
}

static void drop_spaces(struct pg_sampler *s)
{
	for (size_t i = 0; i < s->nspaces; i++) {
		struct note_ctx c = { .s = s, .sp = &s->spaces[i] };

		/* the modules of every read of the maps, also when a later one failed (the
		 * process had exited by then) */
		if (s->spaces[i].as)
			dwfl_getmodules(s->spaces[i].as->dwfl, note_module, &c, 0);
		if (c.err && !s->err)
			s->err = c.err;
		pg_aspace_free(s->spaces[i].as);
		free(s->spaces[i].exe);
	}
	free(s->spaces);
	s->spaces = NULL;
	s->nspaces = s->allocspaces = 0;
	for (size_t i = 0; i < s->nkept; i++)
		free(s->kept[i].rec);
	free(s->kept);
	s->kept = NULL;
	s->nkept = s->capkept = s->kept_bytes = 0;
	for (size_t i = 0; i < s->nfolded; i++)
		free(s->folded[i]);
	free(s->folded);
	s->folded = NULL;
	s->nfolded = s->capfolded = 0;
	for (size_t i = 0; i < s->noff; i++)
		free(s->off[i].st.folded);
	free(s->off);
	s->off = NULL;
	s->noff = s->capoff = 0;
	s->truncated = 0;
}

static int fold_pending(struct pg_sampler *s);

/* The file process @pid runs (malloc'd), or NULL. */
static char *proc_exe(pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

/* The current address space of @pid, created (maps read) on its first sample. */
static long space_of(struct pg_sampler *s, pid_t pid)
{
	struct space *ns;

	for (size_t i = s->nspaces; i-- > 0;)
		if (s->spaces[i].pid == pid && !s->spaces[i].retired)
			return (long)i;
	if (PG_ALLOC_GROW(s->spaces, s->nspaces + 1, s->allocspaces))
		return -ENOMEM;
	ns = s->spaces;
	memset(&ns[s->nspaces], 0, sizeof(*ns));
	ns[s->nspaces].pid = pid;
	ns[s->nspaces].as = pg_aspace_new(pid);
	if (!ns[s->nspaces].as)
		return -ENOMEM;
	ns[s->nspaces].exe = proc_exe(pid);
	return (long)s->nspaces++;
}

static int take_sample(struct pg_sampler *s, const struct pg_rec_sample *r, size_t size)
{
	size_t len = offsetof(struct pg_rec_sample, stack) + r->stack_len;
	long sp;

	if (size < offsetof(struct pg_rec_sample, stack) || r->stack_len > PG_SAMPLE_STACK_BYTES)
		return -EINVAL;
	if ((pid_t)r->h.pid == s->root && !s->root_execd) {
		sp = -1;	/* still perfgate's child: its maps are not the benchmark's */
	} else {
		sp = space_of(s, (pid_t)r->h.pid);
		if (sp < 0)
			return (int)sp;
		pg_aspace_check(s->spaces[sp].as, r);
	}
	if (PG_ALLOC_GROW(s->kept, s->nkept + 1, s->capkept))
		return -ENOMEM;
	s->kept[s->nkept].space = sp < 0 ? PRE_EXEC : (size_t)sp;
	s->kept[s->nkept].rec = malloc(len);
	if (!s->kept[s->nkept].rec)
		return -ENOMEM;
	memcpy(s->kept[s->nkept].rec, r, len);
	s->nkept++;
	s->kept_bytes += len;
	/* a long benchmark: unwind now rather than hold every stack snapshot */
	return s->kept_bytes > PG_SAMPLER_KEEP_BYTES ? fold_pending(s) : 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct pg_sampler *s = ctx;
	const struct pg_rec_hdr *h = data;
	int err = 0;

	if (size < sizeof(*h))
		return 0;
	if (h->kind == PG_REC_EXEC) {
		if ((pid_t)h->pid == s->root)
			s->root_execd = true;
		for (size_t i = 0; i < s->nspaces; i++)
			if (s->spaces[i].pid == (pid_t)h->pid)
				s->spaces[i].retired = true;
	} else if (h->kind == PG_REC_SAMPLE) {
		err = take_sample(s, data, size);
	} else if (h->kind == PG_REC_OFFCPU) {
		/* the root's wait for its start, before its exec, is perfgate's, not the
		 * benchmark's */
		if ((pid_t)h->pid != s->root || s->root_execd)
			err = take_sample(s, data, size);
	}
	if (err && !s->err) {
		s->err = err;
		pg_err("cannot keep a sample: %s", strerror(-err));
	}
	return 0;	/* keep consuming: a failure is reported at stop */
}

struct pg_sampler *pg_sampler_open(uint32_t hz, int traced_fd, bool offcpu)
{
	struct pg_sampler *s = calloc(1, sizeof(*s));
	uint64_t lo, hi;
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
	s->skel->rodata->offcpu_quantum_ns = PG_OFFCPU_QUANTUM_NS;
	pg_ksyms_load(&s->ksyms);
	pg_ksyms_range(&s->ksyms, "__local_bh_enable_ip", &lo, &hi);
	s->skel->rodata->bh_lo = lo;
	s->skel->rodata->bh_hi = hi;
	pg_ksyms_range(&s->ksyms, "__irqentry_text_start", &lo, NULL);
	pg_ksyms_range(&s->ksyms, "__irqentry_text_end", &hi, NULL);
	if (lo && hi > lo) {
		s->skel->rodata->irqentry_lo = lo;
		s->skel->rodata->irqentry_hi = hi;
	}
	bpf_program__set_autoload(s->skel->progs.pg_offcpu_switch, offcpu);
	bpf_program__set_autoload(s->skel->progs.pg_offcpu_wakeup, offcpu);
	bpf_program__set_autoload(s->skel->progs.pg_offcpu_sysexit, offcpu);
	err = bpf_map__reuse_fd(s->skel->maps.traced, traced_fd);
	if (!err)
		err = sample_bpf__load(s->skel);
	if (err) {
		pg_err("cannot load the sampling BPF program: %s", strerror(-err));
		goto fail;
	}
	err = sample_bpf__attach(s->skel);	/* the exec and scheduler tracepoints */
	if (err) {
		pg_err("cannot attach to sched_process_exec%s: %s", offcpu ?
		       ", sched_switch, sched_waking or sys_exit (--no-offcpu records without "
		       "them)" : "", strerror(-err));
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), on_record, s, NULL);
	if (!s->rb) {
		pg_err("cannot open the sample ring buffer: %s", strerror(errno));
		goto fail;
	}
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
	pg_objects_release(&s->objs);
	pg_ksyms_release(&s->ksyms);
	pg_symcache_release(&s->cache);
	pg_srcs_release(&s->srcs);
	pg_framecodes_release(&s->codes);
	pg_owntab_release(&s->own);
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
	s->rep++;
	s->root = pid;
	s->root_execd = false;
	s->base_samples = s->skel->bss->nsamples;
	s->base_lost = s->skel->bss->nlost;
	s->base_offlost = s->skel->bss->noffcpu_lost;
	s->base_offlost_ns = s->skel->bss->noffcpu_lost_ns;
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
	int limit = s->pidfd >= 0 ? PG_SAMPLER_DRAIN_MS : PG_SAMPLER_ORPHAN_MS;
	int n = poll(p, s->pidfd >= 0 ? 2 : 1, timeout_ms < limit ? timeout_ms : limit);

	if (n < 0 && errno != EINTR)
		return -errno;
	if (s->pidfd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
		close(s->pidfd);	/* exited: from now on the caller's timeout rules */
		s->pidfd = -1;
	}
	n = ring_buffer__consume(s->rb);
	return n < 0 ? n : 0;
}

/* The path of the object user frame @pc (a return address unless @act) lies in, or NULL
 * when unknown. */
static const char *frame_object(const struct space *sp, uint64_t pc, bool act)
{
	Dwfl_Module *mod = dwfl_addrmodule(sp->as->dwfl, act ? pc : pc - 1);
	const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL,
						  NULL) : NULL;

	return name && name[0] == '/' ? name : NULL;
}

/* The object of a sample's innermost user frame gets the sample as its own; its path, or
 * NULL when unknown. */
static const char *count_leaf(struct pg_sampler *s, const struct space *sp, uint64_t pc,
			      bool act)
{
	const char *name = frame_object(sp, pc, act);

	if (name && pg_objects_count_self(&s->objs, name, 1) && !s->err)
		s->err = -ENOMEM;
	if (sp->exe && pg_objects_count_ran(&s->objs, sp->exe, 1) && !s->err)
		s->err = -ENOMEM;
	return name;
}

/*
 * The innermost user frames @leaf[0..len) ("f", or "f;g [i]" inside inlined code) lie in the
 * function at @sym of @path, which f names: the sample's own time is that function's, in the
 * process of space @sp, and so is the code it ran.
 */
static void note_own(struct pg_sampler *s, const struct space *sp, const char *path,
		     const char *leaf, size_t len, uint64_t sym)
{
	const char *semi = memchr(leaf, ';', len), *name = NULL;

	if (!path || sym == PG_NO_SYM)
		return;	/* in no function symbol: an address, [unknown] */
	if (pg_owntab_note(&s->own, path, sp->exe, leaf, semi ? (size_t)(semi - leaf) : len, sym,
			   &name) ||
	    pg_framecodes_note(&s->codes, name, strlen(name), s->side, path, sym)) {
		if (!s->err)
			s->err = -ENOMEM;
	}
}

/*
 * User frame @pc (a return address unless @act) of an on-CPU sample in space @sp, whose frames
 * @f[0..len) ("f", or "f;g [i]" inside inlined code) lie in the function at @sym: the sample
 * counts in f's inclusive time, in its object.
 */
static void note_frame(struct pg_sampler *s, const struct space *sp, uint64_t pc, bool act,
		       const char *f, size_t len, uint64_t sym)
{
	const char *path = sym == PG_NO_SYM ? NULL : frame_object(sp, pc, act);
	const char *semi = memchr(f, ';', len);

	if (path && pg_owntab_frame(&s->own, path, sp->exe, f, semi ? (size_t)(semi - f) : len,
				    sym) && !s->err)
		s->err = -ENOMEM;
}

/* Unwind and symbolize one sample into its folded stack (malloc'd). NULL on ENOMEM. */
static char *fold(struct pg_sampler *s, const struct kept *k, bool *truncated)
{
	uint64_t pcs[PG_UNWIND_MAX_FRAMES];
	bool act[PG_UNWIND_MAX_FRAMES];
	const struct pg_rec_sample *r = k->rec;
	struct pg_strbuf b = PG_STRBUF_INIT;
	size_t n = 0, nk = r->kbytes > 0 ? (size_t)r->kbytes / 8 : 0, leaf_at = 0;
	const char *leaf_obj = NULL;
	uint64_t sym = PG_NO_SYM;

	if (nk >= PG_SAMPLE_KFRAMES)
		*truncated = true;
	if (k->space == PRE_EXEC) {
		pg_strbuf_add(&b, "[pre-exec]");
	} else {
		struct space *sp = &s->spaces[k->space];

		pg_unwind(sp->as, r, pcs, act, &n, truncated);
		if (n && r->h.kind != PG_REC_OFFCPU)
			leaf_obj = count_leaf(s, sp, pcs[0], act[0]);
	}
	for (size_t i = n; i-- > 0;) {
		struct space *sp = &s->spaces[k->space];

		if (b.len)
			pg_strbuf_add(&b, ";");
		leaf_at = b.len;
		sym = PG_NO_SYM;
		if (pg_in_uprobes_page(r, pcs[i], act[i]))
			pg_strbuf_add(&b, "[unknown]");
		else
			pg_sym_user(sp->as->dwfl, &s->cache, &s->srcs, pcs[i], act[i], &b, &sym);
		if (r->h.kind != PG_REC_OFFCPU && !b.err)
			note_frame(s, sp, pcs[i], act[i], b.s + leaf_at, b.len - leaf_at, sym);
	}
	if (n && r->h.kind != PG_REC_OFFCPU) {
		if (!b.err)
			note_own(s, &s->spaces[k->space], leaf_obj, b.s + leaf_at,
				 b.len - leaf_at, sym);
		if (pg_owntab_stack_end(&s->own) && !s->err)
			s->err = -ENOMEM;
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

/* Off-CPU record @r, folded into @f (taken), into @o. */
static void take_offcpu(struct offrec *o, const struct pg_rec_sample *r, char *f)
{
	o->st.folded = f;
	o->st.count = r->weight;
	o->kind = r->waker < PG_WOKEN_KINDS ? (enum pg_woken_kind)r->waker : 0;
	o->comm[0] = 0;
	if (o->kind != PG_WOKEN_SAME && o->kind != PG_WOKEN_OTHER)
		return;
	memcpy(o->comm, r->waker_comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = 0;
	if (!o->comm[0])	/* its name could not be read */
		snprintf(o->comm, sizeof(o->comm), "[pid %u]", r->waker_pid);
}

/* Unwind and fold the kept samples into s->folded, and free their records. */
static int fold_pending(struct pg_sampler *s)
{
	uint64_t t0 = pg_now_ns();
	int err = 0;

	if (PG_ALLOC_GROW(s->folded, s->nfolded + s->nkept, s->capfolded) ||
	    PG_ALLOC_GROW(s->off, s->noff + s->nkept, s->capoff))
		return -ENOMEM;
	for (size_t i = 0; i < s->nkept; i++) {
		const struct pg_rec_sample *r = s->kept[i].rec;
		bool trunc = false;
		char *f = err ? NULL : fold(s, &s->kept[i], &trunc);

		if (!f) {
			err = -ENOMEM;
		} else if (r->h.kind == PG_REC_OFFCPU) {
			take_offcpu(&s->off[s->noff++], r, f);
		} else {
			s->folded[s->nfolded++] = f;
			s->truncated += trunc;
		}
		free(s->kept[i].rec);
	}
	s->unwind_ns += pg_now_ns() - t0;
	s->unwound += s->nkept;
	s->nkept = s->kept_bytes = 0;
	return err;
}

/* Move the folded stacks into @rep, sorted and counted. */
static int count_stacks(struct pg_sampler *s, struct pg_rep *rep)
{
	size_t nu = 0;

	if (s->nfolded > 1)	/* qsort() wants a non-NULL array even when empty (UBSan) */
		qsort(s->folded, s->nfolded, sizeof(*s->folded), cmp_str);
	for (size_t i = 0; i < s->nfolded; i++)
		nu += !i || strcmp(s->folded[i - 1], s->folded[i]);
	rep->stacks = calloc(nu ? nu : 1, sizeof(*rep->stacks));
	if (!rep->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < s->nfolded; i++) {
		if (rep->nstacks && !strcmp(rep->stacks[rep->nstacks - 1].folded, s->folded[i])) {
			rep->stacks[rep->nstacks - 1].count++;
			free(s->folded[i]);
		} else {
			rep->stacks[rep->nstacks].folded = s->folded[i];
			rep->stacks[rep->nstacks++].count = 1;
		}
	}
	rep->samples_truncated = s->truncated;
	s->nfolded = 0;
	return 0;
}

static int cmp_offrec(const void *pa, const void *pb)
{
	const struct offrec *a = pa, *b = pb;
	int d = strcmp(a->st.folded, b->st.folded);

	if (d)
		return d;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->comm, b->comm);
}

/* @a + @b, saturated: 584 years of blocked time */
static uint64_t add_ns(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Add off-CPU record @o's waker, of rep->offcpu[rep->noffcpu - 1], to rep->woken. 0 or
 * -ENOMEM. */
static int count_waker(struct pg_rep *rep, const struct offrec *o)
{
	struct pg_woken *w = rep->nwoken ? &rep->woken[rep->nwoken - 1] : NULL;
	uint32_t stack = (uint32_t)(rep->noffcpu - 1);

	if (!o->kind)
		return 0;
	if (w && w->stack == stack && w->kind == o->kind && !strcmp(w->comm, o->comm)) {
		w->ns = add_ns(w->ns, o->st.count);
		return 0;
	}
	w = &rep->woken[rep->nwoken];
	w->comm = strdup(o->comm);
	if (!w->comm)
		return -ENOMEM;
	w->stack = stack;
	w->kind = o->kind;
	w->ns = o->st.count;
	rep->nwoken++;
	return 0;
}

/* Move the off-CPU stacks into @rep, sorted, their nanoseconds added up per stack, and per
 * stack by waker (rep->woken). */
static int count_offcpu(struct pg_sampler *s, struct pg_rep *rep)
{
	int err = 0;

	if (s->noff > 1)
		qsort(s->off, s->noff, sizeof(*s->off), cmp_offrec);
	rep->offcpu = calloc(s->noff ? s->noff : 1, sizeof(*rep->offcpu));
	rep->woken = calloc(s->noff ? s->noff : 1, sizeof(*rep->woken));
	if (!rep->offcpu || !rep->woken)
		return -ENOMEM;
	for (size_t i = 0; !err && i < s->noff; i++) {
		struct offrec *o = &s->off[i];
		struct pg_stack *last = rep->noffcpu ? &rep->offcpu[rep->noffcpu - 1] : NULL;

		if (last && !strcmp(last->folded, o->st.folded)) {
			last->count = add_ns(last->count, o->st.count);
			free(o->st.folded);
		} else {
			rep->offcpu[rep->noffcpu++] = o->st;
		}
		o->st.folded = NULL;
		err = count_waker(rep, o);
	}
	for (size_t i = 0; i < s->noff; i++)
		free(s->off[i].st.folded);
	free(s->off);
	s->off = NULL;
	s->noff = s->capoff = 0;
	return err;
}

int pg_sampler_stop(struct pg_sampler *s, struct pg_rep *rep)
{
	uint64_t offlost;
	int err;

	bpf_link__destroy(s->link);	/* closes the event and its inherited copies */
	s->link = NULL;
	if (s->pidfd >= 0) {
		close(s->pidfd);
		s->pidfd = -1;
	}
	ring_buffer__consume(s->rb);
	rep->samples = s->skel->bss->nsamples - s->base_samples;
	rep->samples_lost = s->skel->bss->nlost - s->base_lost;
	err = s->err;
	if (!err)
		err = fold_pending(s);
	/* a sample can be counted in nsamples after its record was taken: keep the invariant */
	if (rep->samples < rep->samples_lost + s->nfolded)
		rep->samples = rep->samples_lost + s->nfolded;
	if (!err)
		err = count_stacks(s, rep);
	if (!err)
		err = pg_owntab_take(&s->own, rep);
	pg_owntab_drop(&s->own);
	if (!err)
		err = count_offcpu(s, rep);
	drop_spaces(s);
	s->all_samples += rep->samples;
	s->all_lost += rep->samples_lost;
	s->all_truncated += rep->samples_truncated;
	if (rep->samples < 2 && rep->wall_ns > 20ULL * 1000000000ULL / s->hz)
		pg_warn("the benchmark ran %.3f s but gave %llu samples: the kernel stops "
			"sampling a process whose exec gains privileges (setuid or file "
			"capabilities), and a benchmark that sleeps is not on the CPU",
			(double)rep->wall_ns / 1e9, (unsigned long long)rep->samples);
	if (rep->samples_lost)
		pg_warn("%llu of %llu samples were lost (the ring buffer was full): lower -F",
			(unsigned long long)rep->samples_lost, (unsigned long long)rep->samples);
	offlost = s->skel->bss->noffcpu_lost - s->base_offlost;
	if (offlost)
		pg_warn("%llu off-CPU stacks (%.3f s blocked) were lost (the ring buffer was "
			"full): --no-offcpu records without them",
			(unsigned long long)offlost,
			(double)(s->skel->bss->noffcpu_lost_ns - s->base_offlost_ns) / 1e9);
	s->all_offlost += offlost;
	return err;
}

int pg_sampler_finish(struct pg_sampler *s, struct pg_run *run)
{
	if (s->all_truncated)
		pg_info("%llu of %llu samples could not be unwound to the root of their stack "
			"(deeper than the %d KiB stack snapshot, without frame pointers): they are "
			"kept, cut short", (unsigned long long)s->all_truncated,
			(unsigned long long)s->all_samples, PG_SAMPLE_STACK_BYTES / 1024);
	pg_debug("sampled profile: %llu samples, %llu lost, %llu truncated; %llu off-CPU stacks "
		 "sent, %llu lost, %llu (%.3f s) without a user stack",
		 (unsigned long long)s->all_samples, (unsigned long long)s->all_lost,
		 (unsigned long long)s->all_truncated, (unsigned long long)s->skel->bss->noffcpu,
		 (unsigned long long)s->all_offlost,
		 (unsigned long long)s->skel->bss->noffcpu_nostack,
		 (double)s->skel->bss->noffcpu_nostack_ns / 1e9);
	return pg_srcs_finish(&s->srcs, run);
}

void pg_sampler_set_side(struct pg_sampler *s, int side)
{
	s->side = side;
}

int pg_sampler_codes(struct pg_sampler *s, int side, struct pg_codesums *cs, struct pg_run *run)
{
	return pg_framecodes_fill(&s->codes, side, cs, run) ?: pg_owntab_objects(&s->own, run);
}

const struct pg_objects *pg_sampler_objects(const struct pg_sampler *s)
{
	return &s->objs;
}

uint32_t pg_sampler_reps(const struct pg_sampler *s)
{
	return s->rep;
}

uint64_t pg_sampler_cpu_samples(const struct pg_sampler *s, uint32_t cpu)
{
	return cpu < PG_SAMPLE_CPUS ? s->skel->bss->cpu_samples[cpu] : 0;
}
