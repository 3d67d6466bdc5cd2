/* SPDX-License-Identifier: MIT */
/*
 * reporters/flamegraph.h - interactive SVG flame graphs (perfgate flamegraph, perfgate compare
 * --flamegraph), written with libxml2's xmlTextWriter.
 *
 * The SVG is self-contained: an embedded <style> and <script> (no network) give details of
 * the frame under the pointer, click to zoom (the frame fills the width, its ancestors stay as
 * context), "Reset Zoom", and "Search" (a regular expression; matches are highlighted and
 * their share of samples shown). Every frame is a <g class="f"> holding a <title> (the
 * tooltip), a <rect> and a <text>. Root at the bottom, as flamegraph.pl draws it. Frames
 * narrower than 0.1 pixel are left out of the drawing (never out of the totals). All text is
 * printable ASCII.
 *
 * A plain flame graph colours frames by name (warm hues for user code, orange for kernel
 * frames "[k]", grey for unresolved addresses, violet for perfgate's own probe cost,
 * "[perfgate probes]": diff/probeframes.h). A differential one (struct pg_flame.diff)
 * colours by change: red grew, blue shrank, grey neutral, a dashed purple outline for frames
 * only in NEW; a legend states the direction and both sides' samples (in all and per
 * repetition), and each tooltip gives both sides' counts and shares and the change (see
 * diff/flamediff.h). Frames of traced functions, when a comparison is given, are red for a
 * regression (deeper for a larger change), blue for an improvement, grey otherwise, and
 * their tooltip gives compare's verdict, change, interval, q and reason.
 */
#ifndef PG_FLAMEGRAPH_H
#define PG_FLAMEGRAPH_H

#include "../core/run.h"
#include "../diff/flamediff.h"

#define PG_FLAMEGRAPH_WIDTH 1200

/*
 * Write @f as an SVG to @path atomically. @title heads the picture; @sources (may be NULL)
 * gives frames' file:line for the tooltips (struct pg_run.sources of the NEW run).
 * 0 or -errno (logged).
 */
int pg_flamegraph_write(const struct pg_flame *f, const struct pg_run *sources,
			const char *title, const char *path);

/*
 * perfgate flamegraph: the flame graph of @run's sampled stacks (repetition @rep, 0-based; -1
 * all) to @path. @offcpu: the stacks are off-CPU stacks (pg_run_offcpu_as_stacks()), counts
 * in nanoseconds, and the drawing says "off-CPU time" where it would say samples. @title
 * NULL: the benchmark command. 0 or -errno (logged).
 */
int pg_flamegraph_write_run(const struct pg_run *run, long rep, bool offcpu, const char *title,
			    const char *path);

/*
 * perfgate compare --flamegraph: the differential flame graph from @base to @new, coloured by
 * @metric with significance level @alpha (diff/flamediff.h), frames of the functions @cmp
 * compared (may be NULL) by its verdicts, to @path; titled with both commits when they
 * differ. 0 or -errno, logged ("--flamegraph PATH: why" when the runs cannot be compared,
 * e.g. no sampled stacks).
 */
int pg_flamegraph_write_diff(const struct pg_run *base, const struct pg_run *new,
			     const struct pg_comparison *cmp, enum pg_flame_metric metric,
			     double alpha, const char *path);

/*
 * perfgate flamegraph BASE NEW: the differential flame graph of two runs' stacks alone (no
 * comparison: every frame coloured by its share), of off-CPU time with @offcpu (as in
 * pg_flamegraph_write_run()). 0 or -errno, logged ("PATH: why").
 */
int pg_flamegraph_write_profiles(const struct pg_run *base, const struct pg_run *new,
				 enum pg_flame_metric metric, double alpha, bool offcpu,
				 const char *path);

#endif
