// SPDX-License-Identifier: MIT
/*
 * bench/cppower.c - the power and the false alarms of perfgate's change points
 * (diff/changepoint.c) on synthetic series, for the history section of the benchmark and
 * docs/history.md. Pure computation: no timing.
 *
 * A series is 30 sessions at one level and then AFTER sessions at a level STEP noise standard
 * deviations higher (log-normal noise of 2%); found = a change point within one session of the
 * true one. False alarms: change points in series of 100 sessions without a change. Options
 * as perfgate history changes uses them: PG_CP_OPTS_DEFAULT with min_magnitude 0 (so that the
 * test itself is measured; changes' default 5% only removes small ones).
 *
 * Usage: cppower [TRIALS]   (default 200). Prints JSON.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../diff/changepoint.h"

#define BEFORE 30
#define SD 0.02

static uint64_t state = 12345;

static double unif(void)
{
	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static int found(const double *x, size_t n, size_t at)
{
	struct pg_cp *cp;
	size_t k, hit = 0;

	if (pg_changepoints(x, n, NULL, &cp, &k))
		exit(2);
	for (size_t i = 0; i < k; i++)
		hit |= cp[i].index + 1 >= at && cp[i].index <= at + 1;
	free(cp);
	return (int)hit;
}

int main(int argc, char **argv)
{
	static const double steps[] = { 1, 2, 3, 4, 6 };
	static const size_t afters[] = { 1, 2, 3, 5, 10, 20 };
	int trials = argc > 1 ? atoi(argv[1]) : 200;
	double x[200];
	size_t alarms = 0;

	printf("{\"trials\": %d, \"before\": %d, \"noise_sd\": %g, \"power\": [", trials, BEFORE,
	       SD);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		for (size_t a = 0; a < sizeof(afters) / sizeof(afters[0]); a++) {
			size_t n = BEFORE + afters[a], hits = 0;

			for (int t = 0; t < trials; t++) {
				for (size_t i = 0; i < n; i++)
					x[i] = 1000 * exp(SD * gauss() + (i >= BEFORE ?
									  steps[s] * SD : 0));
				hits += (size_t)found(x, n, BEFORE);
			}
			printf("%s{\"step_sd\": %g, \"after\": %zu, \"found\": %g}",
			       s || a ? ", " : "", steps[s], afters[a], (double)hits / trials);
		}
	}
	for (int t = 0; t < trials; t++) {
		struct pg_cp *cp;
		size_t k;

		for (size_t i = 0; i < 100; i++)
			x[i] = 1000 * exp(SD * gauss());
		if (pg_changepoints(x, 100, NULL, &cp, &k))
			return 2;
		alarms += k;
		free(cp);
	}
	printf("], \"null_sessions\": 100, \"false_per_series\": %g}\n", (double)alarms / trials);
	return 0;
}
