// SPDX-License-Identifier: MIT
/*
 * formats/runfile_woken.c - a repetition's "offcpu_wakers" (runfile_woken.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/jsonw.h"
#include "runfile_woken.h"

#define KEY "offcpu_wakers"

int pg_runfile_put_woken(struct json_object *o, const struct pg_rep *rep)
{
	struct json_object *a;

	if (!rep->nwoken)
		return 0;
	a = pg_json_new_array(rep->nwoken);
	for (size_t i = 0; a && i < rep->nwoken; i++) {
		const struct pg_woken *w = &rep->woken[i];
		struct json_object *e = json_object_new_array_ext(4);

		if (pg_json_push(e, json_object_new_uint64(w->stack)) ||
		    pg_json_push(e, json_object_new_string(pg_woken_kind_name(w->kind))) ||
		    pg_json_push(e, json_object_new_string(w->comm)) ||
		    pg_json_push(e, json_object_new_uint64(w->ns)) || pg_json_push(a, e)) {
			json_object_put(e);
			json_object_put(a);
			return -ENOMEM;
		}
	}
	return pg_json_put(o, KEY, a);
}

/* Entry @e (the @i-th) into @w. 0 or -errno, logged. */
static int read_one(const struct pg_jr *rd, struct json_object *e, const char *where, size_t i,
		    struct pg_woken *w)
{
	const char *kind = NULL, *comm = NULL;
	uint64_t stack = 0;
	char what[48];
	int err;

	snprintf(what, sizeof(what), "\"" KEY "\"[%zu]", i);
	if (pg_jr_want(rd, e, where, what, json_type_array, false))
		return -EINVAL;
	if (json_object_array_length(e) != 4)
		return pg_jr_bad(rd, where, "%s must be [stack, kind, comm, ns]", what);
	err = pg_jr_to_u64(rd, json_object_array_get_idx(e, 0), where, what, UINT32_MAX, &stack);
	err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(e, 1), where, what, false, &kind);
	err = err ?: pg_jr_to_str(rd, json_object_array_get_idx(e, 2), where, what, false, &comm);
	err = err ?: pg_jr_to_u64(rd, json_object_array_get_idx(e, 3), where, what, UINT64_MAX,
				  &w->ns);
	if (err)
		return err;
	if (pg_woken_kind_parse(kind, &w->kind))
		return pg_jr_bad(rd, where, "%s: unknown kind \"%s\" (same, other, kernel or irq)",
				 what, kind);
	w->stack = (uint32_t)stack;
	w->comm = strdup(comm);
	return w->comm ? 0 : pg_jr_oom(rd);
}

int pg_runfile_read_woken(const struct pg_jr *rd, struct json_object *o, const char *where,
			  struct pg_rep *rep)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, KEY, &a))
		return 0;
	if (pg_jr_want(rd, a, where, "\"" KEY "\"", json_type_array, false))
		return -EINVAL;
	n = json_object_array_length(a);
	rep->woken = calloc(n ? n : 1, sizeof(*rep->woken));
	if (!rep->woken)
		return pg_jr_oom(rd);
	for (size_t i = 0; i < n; i++) {
		int err = read_one(rd, json_object_array_get_idx(a, i), where, i, &rep->woken[i]);

		if (err) {
			free(rep->woken[i].comm);
			return err;
		}
		rep->nwoken = i + 1;
	}
	return 0;
}
