// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../bpf/perfgate.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "calibrate.h"
#include "elfsyms.h"
#include "excfix.h"
#include "meta.h"
#include "privs.h"
#include "proctree.h"
#include "record.h"
#include "resolve.h"
#include "sampler.h"
#include "srcline.h"
#include "perfgate.skel.h"

_Static_assert(PG_NSITES == PG_SITE_COUNT, "bpf/perfgate.h and core/run.h disagree on sites");

/* Not in Debian 12's UAPI headers (Linux 6.1): uprobe_multi links arrived in 6.6. */
#define PG_BPF_TRACE_UPROBE_MULTI 48
#define PG_BPF_F_UPROBE_MULTI_RETURN 1U

/* The link_create part of union bpf_attr for uprobe_multi, as in Linux 6.6+. */
struct pg_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
};

int pg_parse_filter(const char *spec, char **binary, char **glob)
{
	const char *c = spec;

	*binary = *glob = NULL;
	for (c = spec; *c; c++) {
		if (*c != ':')
			continue;
		if (c[1] == ':') {	/* C++ scope: skip both */
			c++;
			continue;
		}
		break;
	}
	if (*c == ':') {
		if (c == spec || !c[1])
			return -EINVAL;
		*binary = strndup(spec, (size_t)(c - spec));
		*glob = strdup(c + 1);
	} else {
		if (!*spec)
			return -EINVAL;
		*glob = strdup(spec);
	}
	if (!*glob || (c != spec && *c == ':' && !*binary)) {
		free(*binary);
		free(*glob);
		*binary = *glob = NULL;
		return -ENOMEM;
	}
	return 0;
}

bool pg_can_record(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];
	bool found = false;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found = true;
	fclose(f);
	if (!found)
		return geteuid() == 0;
	/* CAP_SYS_ADMIN (21), or CAP_PERFMON (38) and CAP_BPF (39) */
	return (eff >> 21 & 1) || ((eff >> 38 & 1) && (eff >> 39 & 1));
}

/* ---- function selection ---- */

struct bin {
	char *path;
	struct pg_elf_syms syms;
	bool *chosen;		/* per symbol */
};

struct selection {
	char *exe;		/* the command's executable */
	char *exe_interp;
	size_t nbins;
	struct bin *bins;
};

static void selection_release(struct selection *sel)
{
	for (size_t i = 0; i < sel->nbins; i++) {
		free(sel->bins[i].path);
		free(sel->bins[i].chosen);
		pg_elf_syms_release(&sel->bins[i].syms);
	}
	free(sel->bins);
	free(sel->exe);
	free(sel->exe_interp);
	memset(sel, 0, sizeof(*sel));
}

/* The binary at canonical @path, loaded on first use; NULL on failure (logged). */
static struct bin *get_bin(struct selection *sel, const char *path)
{
	struct bin *b, *nb;

	for (size_t i = 0; i < sel->nbins; i++)
		if (!strcmp(sel->bins[i].path, path))
			return &sel->bins[i];
	nb = realloc(sel->bins, (sel->nbins + 1) * sizeof(*nb));
	if (!nb)
		return NULL;
	sel->bins = nb;
	b = &sel->bins[sel->nbins];
	memset(b, 0, sizeof(*b));
	if (pg_elf_syms_load(path, &b->syms))
		return NULL;
	b->path = strdup(path);
	b->chosen = calloc(b->syms.n, sizeof(bool));
	if (!b->path || !b->chosen) {
		free(b->path);
		free(b->chosen);
		pg_elf_syms_release(&b->syms);
		return NULL;
	}
	sel->nbins++;
	return b;
}

/* Resolve the BINARY part of a filter (NULL: the executable) to a loaded binary. */
static struct bin *filter_bin(struct selection *sel, const char *spec)
{
	struct bin *b;
	char *path;

	if (!spec)
		return get_bin(sel, sel->exe);
	path = pg_resolve_binary(spec, sel->exe, sel->exe_interp);
	if (!path)
		return NULL;
	b = get_bin(sel, path);
	free(path);
	return b;
}

static int apply_filters(struct selection *sel, const struct pg_record_opts *o)
{
	char *spec = NULL, *glob = NULL;
	int err = 0;

	for (size_t i = 0; i < o->nfilters && !err; i++) {
		struct bin *b;
		size_t hits = 0;

		err = pg_parse_filter(o->filters[i], &spec, &glob);
		if (err) {
			pg_err("-f '%s': expected [BINARY:]GLOB", o->filters[i]);
			break;
		}
		b = filter_bin(sel, spec);
		if (!b) {
			err = -ENOENT;
			if (!spec)
				pg_err("-f '%s': %s is not an ELF executable; name the binary to "
				       "trace: -f PATH:GLOB", o->filters[i], sel->exe);
		} else {
			for (size_t k = 0; k < b->syms.n; k++) {
				if (pg_sym_matches(&b->syms.syms[k], glob)) {
					b->chosen[k] = true;
					hits++;
				}
			}
			if (!hits) {
				pg_err("-f '%s': no function in %s matches '%s'", o->filters[i],
				       b->path, glob);
				err = -ENOENT;
			}
		}
		free(spec);
		free(glob);
		spec = glob = NULL;
	}
	return err;
}

static int apply_default(struct selection *sel, const struct pg_record_opts *o)
{
	struct bin *b = get_bin(sel, sel->exe);
	size_t n = 0, total = 0;

	if (!b) {
		pg_err("%s is not an ELF executable with symbols: choose what to trace with "
		       "-f PATH:GLOB", sel->exe);
		return -ENOENT;
	}
	for (size_t k = 0; k < b->syms.n; k++)
		if (!pg_sym_is_runtime(b->syms.syms[k].name))
			total++;
	for (size_t k = 0; k < b->syms.n && n < o->max_funcs; k++) {
		if (pg_sym_is_runtime(b->syms.syms[k].name))
			continue;
		b->chosen[k] = true;
		n++;
	}
	if (total > n)
		pg_warn("%s has %zu functions; tracing the first %zu by address (choose with "
			"-f GLOB, or raise --max-funcs)", pg_basename(sel->exe), total, n);
	else
		pg_info("no -f given: tracing all %zu functions of %s", n, pg_basename(sel->exe));
	return 0;
}

static int apply_excludes(struct selection *sel, const struct pg_record_opts *o)
{
	for (size_t i = 0; i < o->nexcludes; i++) {
		char *spec, *glob;
		char *path = NULL;

		if (pg_parse_filter(o->excludes[i], &spec, &glob)) {
			pg_err("-x '%s': expected [BINARY:]GLOB", o->excludes[i]);
			return -EINVAL;
		}
		if (spec) {
			path = pg_resolve_binary(spec, sel->exe, sel->exe_interp);
			if (!path) {
				free(spec);
				free(glob);
				return -ENOENT;
			}
		}
		for (size_t b = 0; b < sel->nbins; b++) {
			struct bin *bin = &sel->bins[b];

			if (path && strcmp(path, bin->path))
				continue;
			for (size_t k = 0; k < bin->syms.n; k++)
				if (pg_sym_matches(&bin->syms.syms[k], glob))
					bin->chosen[k] = false;
		}
		free(path);
		free(spec);
		free(glob);
	}
	return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Choose in @b the symbols named in @names[0..n) (sorted, unique); set found[i] for each name
 * found. Returns how many symbols were chosen (a name may have several: static functions).
 */
static size_t choose_named(struct bin *b, char **names, size_t n, bool *found)
{
	size_t hits = 0;

	for (size_t k = 0; k < b->syms.n; k++) {
		char *name = b->syms.syms[k].name;
		char **at = bsearch(&name, names, n, sizeof(*names), cmp_str_ptr);

		if (!at)
			continue;
		b->chosen[k] = true;
		found[at - names] = true;
		hits++;
	}
	return hits;
}

/*
 * The binary recorded as @recorded, today: by its base name as -f BIN: finds it (the
 * executable, a library of it), else the recorded path when it still exists. NULL: neither.
 */
static char *functions_of_binary(const struct selection *sel, const char *recorded)
{
	char *path = pg_find_binary(pg_basename(recorded), sel->exe, sel->exe_interp);

	return path ?: realpath(recorded, NULL);
}

/*
 * --functions-of: choose the source run's functions, binary by binary (found by base name, so
 * that the current build's files are traced, not the recorded paths), each by symbol name.
 * Functions and binaries that are gone are warned about; an error only when none is left.
 */
static int apply_functions_of(struct selection *sel, const struct pg_record_opts *o)
{
	const struct pg_run *src = o->functions_of;
	size_t nf = src->nfuncs ? src->nfuncs : 1, chosen = 0, missing = 0, nbins_gone = 0;
	uint32_t *ids = pg_run_ids_by_key(src);
	char **names = calloc(nf, sizeof(*names));
	bool *found = calloc(nf, sizeof(*found));
	const char *example = NULL, *bin_gone = NULL;
	int err = ids && names && found ? 0 : -ENOMEM;

	for (size_t i = 0, j; i < src->nfuncs && !err; i = j) {
		const struct pg_func *first = &src->funcs[ids[i]];
		const char *base = pg_basename(first->binary);
		size_t n = 0;
		struct bin *b = NULL;
		char *path;

		/* this binary's functions: their names, sorted, each once */
		for (j = i; j < src->nfuncs && !strcmp(pg_basename(src->funcs[ids[j]].binary), base);
		     j++)
			if (!n || strcmp(names[n - 1], src->funcs[ids[j]].name))
				names[n++] = src->funcs[ids[j]].name;
		path = functions_of_binary(sel, first->binary);
		if (path)
			b = get_bin(sel, path);
		free(path);
		if (!b) {
			nbins_gone++;
			bin_gone = bin_gone ?: base;
			missing += n;
			continue;
		}
		memset(found, 0, n * sizeof(*found));
		chosen += choose_named(b, names, n, found);
		for (size_t k = 0; k < n; k++) {
			if (found[k])
				continue;
			missing++;
			example = example ?: names[k];
		}
	}
	if (!err && nbins_gone)
		pg_warn("--functions-of %s: %zu of its binaries (%s%s) cannot be found by name among "
			"%s's libraries, nor at the recorded path: their functions are not traced",
			o->functions_of_path, nbins_gone, bin_gone, nbins_gone > 1 ? ", ..." : "",
			pg_basename(sel->exe));
	if (!err && example)
		pg_warn("--functions-of %s: some of its functions are not in the binaries now (%s): "
			"the code changed, and compare will list them as removed", o->functions_of_path,
			example);
	if (!err && !chosen) {
		pg_err("--functions-of %s: none of its functions is in %s's binaries",
		       o->functions_of_path, pg_basename(sel->exe));
		err = -ENOENT;
	}
	if (!err && !o->quiet)
		pg_info("--functions-of %s: tracing %zu functions (%zu of its %zu not found)",
			o->functions_of_path, chosen, missing, src->nfuncs);
	if (err == -ENOMEM)
		pg_err("--functions-of %s: out of memory", o->functions_of_path);
	free(ids);
	free(names);
	free(found);
	return err;
}

/* Turn the chosen symbols into the run's function table: one function per address. */
static int build_functions(struct selection *sel, struct pg_run *run, size_t site_count[])
{
	for (size_t b = 0; b < sel->nbins; b++) {
		struct bin *bin = &sel->bins[b];
		size_t first = run->nfuncs;
		uint64_t last = 0;
		bool have_last = false;

		for (size_t k = 0; k < bin->syms.n; k++) {
			const struct pg_sym *s = &bin->syms.syms[k];
			int err;

			if (!bin->chosen[k] || (have_last && s->addr == last))
				continue;
			err = pg_run_add_func(run, bin->path, s->name, s->display, s->addr,
					      s->offset, s->site, s->endbr, NULL);
			if (err)
				return err;
			site_count[s->site]++;
			last = s->addr;
			have_last = true;
		}
		if (pg_srcline_fill(run, first, bin->path))
			return -ENOMEM;
	}
	if (!run->nfuncs) {
		pg_err("no function left to trace (every match was excluded)");
		return -ENOENT;
	}
	return 0;
}

/* ---- attaching ---- */

struct probes {
	struct perfgate_bpf *skel;
	struct bpf_link *fork_link, *exit_link;
	size_t nfds;
	int *fds;		/* uprobe_multi link fds */
	size_t nlinks;
	struct bpf_link **links;	/* per-probe links (fallback) */
	bool multi;		/* uprobe_multi links, not one link per probe */
	struct pg_sampler *sampler;	/* sampled profile (runner/sampler.h), NULL if off */
	struct pg_excfix fix;	/* the C++ exception fix (runner/excfix.h), zeroed if off */
};

static void probes_release(struct probes *p)
{
	for (size_t i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	for (size_t i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	free(p->fds);
	free(p->links);
	bpf_link__destroy(p->fork_link);
	bpf_link__destroy(p->exit_link);
	pg_sampler_free(p->sampler);
	pg_excfix_release(&p->fix);
	perfgate_bpf__destroy(p->skel);
	memset(p, 0, sizeof(*p));
}

static int link_uprobe_multi(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, size_t n, bool ret)
{
	union bpf_attr attr;
	struct pg_link_create_uprobe_multi *lc = (void *)&attr.link_create;
	int fd;

	_Static_assert(sizeof(*lc) <= sizeof(attr), "bpf_attr too small");
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

static int push_fd(struct probes *p, int fd)
{
	int *n = realloc(p->fds, (p->nfds + 1) * sizeof(*n));

	if (!n) {
		close(fd);
		return -ENOMEM;
	}
	p->fds = n;
	p->fds[p->nfds++] = fd;
	return 0;
}

static int push_link(struct probes *p, struct bpf_link *l)
{
	struct bpf_link **n = realloc(p->links, (p->nlinks + 1) * sizeof(*n));

	if (!n) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->links = n;
	p->links[p->nlinks++] = l;
	return 0;
}

/*
 * Attach entry and return probes at @n file offsets of @path, with their cookies: one
 * uprobe_multi link each, or one link per probe when !p->multi. -EOPNOTSUPP when the kernel
 * lacks uprobe_multi (only reported for the first link, so that the caller can fall back).
 */
static int attach_set(struct probes *p, const char *path, const uint64_t *off,
		      const uint64_t *cookie, size_t n)
{
	for (int ret = 0; ret < 2; ret++) {
		struct bpf_program *prog = ret ? p->skel->progs.pg_return :
						 p->skel->progs.pg_entry;

		if (p->multi) {
			int fd = link_uprobe_multi(bpf_program__fd(prog), path, off, cookie, n, ret);

			if (fd < 0 && !p->nfds && (fd == -EINVAL || fd == -EOPNOTSUPP ||
						   fd == -ENOSYS || fd == -EBADF))
				return -EOPNOTSUPP;
			if (fd < 0) {
				pg_err("cannot attach %zu probes to %s: %s", n, path, strerror(-fd));
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

static uint64_t probe_cookie(enum pg_site site, uint32_t id)
{
	return (uint64_t)site << PG_COOKIE_SITE_SHIFT | id;
}

/* The run's functions, binary by binary (they are grouped by binary). */
static int attach_run(struct probes *p, const struct pg_run *run)
{
	size_t i = 0;

	while (i < run->nfuncs) {
		const char *path = run->funcs[i].binary;
		size_t j = i, n;
		uint64_t *off, *cookie;
		int err = 0;

		while (j < run->nfuncs && !strcmp(run->funcs[j].binary, path))
			j++;
		n = j - i;
		off = calloc(n, sizeof(*off));
		cookie = calloc(n, sizeof(*cookie));
		if (!off || !cookie)
			err = -ENOMEM;
		for (size_t k = 0; !err && k < n; k++) {
			off[k] = run->funcs[i + k].offset;
			cookie[k] = probe_cookie(run->funcs[i + k].site, run->funcs[i + k].id);
		}
		if (!err)
			err = attach_set(p, path, off, cookie, n);
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

/* Does any traced binary use C++ exceptions (runner/excfix.h)? Unreadable ones count as yes. */
static bool traces_cxx(const struct pg_run *run)
{
	const char *last = NULL;

	for (size_t i = 0; i < run->nfuncs; i++) {
		const char *bin = run->funcs[i].binary;

		if (last && !strcmp(last, bin))
			continue;
		last = bin;
		if (pg_excfix_binary_wants(bin)) {
			pg_debug("%s may unwind C++ exceptions: the exception fix is on", bin);
			return true;
		}
	}
	pg_debug("no traced binary is C++: the exception fix is off");
	return false;
}

/* Load the opened object and attach its fork and exit tracepoints. 0 or -errno (logged). */
static int load_and_track(struct probes *p)
{
	int err = perfgate_bpf__load(p->skel);

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
	return 0;
}

/* Load and attach; with @preload (the library's path), publish the return addresses too. */
static int open_probes(struct probes *p, const struct pg_run *run, bool multi,
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
	return attach_run(p, run);
}

/*
 * The BPF object with only its process tracking attached (the `traced` map, filled by the
 * fork and exit tracepoints): what a sampled run without probes needs.
 */
static int open_bare(struct probes *p)
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

static int attach_probes(struct probes *p, const struct pg_run *run, bool single,
			 const char *preload)
{
	uint64_t t0 = pg_now_ns();
	int err;

	err = open_probes(p, run, !single, preload);
	if (err == -EOPNOTSUPP) {
		pg_info("this kernel has no uprobe_multi links: attaching %zu probes one by one",
			run->nfuncs * 2);
		probes_release(p);
		err = open_probes(p, run, false, preload);
	}
	if (err)
		return err;
	pg_debug("attached %zu functions in %.3f s (%s)", run->nfuncs,
		 (double)(pg_now_ns() - t0) / 1e9,
		 p->nfds ? "uprobe_multi" : "one link per probe");
	return 0;
}

/* ---- maps ---- */

static int clear_hash(int fd, size_t keysz)
{
	size_t n = 0, cap = 1024;
	char *keys = malloc(cap * keysz), *prev = NULL;
	int err = 0;

	if (!keys)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, keys + n * keysz)) {
		prev = keys + n * keysz;
		if (++n == cap) {
			char *nk = realloc(keys, cap * 2 * keysz);

			if (!nk) {
				err = -ENOMEM;
				break;
			}
			keys = nk;
			cap *= 2;
			prev = keys + (n - 1) * keysz;
		}
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * keysz);
	free(keys);
	return err;
}

static int reset_maps(struct probes *p, size_t nfuncs, int ncpu)
{
	struct pg_bpf_fstat *zero = calloc((size_t)ncpu, sizeof(*zero));
	__u64 *zc = calloc((size_t)ncpu, sizeof(*zc));
	int err = 0;

	if (!zero || !zc) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (__u32 i = 0; i < nfuncs; i++)
		bpf_map_update_elem(bpf_map__fd(p->skel->maps.fstats), &i, zero, BPF_ANY);
	for (__u32 i = 0; i < PG_CNT_MAX; i++)
		bpf_map_update_elem(bpf_map__fd(p->skel->maps.counters), &i, zc, BPF_ANY);
	err = clear_hash(bpf_map__fd(p->skel->maps.hist), sizeof(struct pg_bpf_hkey));
	if (!err)
		err = clear_hash(bpf_map__fd(p->skel->maps.stacks), sizeof(__u32));
	if (!err)
		err = clear_hash(bpf_map__fd(p->skel->maps.traced), sizeof(__u32));
cleanup:
	free(zero);
	free(zc);
	return err;
}

/*
 * Add up the per-CPU totals of function @id in the fstats map @fd into @s (zeroed by the
 * caller; its histogram is left alone), using @v (ncpu entries) as the buffer. @s stays as it
 * is when the lookup fails: an id outside the map, which reads as "not called".
 */
static void read_fstat(int fd, __u32 id, int ncpu, struct pg_bpf_fstat *v, struct pg_fstat *s)
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
		}
		s->probe_ns += v[c].probe_ns;
		s->desc_probe_ns += v[c].desc_probe_ns;
		s->kids_probe_ns += v[c].kids_probe_ns;
	}
}

/*
 * Add the buckets of functions first..first + n - 1 in the histogram map @fd to s[id -
 * first].hist (one counter per bucket for all CPUs). 0 or -ENOMEM.
 */
static int read_hists(int fd, __u32 first, size_t n, struct pg_fstat *s)
{
	struct pg_bpf_hkey key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		__u64 cnt = 0;

		prev = &key;
		if (key.func < first || key.func - first >= n || bpf_map_lookup_elem(fd, &key, &cnt))
			continue;
		if (cnt && pg_hist_add(&s[key.func - first].hist, key.bucket, cnt))
			return -ENOMEM;
	}
	return 0;
}

/* Read this repetition's maps into @rep; add the event counters to @counters. */
static int read_maps(struct probes *p, size_t nfuncs, int ncpu, struct pg_rep *rep,
		     __u64 counters[PG_CNT_MAX])
{
	int fst = bpf_map__fd(p->skel->maps.fstats), hfd = bpf_map__fd(p->skel->maps.hist);
	struct pg_bpf_fstat *v = calloc((size_t)ncpu, sizeof(*v));
	struct pg_fstat *tmp = calloc(nfuncs, sizeof(*tmp));
	__u64 *cv = calloc((size_t)ncpu, sizeof(*cv));
	int err = 0;

	if (!v || !tmp || !cv) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (__u32 i = 0; i < nfuncs; i++)
		read_fstat(fst, i, ncpu, v, &tmp[i]);
	err = read_hists(hfd, 0, nfuncs, tmp);
	if (err)
		goto cleanup;
	for (__u32 i = 0; i < PG_CNT_MAX; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.counters), &i, cv))
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

/* ---- calibration ---- */

/*
 * Calibration target @id as the maps hold it: the median of its latency histogram and the mean
 * run time of its BPF programs per call (pg_fstat.probe_ns). -ENODATA if it was not called.
 */
static int read_target(struct probes *p, __u32 id, int ncpu, double *median, double *bpf_ns)
{
	struct pg_bpf_fstat *v = calloc((size_t)ncpu, sizeof(*v));
	struct pg_fstat s = { 0 };
	int err = -ENOMEM;

	if (v) {
		read_fstat(bpf_map__fd(p->skel->maps.fstats), id, ncpu, v, &s);
		err = read_hists(bpf_map__fd(p->skel->maps.hist), id, 1, &s);
	}
	*median = pg_hist_quantile(&s.hist, 0.5);
	*bpf_ns = s.calls ? (double)s.probe_ns / (double)s.calls : NAN;
	if (!err && (isnan(*median) || isnan(*bpf_ns)))
		err = -ENODATA;
	pg_hist_release(&s.hist);
	free(v);
	return err;
}

/* @c's figures at debug level, after @what. */
static void debug_calib(const char *what, const struct pg_calib *c)
{
	pg_debug("%s in/out(measured) ns: nop5 %.0f/%.0f(%.0f), emulated %.0f/%.0f(%.0f), "
		 "sstep %.0f/%.0f(%.0f)", what,
		 c->in_ns[PG_SITE_NOP5], c->out_ns[PG_SITE_NOP5], c->measured_ns[PG_SITE_NOP5],
		 c->in_ns[PG_SITE_EMULATED], c->out_ns[PG_SITE_EMULATED],
		 c->measured_ns[PG_SITE_EMULATED], c->in_ns[PG_SITE_SSTEP], c->out_ns[PG_SITE_SSTEP],
		 c->measured_ns[PG_SITE_SSTEP]);
}

/* One calibration with the attached targets @t: fork the child, time, read the maps. */
static int calibrate_once(struct probes *p, const struct pg_run *run, int ncpu,
			  const struct pg_calib_targets *t, struct pg_calib *out)
{
	struct pg_calib_loops loops;
	double median[PG_CALIB_NTARGETS], bpf_ns[PG_CALIB_NTARGETS];
	int go, res, status = 0, err = 0;
	__u8 one = 1;
	ssize_t r;
	pid_t pid;
	__u32 key;

	pid = pg_calib_spawn(&go, &res);
	if (pid < 0)
		return pid;
	key = (__u32)pid;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.traced), &key, &one, BPF_ANY) ||
	    write(go, "g", 1) != 1)
		err = -errno;
	close(go);
	r = read(res, &loops, sizeof(loops));
	close(res);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && (r != (ssize_t)sizeof(loops) || !WIFEXITED(status) || WEXITSTATUS(status)))
		err = -EIO;
	for (int k = 0; k < PG_CALIB_NTARGETS && !err; k++)
		err = read_target(p, (__u32)(run->nfuncs + (size_t)k), ncpu, &median[k], &bpf_ns[k]);
	if (!err)
		pg_calib_compute(t, &loops, median, bpf_ns, out);
	return err;
}

#define CALIB_TRIES 3

/*
 * Measure what a traced call costs on each kind of probe site, with the same BPF program and
 * maps as the benchmark (runner/calibrate.h). The targets take function ids nfuncs + k. A
 * calibration the machine disturbed (pg_calib_plausible()) is measured again, up to
 * CALIB_TRIES times in all; if all were disturbed, the least disturbed one stands.
 */
static int calibrate(struct probes *p, const struct pg_run *run, int ncpu, struct pg_calib *out)
{
	struct pg_calib_targets t;
	struct pg_calib best = { 0 };
	uint64_t cookie[PG_CALIB_NTARGETS];
	int err;

	err = pg_calib_find(&t);
	if (err)
		return err;
	for (int k = 0; k < PG_CALIB_NTARGETS; k++)
		cookie[k] = probe_cookie(t.site[k], (uint32_t)(run->nfuncs + (size_t)k));
	err = attach_set(p, t.path, t.offset, cookie, PG_CALIB_NTARGETS);
	for (int try = 1; !err; try++) {
		char what[48];

		err = calibrate_once(p, run, ncpu, &t, out);
		if (err && best.valid) {	/* keep the disturbed one we have */
			pg_warn("probe calibration: try %d failed (%s); keeping a disturbed try "
				"before it: compensated latencies may be off by more than usual",
				try, strerror(-err));
			*out = best;
			err = 0;
			break;
		}
		if (err || pg_calib_plausible(out))
			break;
		snprintf(what, sizeof(what), "calibration try %d was disturbed:", try);
		debug_calib(what, out);
		/* of the disturbed tries, the least disturbed (pg_calib_excess()) */
		if (!best.valid || pg_calib_excess(out) <= pg_calib_excess(&best))
			best = *out;
		if (try == CALIB_TRIES) {
			*out = best;
			pg_warn("probe calibration: the machine disturbed all %d tries (a probe "
				"costing nothing inside a call, less than its timed part, or many "
				"times more); "
				"compensated latencies may be off by more than usual", CALIB_TRIES);
			break;
		}
		/* the targets' counts and histograms start again */
		err = reset_maps(p, run->nfuncs + PG_CALIB_NTARGETS, ncpu);
	}
	if (err)	/* not an earlier try's figures: uncompensated */
		memset(out, 0, sizeof(*out));
	pg_calib_targets_release(&t);
	return err;
}

/*
 * From here on the BPF programs put compensated durations into the histograms (hist_dur() in
 * bpf/perfgate.bpf.c), with the formula of pg_fstat_comp_total() for each call, except its
 * scale (pg_calib_scale()): percentiles for callers too. The calibration itself ran with raw
 * histograms.
 */
static void compensate_hists(struct probes *p, struct pg_run *run)
{
	const struct pg_calib *c = &run->calib;

	if (!c->valid || !c->measured)
		return;
	for (int k = 0; k < PG_SITE_COUNT; k++) {
		p->skel->bss->hist_own_ns[k] = (__u64)llround(c->in_ns[k]);
		p->skel->bss->hist_desc_ns[k] = (__u64)llround(pg_calib_desc_ns(c, k));
	}
	p->skel->bss->hist_compensate = true;
	run->hist_compensated = true;
}

static void report_calibration(int err, const struct pg_calib *c, bool quiet)
{
	if (err) {
		pg_warn("probe calibration failed (%s): latencies are recorded uncompensated",
			strerror(-err));
		return;
	}
	if (!quiet)
		pg_info("a traced call costs %.2f us on a nop5 site, %.2f us emulated, %.2f us "
			"single-stepped (calibrated; compensated in reports)",
			(c->in_ns[PG_SITE_NOP5] + c->out_ns[PG_SITE_NOP5]) / 1e3,
			(c->in_ns[PG_SITE_EMULATED] + c->out_ns[PG_SITE_EMULATED]) / 1e3,
			(c->in_ns[PG_SITE_SSTEP] + c->out_ns[PG_SITE_SSTEP]) / 1e3);
	debug_calib("calibration", c);
}

/*
 * After the first repetition: when the probes' estimated cost (calls x calibrated cost per
 * site) is more than the benchmark's own time, tracing more than doubles the run. Say so and
 * name the functions that cost most.
 */
static void warn_overhead(const struct pg_run *run, const struct pg_rep *rep)
{
	const struct pg_fstat *top[3] = { NULL };
	double cost[3] = { 0 }, total = 0;
	char names[3][96] = { "", "", "" };

	if (!run->calib.valid || !rep->wall_ns)
		return;
	for (size_t i = 0; i < rep->nstats; i++) {
		const struct pg_fstat *s = &rep->stats[i];
		double c = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s);

		total += c;
		for (int k = 0; k < 3; k++) {
			if (c <= cost[k])
				continue;
			memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof(top[0]));
			memmove(&cost[k + 1], &cost[k], (size_t)(2 - k) * sizeof(cost[0]));
			top[k] = s;
			cost[k] = c;
			break;
		}
	}
	if (total <= 0.5 * (double)rep->wall_ns)
		return;
	for (int k = 0; k < 3 && top[k]; k++)
		snprintf(names[k], sizeof(names[k]), "%s%.60s (%llu calls)", k ? ", " : "",
			 run->funcs[top[k]->func].display, (unsigned long long)top[k]->calls);
	pg_warn("tracing more than doubles the run time: the probes cost ~%.0f ms of the first "
		"repetition's %.0f ms, most in %s%s%s; exclude such functions with -x, or trace "
		"longer-running ones", total / 1e6, (double)rep->wall_ns / 1e6, names[0],
		names[1], names[2]);
}

/* ---- running the command ---- */

/* How every repetition is started and stopped; pg_record() fills it once. */
struct launch {
	char **argv;
	char *preload;		/* the C++ exception fix's library, NULL if off */
	bool preload_noted;	/* said that the benchmark's user cannot read it */
	struct pg_creds creds;	/* whom the benchmark runs as */
	struct pg_signals sig;	/* the stop signals, blocked while recording */
	uint64_t timeout_ns;	/* per repetition, 0 = none */
	int stop_signal;	/* the stop signal that arrived, or 0 */
	bool timed_out;		/* the last repetition ran past the timeout */
};

static int stopped_by(int sig)
{
	pg_err("stopped by SIG%s: the benchmark's processes were ended and the probes detached; "
	       "no run file written", sigabbrev_np(sig));
	return -EINTR;
}

/*
 * Stop the tree of process group @pgid when a stop signal came or the repetition started at
 * @t0 ran past the timeout: SIGTERM (and SIGCONT, for stopped processes), then SIGKILL once
 * PG_KILL_GRACE_MS have passed, again at every step for what was forked meanwhile. Returns how
 * long the next wait may take, in ms.
 */
static int stop_step(struct launch *l, pid_t pgid, uint64_t t0, uint64_t *kill_at)
{
	uint64_t now = pg_now_ns();

	if (!*kill_at && (l->stop_signal || (l->timeout_ns && now - t0 >= l->timeout_ns))) {
		l->timed_out = !l->stop_signal;
		pg_tree_signal(pgid, SIGTERM);
		pg_tree_signal(pgid, SIGCONT);
		*kill_at = now + PG_KILL_GRACE_MS * 1000000ULL;
	}
	if (*kill_at) {
		if (now >= *kill_at)
			pg_tree_signal(pgid, SIGKILL);
		return 20;
	}
	if (l->timeout_ns && t0 + l->timeout_ns - now < 100000000ULL)
		return (int)((t0 + l->timeout_ns - now) / 1000000) + 1;
	return 100;
}

/* What the forked benchmark child reports through its pipe before it execs. */
enum child_msg {
	CHILD_EXEC_FAILED,	/* and the errno */
	CHILD_CREDS_FAILED,	/* switching user failed, and the errno */
	CHILD_NO_PRELOAD,	/* a note: its user cannot read the preload library */
};

/*
 * Start the command as a fresh process group whose pid is in the traced set before it execs
 * (as the user of l->creds, with the C++ exception fix when it is on), and wait for its whole
 * process tree; stop it on a stop signal or the timeout. Fills wall time and exit status of
 * @rep.
 */
static int run_once(struct probes *p, struct launch *l, struct pg_rep *rep)
{
	int go, fail, status = 0, msg[2] = { 0, 0 }, sig;
	char **argv = l->argv;
	uint64_t t0, kill_at = 0;
	__u8 one = 1;
	pid_t pid, w;
	char c = 'g';
	__u32 key;
	ssize_t r;

	l->timed_out = false;

	pid = pg_fork_gated(&go, &fail);
	if (pid < 0)
		return pid;
	if (!pid) {
		setpgid(0, 0);	/* a group of its own: perfgate can stop the whole tree */
		pg_signals_child(&l->sig);
		/* wait until our pid is traced; EOF means perfgate died */
		if (read(go, &c, 1) != 1)
			_exit(127);
		/* msg: enum child_msg and errno */
		msg[1] = -pg_creds_apply(&l->creds);
		if (msg[1]) {
			msg[0] = CHILD_CREDS_FAILED;
		} else {
			bool unreadable;
			char **envp = pg_excfix_child(&p->fix, &unreadable);
			int note[2] = { CHILD_NO_PRELOAD, 0 };

			if (unreadable && write(fail, note, sizeof(note)) < 0)
				_exit(127);
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* cleared by setuid: set after */
			execvpe(argv[0], argv, envp);
			msg[0] = CHILD_EXEC_FAILED;
			msg[1] = errno;
		}
		if (write(fail, msg, sizeof(msg)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	key = (__u32)pid;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.traced), &key, &one, BPF_ANY)) {
		int err = -errno;

		pg_err("cannot register the benchmark's pid: %s", strerror(errno));
		close(go);	/* the child reads EOF and exits */
		close(fail);
		waitpid(pid, NULL, 0);
		return err;
	}
	if (p->sampler && pg_sampler_start(p->sampler, pid)) {
		close(go);
		close(fail);
		waitpid(pid, NULL, 0);
		return -EIO;
	}
	pg_tty_give(pid);
	t0 = pg_now_ns();
	if (write(go, &c, 1) != 1)
		pg_debug("write to the start pipe: %s", strerror(errno));
	close(go);
	while ((r = read(fail, msg, sizeof(msg))) == (ssize_t)sizeof(msg) &&
	       msg[0] == CHILD_NO_PRELOAD) {
		if (!l->preload_noted)
			pg_debug("%s cannot read %s: the benchmark runs without the C++ exception "
				 "fix", l->creds.change ? l->creds.name : "its user", p->fix.lib);
		l->preload_noted = true;
	}
	close(fail);
	/* the root, then every orphan it left behind (we are their subreaper) */
	for (;;) {
		int st;

		w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			if (w == pid)
				status = st;
			continue;
		}
		if (w < 0 && errno != EINTR)
			break;	/* ECHILD: the whole tree has exited */
		/* nothing to reap: stop the tree if asked to, then wait one bounded step */
		if (p->sampler) {	/* sampling: take samples in while the tree runs */
			pg_sampler_poll(p->sampler, stop_step(l, pid, t0, &kill_at));
			sig = pg_signals_wait(0);
		} else {
			sig = pg_signals_wait(stop_step(l, pid, t0, &kill_at));
		}
		if (sig && !l->stop_signal)
			l->stop_signal = sig;
	}
	rep->wall_ns = pg_now_ns() - t0;
	pg_tty_take_back();
	if (l->stop_signal)
		return stopped_by(l->stop_signal);
	if (r == (ssize_t)sizeof(msg)) {
		if (msg[0] == CHILD_CREDS_FAILED)
			pg_err("cannot switch to user %s to run %s: %s", l->creds.name, argv[0],
			       strerror(msg[1]));
		else
			pg_err("cannot run %s%s%s: %s", argv[0], l->creds.change ? " as " : "",
			       l->creds.change ? l->creds.name : "", strerror(msg[1]));
		return -msg[1];
	}
	if (WIFEXITED(status)) {
		rep->exit_code = WEXITSTATUS(status);
		rep->signal = 0;
	} else if (WIFSIGNALED(status)) {
		rep->exit_code = -1;
		rep->signal = WTERMSIG(status);
	}
	return 0;
}

/*
 * The C++ exception fix for the loaded probes, once they are calibrated and before the
 * benchmark's first run. On failure it stays off, which the SIGABRT hint says.
 */
static void excfix_open(struct probes *p, const struct launch *l)
{
	if (l->preload)
		pg_excfix_open(&p->fix, l->preload, bpf_map__fd(p->skel->maps.rets));
}

/* Why a benchmark may have aborted: a C++ exception through a traced function. */
static const char *abort_hint(const struct pg_rep *rep, const struct pg_excfix *fix)
{
	if (rep->signal != SIGABRT)
		return "";
	if (fix->envp)
		return " (if a C++ exception thrown through a traced function aborted it: the "
		       "exception fix does not reach a statically linked libstdc++ or libgcc, a "
		       "static executable, or frames entered before a fork; see docs/recording.md, "
		       "and exclude such functions with -x)";
	return " (a C++ exception thrown through a traced function aborts it without the "
	       "exception fix, which is off: no traced binary is C++ (--exception-fix turns it "
	       "on), --no-exception-fix, or libperfgate-preload.so not found; perfgate -v says "
	       "which: see docs/recording.md, and exclude such functions with -x)";
}

static void progress(const struct pg_record_opts *o, uint32_t i, const struct pg_rep *rep,
		     size_t nfuncs_called)
{
	if (o->quiet)
		return;
	if (rep->signal)
		pg_info("repetition %u/%u: %.3f s, killed by signal %d (%s)", i + 1,
			o->repetitions, (double)rep->wall_ns / 1e9, rep->signal,
			strsignal(rep->signal));
	else
		pg_info("repetition %u/%u: %.3f s, exit %d, %zu functions called", i + 1,
			o->repetitions, (double)rep->wall_ns / 1e9, rep->exit_code, nfuncs_called);
}

static int copy_strv(char ***dst, size_t *dn, char *const *src, size_t n)
{
	*dst = calloc(n ? n : 1, sizeof(char *));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		(*dst)[i] = strdup(src[i]);
		if (!(*dst)[i])
			return -ENOMEM;
		*dn = i + 1;
	}
	return 0;
}

/*
 * How the functions were chosen, into @m: the options, or with --functions-of the source
 * run's options and its file name.
 */
static int record_selection(const struct pg_record_opts *o, struct pg_meta *m)
{
	const struct pg_meta *src = o->functions_of ? &o->functions_of->meta : NULL;
	int err;

	if (src) {
		m->budget_pct = src->budget_pct;
		m->functions_of = strdup(o->functions_of_path);
		if (!m->functions_of)
			return -ENOMEM;
	} else {
		m->budget_pct = o->budget_pct;
	}
	err = copy_strv(&m->filters, &m->nfilters, src ? src->filters : o->filters,
			src ? src->nfilters : o->nfilters);
	return err ?: copy_strv(&m->excludes, &m->nexcludes, src ? src->excludes : o->excludes,
				src ? src->nexcludes : o->nexcludes);
}

static void explain_sites(const size_t site[])
{
	if (site[PG_SITE_SSTEP])
		pg_warn("%zu function%s start%s with an instruction the kernel must single-step: "
			"a traced call costs ~10x more there; build with clang "
			"-fpatchable-function-entry=5 or gcc -pg -mfentry -mnop-mcount -fno-pie "
			"-no-pie for cheap probes", site[PG_SITE_SSTEP],
			site[PG_SITE_SSTEP] == 1 ? "" : "s", site[PG_SITE_SSTEP] == 1 ? "s" : "");
	pg_debug("probe sites: %zu nop5, %zu emulated, %zu single-stepped", site[PG_SITE_NOP5],
		 site[PG_SITE_EMULATED], site[PG_SITE_SSTEP]);
}

static void explain_counters(const __u64 c[PG_CNT_MAX])
{
	if (c[PG_CNT_OVERFLOW])
		pg_warn("%llu calls nested deeper than %d traced frames (the kernel's limit of "
			"return probes per thread) were not timed: they are not in the results",
			(unsigned long long)c[PG_CNT_OVERFLOW], PG_MAX_DEPTH);
	if (c[PG_CNT_NO_STACK])
		pg_warn("%llu calls were not timed: too many threads at once",
			(unsigned long long)c[PG_CNT_NO_STACK]);
	if (c[PG_CNT_UNWOUND])
		pg_info("%llu traced calls never returned (longjmp, exceptions or exit): not "
			"counted", (unsigned long long)c[PG_CNT_UNWOUND]);
	if (c[PG_CNT_TAIL])
		pg_warn("%llu traced calls were tail calls (jmp) of traced callers: each caller's "
			"compensated time comes out low by about one probe return per such call "
			"(~0.7-2 us; docs/measurement.md); -fno-optimize-sibling-calls avoids it",
			(unsigned long long)c[PG_CNT_TAIL]);
	if (c[PG_CNT_UNMATCHED])
		pg_debug("%llu returns without a traced entry",
			 (unsigned long long)c[PG_CNT_UNMATCHED]);
}

/* --budget: the sampled first pass, and how much longer than it the pilot may run */
#define PILOT_SAMPLE_HZ 999
#define PILOT_MIN_SAMPLES 50
#define PILOT_MAX_FACTOR 10
#define PILOT_MIN_NS 1000000000ULL	/* but never before it ran this much longer */

static int cmp_cost_desc(const void *a, const void *b, void *arg)
{
	const double *cost = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (cost[x] < cost[y]) - (cost[x] > cost[y]);
}

/* Function names for a message, "a, b, c": the first ~170 characters' worth, and how many. */
struct names {
	char s[256];
	size_t len;
	int n;
};

static void names_add(struct names *l, const char *name)
{
	if (l->len < sizeof(l->s) - 80)
		l->len += (size_t)snprintf(l->s + l->len, sizeof(l->s) - l->len, "%s%.60s",
					   l->n ? ", " : "", name);
	l->n++;
}

/* ", ..." when names_add() left names out */
static const char *names_more(const struct names *l)
{
	return l->len >= sizeof(l->s) - 80 ? ", ..." : "";
}

/*
 * A stopped @pilot may not have reached the phases that call some functions: name those none
 * of whose calls returned (calls count when they return, so main and its like are among them).
 */
static void warn_unreached(const struct pg_run *run, const struct pg_rep *pilot)
{
	struct names gone = { 0 };

	for (uint32_t i = 0; i < run->nfuncs; i++)
		if (!pg_rep_find(pilot, i))
			names_add(&gone, run->funcs[i].display);
	if (gone.n)
		pg_warn("--budget: the pilot was stopped before a call of %d of the %zu functions "
			"it traced had returned (%s%s; those still running then, such as main, are "
			"among them): their cost is unknown, and they stay traced", gone.n,
			run->nfuncs, gone.s, names_more(&gone));
}

/*
 * --budget: decide from @pilot (one repetition with every selected function) which functions
 * to keep so that the probes' estimated cost stays under budget_pct of the benchmark's own
 * time (wall time minus that cost). The costliest go first. Sets keep[] (run->nfuncs
 * entries); returns how many functions are dropped, or -errno. With @cut (the pilot was
 * stopped), also names the functions none of whose calls returned.
 */
static int budget_choose(const struct pg_record_opts *o, const struct pg_run *run,
			 const struct pg_rep *pilot, uint64_t sampled_wall_ns, bool cut, bool *keep)
{
	double *cost = calloc(run->nfuncs, sizeof(*cost)), total = 0, own, allowed, before;
	uint32_t *order = calloc(run->nfuncs, sizeof(*order));
	struct names dropped = { 0 };

	if (!cost || !order) {
		free(cost);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pilot->nstats; i++) {
		const struct pg_fstat *s = &pilot->stats[i];

		cost[s->func] = pg_fstat_probe_cost(&run->calib, &run->funcs[s->func], s);
		total += cost[s->func];
	}
	/*
	 * The benchmark's own time: measured, by the sampled first pass, when the pilot ran to
	 * its end; else the pilot's wall time less the estimated probe cost, a difference that
	 * any error of the calibration swamps when the probes dominate (then it errs on dropping
	 * more).
	 */
	if (sampled_wall_ns && !cut)
		own = (double)sampled_wall_ns;
	else
		own = (double)pilot->wall_ns - total;
	if (own < 0.01 * (double)pilot->wall_ns)
		own = 0.01 * (double)pilot->wall_ns;
	allowed = o->budget_pct / 100 * own;
	before = total;
	if (cut && !o->quiet)
		pg_info("--budget: the pilot ran past %.1f s (%dx the sampled run's %.2f s, or 1 s "
			"more) and was stopped: the choice is made from the part that ran",
			(double)pilot->wall_ns / 1e9, PILOT_MAX_FACTOR,
			(double)sampled_wall_ns / 1e9);
	if (cut)
		warn_unreached(run, pilot);
	for (uint32_t i = 0; i < run->nfuncs; i++) {
		keep[i] = true;
		order[i] = i;
	}
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_cost_desc, cost);
	for (size_t k = 0; k < run->nfuncs && total > allowed && cost[order[k]] > 0; k++) {
		keep[order[k]] = false;
		total -= cost[order[k]];
		names_add(&dropped, run->funcs[order[k]].display);
	}
	if (!o->quiet && dropped.n)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the benchmark's "
			"own time; without %s%s it would be ~%.1f%%", o->budget_pct,
			100 * before / own, dropped.s, names_more(&dropped),
			total > 0 ? 100 * total / own : 0.0);
	else if (!o->quiet)
		pg_info("--budget %g%%: in the pilot run the probes cost ~%.1f%% of the benchmark's "
			"own time: every function stays", o->budget_pct, 100 * before / own);
	free(cost);
	free(order);
	return dropped.n;
}

/*
 * Did --budget's unrecorded run @what (the sampled first pass, the pilot) fail, without
 * --allow-failure? One message and -ETIME (the user's --timeout ended it) or -ECHILD; else 0.
 */
static int budget_run_failed(const struct pg_record_opts *o, const char *what,
			     const struct pg_rep *rep, bool timed_out)
{
	if (o->allow_failure)
		return 0;
	if (timed_out) {
		pg_err("the --budget %s ran past --timeout %g s: its processes were ended; no run "
		       "file written (--allow-failure goes on)", what,
		       (double)o->timeout_ms / 1000);
		return -ETIME;
	}
	if (rep->signal || rep->exit_code) {
		pg_err("the --budget %s %s %d; no run file written", what,
		       rep->signal ? "was killed by signal" : "exited with status",
		       rep->signal ? rep->signal : rep->exit_code);
		return -ECHILD;
	}
	return 0;
}

/*
 * Run one unrecorded pilot repetition, choose the functions that fit the budget, and when
 * some must go, detach and attach again with the rest. Before capabilities are dropped. With
 * @sampled_wall_ns, the wall time of the sampled first pass (no probes), the pilot is stopped
 * once it runs PILOT_MAX_FACTOR times as long, and at least PILOT_MIN_NS longer (unless the
 * user's --timeout comes first): the probes then cost PILOT_MAX_FACTOR - 1 times the work
 * done at least, and a hot function whose probes cost 100 times its work does not keep the
 * pilot going for 100 runs' time.
 */
static int budget_pilot(const struct pg_record_opts *o, struct probes *p, struct launch *l,
			struct pg_run *run, int ncpu, uint64_t sampled_wall_ns)
{
	struct pg_rep pilot = { .exit_code = -1 };
	__u64 counters[PG_CNT_MAX] = { 0 };
	uint64_t user_timeout = l->timeout_ns, bound = PILOT_MAX_FACTOR * sampled_wall_ns;
	bool *keep = NULL, cut, timed_out;
	size_t before = run->nfuncs;
	int err, ndrop;

	if (!run->calib.valid) {
		pg_warn("--budget needs the probe calibration, which failed: tracing all %zu "
			"functions left", run->nfuncs);
		return 0;
	}
	if (bound && bound < sampled_wall_ns + PILOT_MIN_NS)
		bound = sampled_wall_ns + PILOT_MIN_NS;
	if (bound && (!user_timeout || bound < user_timeout))
		l->timeout_ns = bound;
	else
		bound = 0;
	err = reset_maps(p, run->nfuncs, ncpu);
	err = err ?: run_once(p, l, &pilot);
	cut = bound && l->timed_out;
	timed_out = !bound && l->timed_out;	/* the user's --timeout */
	l->timeout_ns = user_timeout;
	l->timed_out = false;
	err = err ?: read_maps(p, run->nfuncs, ncpu, &pilot, counters);
	if (!err && !cut)	/* stopped by us, the pilot did not fail */
		err = budget_run_failed(o, "pilot run", &pilot, timed_out);
	if (err)
		goto out;
	keep = calloc(run->nfuncs, sizeof(*keep));
	if (!keep) {
		err = -ENOMEM;
		goto out;
	}
	ndrop = budget_choose(o, run, &pilot, sampled_wall_ns, cut, keep);
	if (ndrop <= 0) {
		err = ndrop;
		goto out;
	}
	probes_release(p);
	err = pg_run_retain_funcs(run, keep);
	err = err ?: attach_probes(p, run, o->single_attach, l->preload);
	if (!err)
		excfix_open(p, l);
	if (!err && !o->quiet)
		pg_info("--budget: tracing %zu of %zu functions", run->nfuncs, before);
out:
	pg_rep_release(&pilot);
	free(keep);
	return err;
}

static int cmp_display(const void *a, const void *b, void *arg)
{
	const struct pg_run *run = arg;

	return strcmp(run->funcs[*(const uint32_t *)a].display,
		      run->funcs[*(const uint32_t *)b].display);
}

/* Set seen[id] for every function of @run named as a frame of one of @rep's stacks. */
static int mark_sampled(const struct pg_run *run, const struct pg_rep *rep, bool *seen)
{
	uint32_t *order = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < run->nfuncs; i++)
		order[i] = i;
	qsort_r(order, run->nfuncs, sizeof(*order), cmp_display, (void *)run);
	for (size_t k = 0; k < rep->nstacks; k++) {
		char *stack = strdup(rep->stacks[k].folded), *save = NULL;

		if (!stack) {
			free(order);
			return -ENOMEM;
		}
		for (char *fr = strtok_r(stack, ";", &save); fr; fr = strtok_r(NULL, ";", &save)) {
			size_t lo = 0, hi = run->nfuncs;

			while (lo < hi) {	/* the first function named fr or after it */
				size_t mid = lo + (hi - lo) / 2;

				if (strcmp(run->funcs[order[mid]].display, fr) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < run->nfuncs && !strcmp(run->funcs[order[lo]].display, fr); lo++)
				seen[order[lo]] = true;
		}
		free(stack);
	}
	free(order);
	return 0;
}

/* Samples of @rep that cannot speak for every function: unknown frames, or cut short. */
static uint64_t unsure_samples(const struct pg_rep *rep)
{
	uint64_t n = rep->samples_truncated;

	for (size_t k = 0; k < rep->nstacks; k++)
		if (strstr(rep->stacks[k].folded, "[unknown]"))
			n += rep->stacks[k].count;
	return n;
}

/*
 * --budget's sampled first pass: the benchmark runs once more, unrecorded, sampled at
 * PILOT_SAMPLE_HZ with no probe attached, and only the selected functions seen on its stacks
 * (by name) go on to the pilot. A function that never showed up holds little of the time, and
 * the pilot need not pay for its probes. All of them go on when sampling is off (--no-sample)
 * or does not work here, when the run took fewer than PILOT_MIN_SAMPLES samples, when more
 * than a tenth of them have unknown frames or were cut short, or when none of the functions
 * showed up. *@wall_ns: the run's wall time when it completed (it bounds the pilot), else 0.
 * Before the probes are attached and capabilities dropped.
 */
static int budget_sample(const struct pg_record_opts *o, struct launch *l, struct pg_run *run,
			 uint64_t *wall_ns)
{
	struct probes sp = { 0 };
	struct pg_rep rep = { .exit_code = -1 };
	bool *seen = calloc(run->nfuncs ? run->nfuncs : 1, sizeof(*seen)), timed_out;
	size_t before = run->nfuncs, nseen = 0;
	uint64_t unsure;
	int err;

	if (!seen)
		return -ENOMEM;
	if (!o->sample_hz) {
		if (!o->quiet)
			pg_info("--budget: no sampled first pass (--no-sample): the pilot traces "
				"all %zu selected functions", before);
		goto out_ok;
	}
	err = open_bare(&sp);
	if (err)
		goto out;
	sp.sampler = pg_sampler_open(PILOT_SAMPLE_HZ, bpf_map__fd(sp.skel->maps.traced));
	err = sp.sampler ? run_once(&sp, l, &rep) : -EIO;
	if (err == -EIO) {	/* the sampler could not load or start */
		pg_warn("--budget: no sampled first pass (sampling does not work here): the pilot "
			"traces all %zu selected functions", before);
		goto out_ok;
	}
	err = err ?: pg_sampler_stop(sp.sampler, &rep);
	timed_out = l->timed_out;
	l->timed_out = false;
	err = err ?: budget_run_failed(o, "sampled first pass", &rep, timed_out);
	if (!err && !timed_out && !rep.signal && !rep.exit_code)
		*wall_ns = rep.wall_ns;
	err = err ?: mark_sampled(run, &rep, seen);
	if (err)
		goto out;
	for (size_t i = 0; i < run->nfuncs; i++)
		nseen += seen[i];
	unsure = unsure_samples(&rep);
	if (rep.samples < PILOT_MIN_SAMPLES || !nseen || 10 * unsure > rep.samples) {
		if (!o->quiet)
			pg_info("--budget: the sampled first pass took %llu samples (%llu with "
				"unknown frames or cut short) and saw %zu of the selected "
				"functions: too few to choose from, the pilot traces all %zu",
				(unsigned long long)rep.samples, (unsigned long long)unsure, nseen,
				before);
		goto out;
	}
	err = pg_run_retain_funcs(run, seen);
	if (!err && !o->quiet)
		pg_info("--budget: a sampled first pass (%llu samples) saw %zu of the %zu "
			"selected functions on its stacks; the pilot traces those, the others hold "
			"little of the time", (unsigned long long)rep.samples, nseen, before);
	goto out;
out_ok:
	err = 0;
out:
	pg_rep_release(&rep);
	probes_release(&sp);
	free(seen);
	return err;
}

int pg_record(const struct pg_record_opts *o, struct pg_run *run)
{
	struct selection sel = { 0 };
	struct probes probes = { 0 };
	size_t site[PG_SITE_COUNT] = { 0 };
	__u64 counters[PG_CNT_MAX] = { 0 };
	struct launch launch = { .argv = o->argv, .timeout_ns = o->timeout_ms * 1000000ULL };
	uint64_t sampled_wall = 0;	/* --budget's sampled first pass, when complete */
	int ncpu, err;

	if (!pg_can_record()) {
		pg_err("recording needs root, or the CAP_BPF and CAP_PERFMON capabilities "
		       "(try: sudo perfgate record ...)");
		return -EPERM;
	}
	/* from here on SIGINT, SIGTERM and SIGHUP stop the recording cleanly */
	err = pg_creds_choose(o->user, &launch.creds);
	if (!err)
		err = pg_signals_block(&launch.sig);
	if (err)
		goto cleanup;
	sel.exe = pg_resolve_command(o->argv[0]);
	if (!sel.exe) {
		err = -ENOENT;
		goto cleanup;
	}
	sel.exe_interp = pg_elf_interp(sel.exe);
	if (o->functions_of)
		err = apply_functions_of(&sel, o);
	else
		err = o->nfilters ? apply_filters(&sel, o) : apply_default(&sel, o);
	if (!err)
		err = apply_excludes(&sel, o);
	if (!err)
		err = build_functions(&sel, run, site);
	if (err)
		goto cleanup;
	explain_sites(site);

	err = pg_meta_collect(&run->meta);
	if (!err)
		err = copy_strv(&run->meta.argv, &run->meta.argc, o->argv, o->argc);
	if (!err)
		err = record_selection(o, &run->meta);
	if (err)
		goto cleanup;
	run->meta.repetitions = o->repetitions;

	libbpf_set_print(libbpf_print);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		pg_err("cannot count the CPUs: %s", strerror(-err));
		goto cleanup;
	}
	launch.preload = o->no_exception_fix ? NULL : pg_excfix_find();
	if (launch.preload && !o->exception_fix && !traces_cxx(run)) {
		free(launch.preload);	/* nothing to fix: spare every call its cost */
		launch.preload = NULL;
	}
	if (o->budget_pct > 0) {
		err = budget_sample(o, &launch, run, &sampled_wall);
		if (err)
			goto cleanup;
	}
	err = attach_probes(&probes, run, o->single_attach, launch.preload);
	if (err)
		goto cleanup;
	report_calibration(calibrate(&probes, run, ncpu, &run->calib), &run->calib, o->quiet);
	excfix_open(&probes, &launch);
	if (o->budget_pct > 0) {
		err = budget_pilot(o, &probes, &launch, run, ncpu, sampled_wall);
		if (err)
			goto cleanup;
	}
	compensate_hists(&probes, run);	/* after the pilot, which may load the programs again */
	if (o->sample_hz) {
		probes.sampler = pg_sampler_open(o->sample_hz,
						 bpf_map__fd(probes.skel->maps.traced));
		if (!probes.sampler) {
			err = -EIO;
			goto cleanup;
		}
		run->meta.sample_hz = o->sample_hz;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		pg_warn("cannot become the child subreaper: orphaned processes are not waited for");
	err = pg_caps_drop(launch.creds.change, probes.sampler != NULL);
	if (err)
		goto cleanup;

	if (!o->quiet)
		pg_info("tracing %zu functions, %u repetitions of: %s", run->nfuncs,
			o->repetitions, o->argv[0]);
	for (uint32_t i = 0; i < o->repetitions; i++) {
		struct pg_rep *rep;

		launch.stop_signal = pg_signals_wait(0);
		if (launch.stop_signal) {
			err = stopped_by(launch.stop_signal);
			break;
		}
		err = reset_maps(&probes, run->nfuncs, ncpu);
		if (err)
			break;
		rep = pg_run_add_rep(run);
		if (!rep) {
			err = -ENOMEM;
			break;
		}
		err = run_once(&probes, &launch, rep);
		if (!err && probes.sampler)
			err = pg_sampler_stop(probes.sampler, rep);
		if (err)
			break;
		err = read_maps(&probes, run->nfuncs, ncpu, rep, counters);
		if (err)
			break;
		progress(o, i, rep, rep->nstats);
		if (i == 0)
			warn_overhead(run, rep);
		if (launch.timed_out && !o->allow_failure) {
			pg_err("repetition %u ran past --timeout %g s: its processes were ended; no "
			       "run file written (--allow-failure records it anyway)", i + 1,
			       (double)o->timeout_ms / 1000);
			err = -ETIME;
			break;
		}
		if (launch.timed_out)
			pg_warn("repetition %u ran past --timeout %g s: its processes were ended",
				i + 1, (double)o->timeout_ms / 1000);
		if ((rep->signal || rep->exit_code) && !o->allow_failure) {
			if (rep->signal)
				pg_err("repetition %u: the benchmark was killed by signal %d (%s); "
				       "no run file written%s", i + 1, rep->signal,
				       strsignal(rep->signal), abort_hint(rep, &probes.fix));
			else
				pg_err("repetition %u: the benchmark exited with status %d; no run "
				       "file written (--allow-failure records it anyway)", i + 1,
				       rep->exit_code);
			err = -ECHILD;
			break;
		}
	}
	explain_counters(counters);
	if (!err && probes.sampler)
		err = pg_sampler_finish(probes.sampler, run);
cleanup:
	probes_release(&probes);
	selection_release(&sel);
	/* a stop signal that came after the last repetition still means: no run file */
	if (!err && launch.sig.blocked && (launch.stop_signal = pg_signals_wait(0)))
		err = stopped_by(launch.stop_signal);
	pg_signals_restore(&launch.sig);
	pg_creds_release(&launch.creds);
	free(launch.preload);
	return err;
}
