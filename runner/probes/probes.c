// SPDX-License-Identifier: MIT
/*
 * runner/probes/probes.c - loading the BPF object and attaching its uprobes and tracepoints. See
 * probes.h; the uprobe_multi links are made with a raw BPF_LINK_CREATE
 * (runner/probes/uprobe_multi.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/perfgate.h"
#include "../../core/alloc.h"
#include "../../core/clock.h"
#include "../../core/log.h"
#include "../profile/sampler.h"
#include "calibrate.h"
#include "probes.h"
#include "uprobe_multi.h"
#include "perfgate.skel.h"

void pg_probes_release(struct pg_probes *p)
{
	bool offcpu;

	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	for (size_t i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	free(p->fds);
	free(p->links);
	bpf_link__destroy(p->fork_link);
	bpf_link__destroy(p->exit_link);
	bpf_link__destroy(p->switch_link);
	bpf_link__destroy(p->wakeup_link);
	bpf_link__destroy(p->wakeup_new_link);
	pg_sampler_free(p->sampler);
	pg_excfix_release(&p->fix);
	perfgate_bpf__destroy(p->skel);
	offcpu = p->offcpu;	/* a setting, not something attached: attached again as it was */
	memset(p, 0, sizeof(*p));
	p->offcpu = offcpu;
}

static int link_uprobe_multi(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, size_t n, bool ret)
{
	union bpf_attr attr;
	struct pg_link_create_uprobe_multi *lc = (void *)&attr.link_create;
	int fd;

	memset(&attr, 0, sizeof(attr));
	lc->prog_fd = (__u32)prog_fd;
	lc->attach_type = PG_BPF_TRACE_UPROBE_MULTI;
	lc->path = (__u64)(unsigned long)path;
	lc->offsets = (__u64)(unsigned long)offsets;
	lc->cookies = (__u64)(unsigned long)cookies;
	lc->cnt = (__u32)n;
	lc->um_flags = ret ? PG_BPF_F_UPROBE_MULTI_RETURN : 0;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

static int push_fd(struct pg_probes *p, int fd)
{
	if (PG_ALLOC_GROW(p->fds, p->nfds + 1, p->fds_alloc)) {
		close(fd);
		return -ENOMEM;
	}
	p->fds[p->nfds++] = fd;
	return 0;
}

static int push_link(struct pg_probes *p, struct bpf_link *l)
{
	if (PG_ALLOC_GROW(p->links, p->nlinks + 1, p->links_alloc)) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

/*
 * Attach entry and return probes at @n file offsets of @path, with their cookies: one
 * uprobe_multi link each, or one link per probe when !p->multi. -EOPNOTSUPP when the kernel
 * lacks uprobe_multi (only reported for the first link, so that the caller can fall back).
 */
int pg_probes_attach_set(struct pg_probes *p, const char *path, const uint64_t *off,
			 const uint64_t *cookie, size_t n)
{
	for (int ret = 0; ret < 2; ret++) {
		struct bpf_program *prog = ret ? p->skel->progs.pg_return :
						 p->skel->progs.pg_entry;

		if (p->multi) {
			int fd = link_uprobe_multi(bpf_program__fd(prog), path, off, cookie, n,
						   ret);

			if (fd < 0 && !p->nfds && (fd == -EINVAL || fd == -EOPNOTSUPP ||
						   fd == -ENOSYS || fd == -EBADF))
				return -EOPNOTSUPP;
			if (fd < 0) {
				pg_err("cannot attach %zu probes to %s: %s", n, path,
				       strerror(-fd));
				return fd;
			}
			if (push_fd(p, fd))
				return -ENOMEM;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = ret, .bpf_cookie = cookie[i]);
			struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, path,
									     off[i], &uo);

			if (!l) {
				int err = -errno;

				pg_err("cannot attach a probe at offset %#llx of %s: %s",
				       (unsigned long long)off[i], path, strerror(-err));
				return err;
			}
			if (push_link(p, l))
				return -ENOMEM;
		}
	}
	return 0;
}

uint64_t pg_probe_cookie(enum pg_site site, uint32_t id)
{
	return (uint64_t)site << PG_COOKIE_SITE_SHIFT | id;
}

/* The run's functions with @live[id] set (NULL: all), binary by binary (grouped by binary). */
static int attach_run(struct pg_probes *p, const struct pg_run *run, const bool *live)
{
	size_t i = 0;

	while (i < run->nfuncs) {
		const char *path = run->funcs[i].binary;
		size_t j = i, n = 0;
		uint64_t *off, *cookie;
		int err = 0;

		while (j < run->nfuncs && !strcmp(run->funcs[j].binary, path))
			j++;
		off = calloc(j - i, sizeof(*off));
		cookie = calloc(j - i, sizeof(*cookie));
		if (!off || !cookie)
			err = -ENOMEM;
		for (size_t k = i; !err && k < j; k++) {
			if (live && !live[run->funcs[k].id])
				continue;
			off[n] = run->funcs[k].offset;
			cookie[n++] = pg_probe_cookie(run->funcs[k].site, run->funcs[k].id);
		}
		if (!err && n)
			err = pg_probes_attach_set(p, path, off, cookie, n);
		free(off);
		free(cookie);
		if (err)
			return err;
		i = j;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && pg_log_get_level() < PG_LOG_DEBUG)
		return 0;
	if (level == LIBBPF_INFO && pg_log_get_level() < PG_LOG_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void pg_probes_log_to_stderr(void)
{
	libbpf_set_print(libbpf_print);
}

/*
 * The context-switch programs (p->offcpu): attached after load; not even loaded without it, so
 * that --no-offcpu costs the scheduler nothing.
 */
static void offcpu_autoload(struct pg_probes *p)
{
	bpf_program__set_autoload(p->skel->progs.pg_switch, p->offcpu);
	bpf_program__set_autoload(p->skel->progs.pg_wakeup, p->offcpu);
	bpf_program__set_autoload(p->skel->progs.pg_wakeup_new, p->offcpu);
	if (!p->offcpu)	/* never written: no room */
		bpf_map__set_max_entries(p->skel->maps.threads, 1);
}

static int offcpu_attach(struct pg_probes *p)
{
	int err;

	if (!p->offcpu)
		return 0;
	p->switch_link = bpf_program__attach(p->skel->progs.pg_switch);
	p->wakeup_link = bpf_program__attach(p->skel->progs.pg_wakeup);
	p->wakeup_new_link = bpf_program__attach(p->skel->progs.pg_wakeup_new);
	if (p->switch_link && p->wakeup_link && p->wakeup_new_link)
		return 0;
	err = -errno;
	pg_err("cannot attach to the sched_switch/sched_wakeup tracepoints (off-CPU time; "
	       "--no-offcpu goes without): %s", strerror(-err));
	return err;
}

/* Load the opened object and attach its fork and exit tracepoints. 0 or -errno (logged). */
static int load_and_track(struct pg_probes *p)
{
	int err;

	offcpu_autoload(p);
	err = perfgate_bpf__load(p->skel);
	if (err) {
		pg_err("cannot load the BPF program: %s", strerror(-err));
		return err;
	}
	p->fork_link = bpf_program__attach(p->skel->progs.pg_fork);
	p->exit_link = bpf_program__attach(p->skel->progs.pg_exit);
	if (!p->fork_link || !p->exit_link) {
		err = -errno;
		pg_err("cannot attach to the sched_process_fork/exit tracepoints: %s",
		       strerror(-err));
		return err;
	}
	return offcpu_attach(p);
}

/* Load and attach; with @preload (the library's path), publish the return addresses too. */
static int open_probes(struct pg_probes *p, const struct pg_run *run, bool multi,
		       const char *preload)
{
	size_t nhist = run->nfuncs * 512;
	int err;

	p->skel = perfgate_bpf__open();
	if (!p->skel) {
		pg_err("cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	if (nhist < 65536)
		nhist = 65536;
	if (nhist > (1u << 20))
		nhist = 1u << 20;
	/* the calibration targets take the ids after the run's functions */
	bpf_map__set_max_entries(p->skel->maps.fstats, (__u32)(run->nfuncs + PG_CALIB_NTARGETS));
	bpf_map__set_max_entries(p->skel->maps.hist, (__u32)nhist);
	if (multi) {
		bpf_program__set_expected_attach_type(p->skel->progs.pg_entry,
						      PG_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(p->skel->progs.pg_return,
						      PG_BPF_TRACE_UPROBE_MULTI);
	}
	p->skel->rodata->publish_rets = preload != NULL;
	if (!preload)	/* never written: spare its megabyte */
		bpf_map__set_max_entries(p->skel->maps.rets, 1);
	err = load_and_track(p);
	if (err)
		return err;
	p->multi = multi;
	return attach_run(p, run, NULL);
}

/*
 * The BPF object with only its process tracking attached (the `traced` map, filled by the
 * fork and exit tracepoints): what a sampled run without probes needs.
 */
int pg_probes_open_bare(struct pg_probes *p)
{
	p->skel = perfgate_bpf__open();
	if (!p->skel) {
		pg_err("cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	bpf_map__set_max_entries(p->skel->maps.fstats, 1);
	bpf_map__set_max_entries(p->skel->maps.hist, 1);
	bpf_map__set_max_entries(p->skel->maps.rets, 1);
	return load_and_track(p);
}

int pg_probes_attach(struct pg_probes *p, const struct pg_run *run, bool single,
		     const char *preload)
{
	uint64_t t0 = pg_now_ns();
	int err;

	err = open_probes(p, run, !single, preload);
	if (err == -EOPNOTSUPP) {
		pg_info("this kernel has no uprobe_multi links: attaching %zu probes one by one",
			run->nfuncs * 2);
		pg_probes_release(p);
		err = open_probes(p, run, false, preload);
	}
	if (err)
		return err;
	pg_debug("attached %zu functions in %.3f s (%s)", run->nfuncs,
		 (double)(pg_now_ns() - t0) / 1e9,
		 p->nfds ? "uprobe_multi" : "one link per probe");
	return 0;
}

int pg_probes_relink(struct pg_probes *p, const struct pg_run *run, const bool *live)
{
	uint64_t t0 = pg_now_ns();
	int err;

	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	for (size_t i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nfds = p->nlinks = 0;
	err = attach_run(p, run, live);
	pg_debug("probes attached again in %.1f ms", (double)(pg_now_ns() - t0) / 1e6);
	return err;
}

int pg_probes_map_fd(const struct pg_probes *p, enum pg_probes_map m)
{
	if (!p->skel)
		return -EBADF;
	switch (m) {
	case PG_MAP_TRACED:
		return bpf_map__fd(p->skel->maps.traced);
	case PG_MAP_FSTATS:
		return bpf_map__fd(p->skel->maps.fstats);
	case PG_MAP_HIST:
		return bpf_map__fd(p->skel->maps.hist);
	case PG_MAP_COUNTERS:
		return bpf_map__fd(p->skel->maps.counters);
	case PG_MAP_STACKS:
		return bpf_map__fd(p->skel->maps.stacks);
	case PG_MAP_THREADS:
		return bpf_map__fd(p->skel->maps.threads);
	case PG_MAP_RETS:
		return bpf_map__fd(p->skel->maps.rets);
	}
	return -EINVAL;
}

void pg_probes_compensate(struct pg_probes *p, const double *own_ns, const double *desc_ns,
			  const double *trip_ns)
{
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		p->skel->bss->hist_own_ns[k] = (__u64)llround(own_ns[k]);
		p->skel->bss->hist_desc_ns[k] = (__u64)llround(desc_ns[k]);
		p->skel->bss->hist_trip_ns[k] = (__u64)llround(trip_ns[k]);
	}
	p->skel->bss->hist_compensate = true;
}
