/* SPDX-License-Identifier: MIT */
/*
 * runner/probes/probes.h - loading the BPF object and attaching its probes (step 2 of
 * runner/session/recorder.h), and detaching them all again (step 4).
 *
 * struct pg_probes holds everything a recording attached: the skeleton (bpf/perfgate.bpf.c:
 * programs and maps), the fork and exit tracepoints that keep the `traced` map of the
 * benchmark's process tree, and the uprobes of the run's functions: one uprobe_multi link per
 * binary for entries and one for returns (runner/probes/uprobe_multi.h), or, where the kernel lacks
 * uprobe_multi or single-attach was asked for, one libbpf link per probe. It also carries the
 * two things the benchmark's runs need from the loaded object: the sampler
 * (runner/profile/sampler.h) and the C++ exception fix (runner/probes/excfix.h).
 *
 * Invariants: a probe's BPF cookie is pg_probe_cookie(site, function id), so that the
 * programs find the function's slot in the maps (sized for run->nfuncs + PG_CALIB_NTARGETS:
 * the calibration targets take the ids after the run's functions). Either fds or links is
 * used, never both (multi says which).
 *
 * Files of runner/probes/ (the BPF side of a recording):
 *   probes.c/.h        load bpf/perfgate.bpf.c's skeleton and attach a probe to each function
 *                      (pg_probes_attach()); detach them all
 *   uprobe_multi.h     the kernel ABI of uprobe_multi links, for Debian 12's headers
 *   maps.c/.h          clear the maps before a repetition, read them into a struct pg_rep after
 *   calibrate.c/.h     what a traced call costs per kind of site: the targets and the
 *                      arithmetic (no BPF)
 *   calibrate_bpf.c    the calibration run through the recording's own programs and maps
 *   excfix.c/.h        the C++ exception fix, perfgate's side: the `rets` map and the
 *                      benchmark's preload environment
 *   preload/preload.c  libperfgate-preload.so, the fix's side in the benchmark (not linked
 *                      into perfgate)
 *
 * Life cycle and ownership: zero the struct; pg_probes_attach() (or pg_probes_open_bare());
 * pg_probes_attach_set() may add more probes; pg_probes_release() detaches and frees
 * everything, the sampler and exception fix included, and zeroes the struct but its @offcpu
 * setting (it may then be attached again, as --budget does after choosing). Release is safe on a
 * zeroed struct and after any failure.
 *
 *	struct pg_probes p = { 0 };
 *
 *	pg_probes_log_to_stderr();
 *	err = pg_probes_attach(&p, run, opts->single_attach, preload);
 *	...			// runner/probes/maps.h, runner/launch/launch.h
 *	pg_probes_release(&p);
 */
#ifndef PG_PROBES_H
#define PG_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/run.h"
#include "excfix.h"

struct perfgate_bpf;
struct bpf_link;
struct pg_sampler;

struct pg_probes {
	struct perfgate_bpf *skel;
	struct bpf_link *fork_link, *exit_link;
	/*
	 * Off-CPU time (the sched_switch and sched_wakeup programs, runner/probes/maps.h reads the
	 * `threads` map): set @offcpu before pg_probes_attach() to have them attached; the
	 * links are theirs. Off in a zeroed struct; pg_probes_release() keeps the setting, so
	 * that probes attached again (--budget) have them as before.
	 */
	bool offcpu;
	struct bpf_link *switch_link, *wakeup_link, *wakeup_new_link;
	size_t nfds, fds_alloc;
	int *fds;		/* uprobe_multi link fds */
	size_t nlinks, links_alloc;
	struct bpf_link **links;	/* per-probe links (fallback) */
	bool multi;		/* uprobe_multi links, not one link per probe */
	struct pg_sampler *sampler;	/* sampled profile (runner/profile/sampler.h), NULL
					 * if off */
	struct pg_excfix fix;	/* the C++ exception fix (runner/probes/excfix.h), zeroed if off */
};

/*
 * The maps of the loaded object, by name: what runner/probes/maps.h, the launch and the calibration
 * read and write. Only runner/probes/probes.c includes the skeleton; the rest goes through these.
 */
enum pg_probes_map {
	PG_MAP_TRACED,		/* the traced processes (pid -> 1) */
	PG_MAP_FSTATS,		/* per-function statistics, per CPU */
	PG_MAP_HIST,		/* latency histograms */
	PG_MAP_COUNTERS,	/* the programs' event counters, per CPU */
	PG_MAP_STACKS,		/* per-thread call stacks */
	PG_MAP_THREADS,		/* per-thread on-/off-CPU time */
	PG_MAP_RETS,		/* published return addresses (the exception fix) */
};

/* The fd of map @m of the loaded object (-EBADF when none is loaded). */
int pg_probes_map_fd(const struct pg_probes *p, enum pg_probes_map m);

/*
 * Have the BPF programs compensate the histograms' durations for the probes' own time, per
 * kind of site: @own_ns, @desc_ns and @trip_ns have PG_SITE_COUNT entries (core/calib.h).
 */
void pg_probes_compensate(struct pg_probes *p, const double *own_ns, const double *desc_ns,
			  const double *trip_ns);

/* libbpf's warnings to stderr, its info and debug lines only with -v. */
void pg_probes_log_to_stderr(void);

/*
 * Load the BPF object sized for @run and attach its probes: uprobe_multi links unless
 * @single, falling back to one link per probe (said at info level) when the kernel has none.
 * With @preload (the exception fix's library), the programs publish return addresses too.
 * 0 or -errno (logged).
 */
int pg_probes_attach(struct pg_probes *p, const struct pg_run *run, bool single,
		     const char *preload);

/*
 * The BPF object with only its process tracking attached (the `traced` map, filled by the
 * fork and exit tracepoints): what a sampled run without probes needs. 0 or -errno (logged).
 */
int pg_probes_open_bare(struct pg_probes *p);

/*
 * Attach entry and return probes at @n file offsets of @path, with their cookies, the same way
 * as the loaded ones (multi or not). -EOPNOTSUPP when the kernel lacks uprobe_multi (only for
 * the first link, so that the caller can fall back); other errors are logged.
 */
int pg_probes_attach_set(struct pg_probes *p, const char *path, const uint64_t *off,
			 const uint64_t *cookie, size_t n);

/*
 * Detach the probes of @run's functions and attach again those with @live[id] set (NULL: all), with
 * the same cookies, keeping the loaded programs, maps and process tracking: what the maps hold
 * stays. A few ms between two runs of the benchmark; not while one runs: closing a uprobe_multi
 * link then waits for its traced calls in flight (main's too) and slows the benchmark meanwhile
 * (seconds to a minute, measured on Linux 6.18). Needs the capabilities pg_probes_attach() needed.
 * The calibration's probes, if still attached, go too. 0 or -errno (logged).
 */
int pg_probes_relink(struct pg_probes *p, const struct pg_run *run, const bool *live);

/* The BPF cookie of a probe on function @id, whose entry is a site of kind @site. */
uint64_t pg_probe_cookie(enum pg_site site, uint32_t id);

void pg_probes_release(struct pg_probes *p);

#endif
