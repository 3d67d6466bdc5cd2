/* SPDX-License-Identifier: MIT */
/*
 * reporters/report.h - `perfgate report`: the per-function table of one run.
 *
 * One row per function called in any repetition, sorted by total time (descending):
 * calls and total/self sums add up all repetitions; mean, p50, p90 and p99 are per call, the
 * percentiles from the merged latency histograms (inclusive time). A compensated value that
 * came out at 0 from a measured value above 0 is unresolved (within the probes' calibration
 * error, not known): "n/a*" with a note in text, an empty field in CSV, null in JSON, as for
 * unknown values (docs/measurement.md).
 *
 * Runs with off-CPU time (pg_meta.offcpu) add the split of each function's time: on-CPU and
 * off-CPU columns in text, with the threads per repetition grouped by name (on-CPU, runnable,
 * blocked); cpu_ns, offcpu_ns, self_cpu_ns and self_offcpu_ns in CSV (summed like total_ns;
 * on-CPU is the compensated time less the measured off-CPU time), and those with runq_ns and
 * self_runq_ns in JSON. Runs without keep the columns they always had.
 */
#ifndef PG_REPORT_H
#define PG_REPORT_H

#include <stdio.h>

#include "../core/run.h"

enum pg_report_format {
	PG_REPORT_TEXT = 0,	/* aligned table for people */
	PG_REPORT_CSV,		/* header: function,binary,calls,total_ns,self_ns,mean_ns,p50_ns,
				 * p90_ns,p99_ns,min_ns,max_ns,site,raw_total_ns,
				 * raw_self_ns,overhead_ns[,cpu_ns,offcpu_ns,
				 * self_cpu_ns,self_offcpu_ns] */
	PG_REPORT_JSON,		/* {"functions": [{...same fields...}], "repetitions": N} */
};

int pg_report_format_parse(const char *s, enum pg_report_format *out);	/* 0 or -EINVAL */

/* Write the report of @run to @out. 0 or -errno. */
int pg_report_write(const struct pg_run *run, enum pg_report_format fmt, FILE *out);

#endif
