// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "calib.h"
#include "run.h"

static const char *const site_names[] = {
	[PG_SITE_UNKNOWN] = "unknown",
	[PG_SITE_NOP5] = "nop5",
	[PG_SITE_EMULATED] = "emulated",
	[PG_SITE_SSTEP] = "sstep",
};

double pg_site_ref_call_ns(enum pg_site site)
{
	switch (site) {
	case PG_SITE_NOP5:
		return PG_REF_CALL_NS_NOP5;
	case PG_SITE_EMULATED:
		return PG_REF_CALL_NS_EMULATED;
	default:
		return PG_REF_CALL_NS_SSTEP;
	}
}

const char *pg_site_name(enum pg_site site)
{
	if ((unsigned int)site >= sizeof(site_names) / sizeof(site_names[0]))
		return "unknown";
	return site_names[site];
}

int pg_site_parse(const char *s, enum pg_site *out)
{
	for (size_t i = 0; i < sizeof(site_names) / sizeof(site_names[0]); i++) {
		if (!strcmp(s, site_names[i])) {
			*out = (enum pg_site)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The calibrated, unmeasured part of out(k): all of it in runs without measured probe times. */
static double out_rest(const struct pg_calib *c, int k)
{
	double r = c->out_ns[k] - (c->measured ? c->measured_ns[k] : 0);

	return r > 0 ? r : 0;
}

bool pg_calib_spread_known(const struct pg_calib *c)
{
	for (int k = 0; c->valid && k < PG_SITE_COUNT; k++)
		if (c->spread_ns[k] > 0)
			return true;
	return false;
}

double pg_calib_desc_ns(const struct pg_calib *c, int k)
{
	return c->in_ns[k] + out_rest(c, k);
}

double pg_calib_trip_ns(const struct pg_calib *c, int k)
{
	double e = c->in_ns[PG_SITE_EMULATED];

	return e > 0 && e < c->in_ns[k] ? e : c->in_ns[k];
}

double pg_calib_scale(const struct pg_calib *c, const uint64_t n[PG_SITE_COUNT],
		      uint64_t probe_ns)
{
	double want = 0, s;

	if (!c->valid || !c->measured)
		return 1;
	for (int k = 0; k < PG_SITE_COUNT; k++)
		want += (double)n[k] * c->measured_ns[k];
	if (!(want > 0))
		return 1;
	s = (double)probe_ns / want;
	if (s > PG_CALIB_SCALE_MAX)
		return PG_CALIB_SCALE_MAX;
	return s < 1.0 / PG_CALIB_SCALE_MAX ? 1.0 / PG_CALIB_SCALE_MAX : s;
}

/*
 * The calibrated cost of @n[k] traced calls of each kind, @part(k) each, the part of kinds
 * pg_calib_scaled_site() multiplied by @scale.
 */
static double calibrated(const struct pg_calib *c, const uint64_t n[PG_SITE_COUNT],
			 double (*part)(const struct pg_calib *, int), double scale)
{
	double d = 0;

	for (int k = 0; k < PG_SITE_COUNT; k++)
		d += (double)n[k] * part(c, k) *
		     (pg_calib_scaled_site((enum pg_site)k) ? scale : 1);
	return d;
}

bool pg_calib_scaled_site(enum pg_site k)
{
	return k == PG_SITE_NOP5;
}

double pg_fstat_own_in(const struct pg_calib *c, const struct pg_func *f,
		       const struct pg_fstat *s)
{
	uint64_t n[PG_SITE_COUNT] = { 0 };
	double in = (double)s->calls * c->in_ns[f->site];

	if (!c->valid)
		return 0;
	if (!pg_calib_scaled_site(f->site))
		return in;
	n[f->site] = s->calls;
	return in * pg_calib_scale(c, n, s->probe_ns);
}

double pg_fstat_comp_total(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s)
{
	double t = (double)s->total_ns, scale;

	if (!c->valid)
		return t;
	t -= pg_fstat_own_in(c, f, s);
	scale = pg_calib_scale(c, s->desc, s->desc_probe_ns);
	t -= calibrated(c, s->desc, pg_calib_desc_ns, scale);
	t += calibrated(c, s->desc_tails, pg_calib_trip_ns, scale);
	if (c->measured)
		t -= (double)s->desc_probe_ns;
	return t > 0 ? t : 0;
}

double pg_fstat_comp_self(const struct pg_calib *c, const struct pg_func *f,
			  const struct pg_fstat *s)
{
	double t = (double)s->self_ns, scale;

	if (!c->valid)
		return t;
	t -= pg_fstat_own_in(c, f, s);
	scale = pg_calib_scale(c, s->kids, s->kids_probe_ns);
	t -= calibrated(c, s->kids, out_rest, scale);
	t += calibrated(c, s->tails, pg_calib_trip_ns, scale);
	if (c->measured)
		t -= (double)s->kids_probe_ns;
	return t > 0 ? t : 0;
}

double pg_fstat_probe_cost(const struct pg_calib *c, const struct pg_func *f,
			   const struct pg_fstat *s)
{
	if (!c->valid)
		return 0;
	return (double)s->calls * pg_calib_desc_ns(c, f->site) +
	       (c->measured ? (double)s->probe_ns : 0);
}
