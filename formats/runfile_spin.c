// SPDX-License-Identifier: MIT
/*
 * formats/runfile_spin.c - "meta.reference_spin" (runfile_spin.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "../core/jsonw.h"
#include "runfile_spin.h"

#define WHERE "meta.reference_spin"
#define CPU_FIELDS 5	/* cpu, wall_ns, cpu_ns, runq_ns, samples */

/* An array of the reference spin's wall (0), CPU (1) or run queue (2) times */
static struct json_object *new_times(const struct pg_meta *m, int which)
{
	struct json_object *arr = pg_json_new_array(m->nspin);

	for (size_t i = 0; arr && i < m->nspin; i++) {
		const struct pg_spin *s = &m->spin[i];
		uint64_t ns = which == 2 ? s->runq_ns : which ? s->cpu_ns : s->wall_ns;

		if (pg_json_push(arr, json_object_new_uint64(ns))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* [cpu, wall_ns, cpu_ns, runq_ns, samples] of @p */
static struct json_object *new_cpu(const struct pg_spin_cpu *p)
{
	const uint64_t v[CPU_FIELDS] = { p->cpu, p->wall_ns, p->cpu_ns, p->runq_ns, p->samples };
	struct json_object *e = pg_json_new_array(CPU_FIELDS);

	for (int k = 0; e && k < CPU_FIELDS; k++) {
		if (pg_json_push(e, json_object_new_uint64(v[k]))) {
			json_object_put(e);
			return NULL;
		}
	}
	return e;
}

/* "cpus": one array of CPUs per repetition */
static struct json_object *new_cpus(const struct pg_meta *m)
{
	struct json_object *arr = pg_json_new_array(m->nspin);

	for (size_t i = 0; arr && i < m->nspin; i++) {
		const struct pg_spin *s = &m->spin[i];
		struct json_object *one = pg_json_new_array(s->ncpu);

		for (uint32_t c = 0; one && c < s->ncpu; c++) {
			if (pg_json_push(one, new_cpu(&s->cpus[c]))) {
				json_object_put(one);
				one = NULL;
			}
		}
		if (pg_json_push(arr, one)) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static bool any_cpus(const struct pg_meta *m)
{
	for (size_t i = 0; i < m->nspin; i++) {
		if (m->spin[i].ncpu)
			return true;
	}
	return false;
}

struct json_object *pg_runfile_new_spin(const struct pg_meta *m)
{
	struct json_object *o = json_object_new_object();

	if (!o || pg_json_put_str(o, "workload", m->spin_workload) ||
	    pg_json_put(o, "wall_ns", new_times(m, 0)) ||
	    pg_json_put(o, "cpu_ns", new_times(m, 1)) ||
	    pg_json_put(o, "runq_ns", new_times(m, 2)) ||
	    (any_cpus(m) && pg_json_put(o, "cpus", new_cpus(m)))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The times "wall_ns", "cpu_ns" or "runq_ns" (optional: 0) of @o into m->spin */
static int read_times(const struct pg_jr *rd, struct json_object *o, const char *key,
		      struct pg_meta *m)
{
	struct json_object *arr;
	int err = pg_jr_member(rd, o, WHERE, key, json_type_array,
			       *key == 'r' ? PG_JR_OPTIONAL : 0, &arr);

	if (!err && !arr)
		return 0;
	if (!err && json_object_array_length(arr) != m->nspin)
		return pg_jr_bad(rd, WHERE, "\"%s\" and \"wall_ns\" differ in length", key);
	for (size_t i = 0; !err && i < m->nspin; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		struct pg_spin *s = &m->spin[i];
		uint64_t *ns = *key == 'w' ? &s->wall_ns : *key == 'c' ? &s->cpu_ns : &s->runq_ns;

		err = pg_jr_to_u64(rd, v, WHERE, key, UINT64_MAX, ns);
	}
	return err;
}

/* One repetition's CPUs, array @a, into @s */
static int read_one_cpus(const struct pg_jr *rd, struct json_object *a, struct pg_spin *s)
{
	int err = pg_jr_want(rd, a, WHERE, "\"cpus\" entry", json_type_array, false);
	size_t n = err ? 0 : json_object_array_length(a);

	if (!err && n > PG_SPIN_MAX_CPUS)
		return pg_jr_bad(rd, WHERE, "a spin on %zu CPUs, more than %d", n,
				 PG_SPIN_MAX_CPUS);
	for (size_t c = 0; !err && c < n; c++) {
		struct json_object *e = json_object_array_get_idx(a, c);
		struct pg_spin_cpu *p = &s->cpus[c];
		uint64_t v[CPU_FIELDS];

		err = pg_jr_want(rd, e, WHERE, "a CPU of \"cpus\"", json_type_array, false);
		if (!err && json_object_array_length(e) != CPU_FIELDS)
			err = pg_jr_bad(rd, WHERE, "a CPU of \"cpus\" needs %d numbers",
					CPU_FIELDS);
		for (int k = 0; !err && k < CPU_FIELDS; k++)
			err = pg_jr_to_u64(rd, json_object_array_get_idx(e, (size_t)k), WHERE,
					   "cpus", k ? UINT64_MAX : UINT32_MAX, &v[k]);
		if (err)
			break;
		*p = (struct pg_spin_cpu){ .cpu = (uint32_t)v[0], .wall_ns = v[1], .cpu_ns = v[2],
					   .runq_ns = v[3], .samples = v[4] };
		s->ncpu = (uint32_t)c + 1;
	}
	return err;
}

/* Optional "cpus" of @o into m->spin */
static int read_cpus(const struct pg_jr *rd, struct json_object *o, struct pg_meta *m)
{
	struct json_object *arr;
	int err = pg_jr_member(rd, o, WHERE, "cpus", json_type_array, PG_JR_OPTIONAL, &arr);

	if (err || !arr)
		return err;
	if (json_object_array_length(arr) != m->nspin)
		return pg_jr_bad(rd, WHERE, "\"cpus\" and \"wall_ns\" differ in length");
	for (size_t i = 0; !err && i < m->nspin; i++)
		err = read_one_cpus(rd, json_object_array_get_idx(arr, i), &m->spin[i]);
	return err;
}

int pg_runfile_read_spin(const struct pg_jr *rd, struct json_object *o, struct pg_meta *m)
{
	struct json_object *arr;
	int err;

	err = pg_jr_want(rd, o, "meta", "\"reference_spin\"", json_type_object, false);
	err = err ?: pg_jr_dup_str(rd, o, WHERE, "workload", false, &m->spin_workload);
	err = err ?: pg_jr_member(rd, o, WHERE, "wall_ns", json_type_array, false, &arr);
	if (err)
		return err;
	m->nspin = json_object_array_length(arr);
	m->spin = calloc(m->nspin ? m->nspin : 1, sizeof(*m->spin));
	if (!m->spin)
		return pg_jr_oom(rd);
	return read_times(rd, o, "wall_ns", m) ?: read_times(rd, o, "cpu_ns", m) ?:
	       read_times(rd, o, "runq_ns", m) ?: read_cpus(rd, o, m);
}
