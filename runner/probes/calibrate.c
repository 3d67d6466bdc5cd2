// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../core/clock.h"
#include "../../core/log.h"
#include "../../core/sort.h"
#include "../launch/proctree.h"
#include "../select/elfsyms.h"
#include "calibrate.h"

/*
 * The targets, in assembly so that the compiler cannot change their first instruction. Each
 * "_p" (probed) function has an identical "_u" (unprobed) twin. Each calls pg_cal_body(),
 * about 2 us of work: after a probe the caches, TLB and branch predictors the kernel disturbed
 * slow down the code that follows, and a call of an empty function would not see that part of
 * the cost. Stack kept 16-byte aligned at the call.
 */
#define PG_CAL_FN(name, head, calls, tail)					\
	".globl " name "\n.type " name ",@function\n.p2align 4\n" name ":\n" head	\
	"\n" calls tail "\n\tret\n.size " name ",.-" name "\n"
#define PG_CAL_BODY "\tcall pg_cal_body\n"
#define PG_CAL_NOP5 "\t.byte 0x0f,0x1f,0x44,0x00,0x00\n\tsub $8,%rsp"
#define PG_CAL_SSTEP "\txor %eax,%eax\n\tsub $8,%rsp"
#define PG_CAL_ADD "\tadd $8,%rsp"
__asm__(".text\n"
	PG_CAL_FN("pg_cal_nop5_p", PG_CAL_NOP5, PG_CAL_BODY, PG_CAL_ADD)
	PG_CAL_FN("pg_cal_nop5_u", PG_CAL_NOP5, PG_CAL_BODY, PG_CAL_ADD)
	PG_CAL_FN("pg_cal_emul_p", "\tpush %rbp", PG_CAL_BODY, "\tpop %rbp")
	PG_CAL_FN("pg_cal_emul_u", "\tpush %rbp", PG_CAL_BODY, "\tpop %rbp")
	PG_CAL_FN("pg_cal_sstep_p", PG_CAL_SSTEP, PG_CAL_BODY, PG_CAL_ADD)
	PG_CAL_FN("pg_cal_sstep_u", PG_CAL_SSTEP, PG_CAL_BODY, PG_CAL_ADD));

void pg_cal_nop5_p(void), pg_cal_nop5_u(void), pg_cal_emul_p(void), pg_cal_emul_u(void);
void pg_cal_sstep_p(void), pg_cal_sstep_u(void);

static volatile unsigned long pg_cal_sink;
static unsigned long body_iters = 800;	/* scaled to PG_CAL_BODY_NS by the child */

#define PG_CAL_BODY_NS 2000.0

/* The targets' work (called from the assembly above, hence not static). */
__attribute__((noinline)) void pg_cal_body(void);
__attribute__((noinline)) void pg_cal_body(void)
{
	for (unsigned long i = 0; i < body_iters; i++)
		pg_cal_sink += i;
}

static const char *const probed_names[PG_CALIB_NTARGETS] = {
	"pg_cal_nop5_p", "pg_cal_emul_p", "pg_cal_sstep_p",
};
static const enum pg_site expected_site[PG_CALIB_NTARGETS] = {
	PG_SITE_NOP5, PG_SITE_EMULATED, PG_SITE_SSTEP,
};

int pg_calib_find(struct pg_calib_targets *t)
{
	struct pg_elf_syms syms;
	int err, found = 0;

	memset(t, 0, sizeof(*t));
	t->path = realpath("/proc/self/exe", NULL);
	if (!t->path)
		return -errno;
	err = pg_elf_syms_load(t->path, &syms);
	if (err)
		goto out;
	for (int k = 0; k < PG_CALIB_NTARGETS; k++) {
		for (size_t i = 0; i < syms.n; i++) {
			if (strcmp(syms.syms[i].name, probed_names[k]))
				continue;
			t->offset[k] = syms.syms[i].offset;
			t->site[k] = syms.syms[i].site;
			found++;
			break;
		}
		if (t->site[k] != expected_site[k]) {
			pg_debug("calibration target %s is a %s site, not %s", probed_names[k],
				 pg_site_name(t->site[k]), pg_site_name(expected_site[k]));
			err = -ENOEXEC;
		}
	}
	if (!err && found != PG_CALIB_NTARGETS)
		err = -ENOENT;
	pg_elf_syms_release(&syms);
out:
	if (err)
		pg_calib_targets_release(t);
	return err;
}

void pg_calib_targets_release(struct pg_calib_targets *t)
{
	free(t->path);
	memset(t, 0, sizeof(*t));
}

static double now_ns(void)
{
	return (double)pg_now_ns();
}

#define ROUNDS PG_CALIB_ROUNDS
#define MAX_CALLS 1000

/* About a microsecond of work between calls, as in real code: probes cost more when their
 * kernel paths are not hot in the caches, and back-to-back calls of an empty function would
 * measure only that best case. */
static void between_calls(void)
{
	for (unsigned int i = 0; i < 400; i++)
		pg_cal_sink += i;
}

/* Time of @n calls of @fn, each timed alone (into @one, minus @clk) and followed by
 * between_calls(). */
static double timed_calls(void (*fn)(void), unsigned int n, double clk, double *one)
{
	double t0 = now_ns();

	for (unsigned int k = 0; k < n; k++) {
		double a = now_ns();

		fn();
		one[k] = now_ns() - a - clk;
		between_calls();
	}
	return now_ns() - t0;
}

/* 1.96 x sqrt(pi / 2) x 1.4826: a 95% normal interval of a median from its sample's MAD */
#define MEDIAN_CI_PER_MAD 3.642

double pg_calib_round_spread(const double *d, size_t n, double med)
{
	double a[PG_CALIB_ROUNDS], mad;

	if (!n || n > PG_CALIB_ROUNDS)
		return 0;
	for (size_t i = 0; i < n; i++)
		a[i] = fabs(d[i] - med);
	mad = pg_median(a, n);
	return isnan(mad) ? 0 : MEDIAN_CI_PER_MAD * mad / sqrt((double)n);
}

/*
 * In ROUNDS alternating rounds of @n calls of the unprobed @plain, then @n of the probed
 * @probed (both timed the same way, so that their difference is the probes' cost): the median
 * per-round difference per call into *@cost, its spread over the rounds into *@spread, and the
 * median duration of one plain call into *@body. Alternating keeps both sides on the machine as
 * it is at the same moments: on shared VMs the speed of the same loop drifts by 2x within a
 * second.
 */
static void measure(void (*plain)(void), void (*probed)(void), unsigned int n, double *cost,
		    double *spread, double *body)
{
	static double one[ROUNDS * MAX_CALLS], scratch[MAX_CALLS];
	double diff[ROUNDS], clk = 1e300;

	for (int i = 0; i < 100; i++) {	/* the clock's own cost */
		double a = now_ns(), b = now_ns();

		clk = b - a < clk ? b - a : clk;
	}
	for (int i = 0; i < ROUNDS; i++) {
		double tp = timed_calls(plain, n, clk, one + (size_t)i * n);

		/* timed call by call as well: both sides pay the same clock reads */
		diff[i] = (timed_calls(probed, n, clk, scratch) - tp) / n;
	}
	*cost = pg_median(diff, ROUNDS);
	*spread = pg_calib_round_spread(diff, ROUNDS, *cost);
	*body = pg_median(one, (size_t)ROUNDS * n);
}

/* Scale the targets' body to about PG_CAL_BODY_NS on this machine. */
static void scale_body(void)
{
	double t0;

	body_iters = 1000;
	t0 = now_ns();
	for (int i = 0; i < 50; i++)
		pg_cal_body();
	body_iters = (unsigned long)(50 * 1000 * PG_CAL_BODY_NS / (now_ns() - t0 + 1)) + 1;
}

static void child_main(int go, int result)
{
	static void (*const probed[PG_CALIB_NTARGETS])(void) = {
		pg_cal_nop5_p, pg_cal_emul_p, pg_cal_sstep_p,
	};
	static void (*const plain[PG_CALIB_NTARGETS])(void) = {
		pg_cal_nop5_u, pg_cal_emul_u, pg_cal_sstep_u,
	};
	/* single-stepping is ~10x dearer: fewer calls keep calibration near 0.2 s */
	static const unsigned int calls[PG_CALIB_NTARGETS] = { 600, 600, 200 };
	struct pg_calib_loops out;
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	scale_body();
	for (int k = 0; k < PG_CALIB_NTARGETS; k++) {
		for (unsigned int i = 0; i < 100; i++)	/* warm up: first hits cost more */
			probed[k]();
		measure(plain[k], probed[k], calls[k], &out.cost_ns[k], &out.spread_ns[k],
			&out.body_ns[k]);
	}
	if (write(result, &out, sizeof(out)) != (ssize_t)sizeof(out))
		_exit(1);
	_exit(0);
}

pid_t pg_calib_spawn(int *go_fd, int *result_fd)
{
	pid_t pid = pg_fork_gated(go_fd, result_fd);

	if (!pid)
		child_main(*go_fd, *result_fd);
	return pid;
}

void pg_calib_compute(const struct pg_calib_targets *t, const struct pg_calib_loops *loops,
		      const double median_ns[PG_CALIB_NTARGETS],
		      const double bpf_ns[PG_CALIB_NTARGETS], struct pg_calib *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < PG_CALIB_NTARGETS; k++) {
		double cost = loops->cost_ns[k];
		double in = median_ns[k] - loops->body_ns[k];

		if (cost < 0)
			cost = 0;
		if (in < 0)
			in = 0;
		if (in > cost)
			in = cost;
		c->in_ns[t->site[k]] = in;
		c->out_ns[t->site[k]] = cost - in;
		c->measured_ns[t->site[k]] = bpf_ns[k] > 0 ? bpf_ns[k] : 0;
		c->spread_ns[t->site[k]] = loops->spread_ns[k] > 0 ? loops->spread_ns[k] : 0;
	}
	c->in_ns[PG_SITE_UNKNOWN] = c->in_ns[PG_SITE_SSTEP];
	c->out_ns[PG_SITE_UNKNOWN] = c->out_ns[PG_SITE_SSTEP];
	c->measured_ns[PG_SITE_UNKNOWN] = c->measured_ns[PG_SITE_SSTEP];
	c->spread_ns[PG_SITE_UNKNOWN] = c->spread_ns[PG_SITE_SSTEP];
	c->valid = true;
	c->measured = true;
}

bool pg_calib_plausible(const struct pg_calib *c)
{
	static const enum pg_site sites[] = { PG_SITE_NOP5, PG_SITE_EMULATED, PG_SITE_SSTEP };

	if (!c->valid)
		return false;
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		enum pg_site k = sites[i];

		if (!(c->in_ns[k] > 0) || (c->measured && !(c->out_ns[k] >= c->measured_ns[k])))
			return false;
	}
	return pg_calib_excess(c) <= 1;
}

double pg_calib_excess(const struct pg_calib *c)
{
	static const enum pg_site sites[] = { PG_SITE_NOP5, PG_SITE_EMULATED, PG_SITE_SSTEP };
	double worst = 0;

	for (size_t i = 0; c->valid && c->measured && i < sizeof(sites) / sizeof(sites[0]); i++) {
		enum pg_site k = sites[i];
		double bound = (k == PG_SITE_SSTEP ? PG_CALIB_MAX_OUT_RATIO_SSTEP :
				PG_CALIB_MAX_OUT_RATIO) * c->measured_ns[k];
		double x = bound > 0 ? c->out_ns[k] / bound : 0;

		if (x > worst)
			worst = x;
	}
	return worst;
}
