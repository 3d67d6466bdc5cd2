/* SPDX-License-Identifier: MIT */
/*
 * core/jsonw.h - the one JSON writer of perfgate's file formats: building json-c documents
 * without leaking on failure (run files, formats/runfile_write.c; compare results,
 * formats/result.c; report and vote payloads, reporters/).
 *
 * Each pg_json_put*() and pg_json_push*() consumes @v: on success the container owns it, on
 * failure it is released. A NULL @v (a failed json_object_new_*()) is reported as -ENOMEM.
 * All return 0 or -ENOMEM, so that a builder chains them:
 *
 *	struct json_object *o = json_object_new_object();
 *
 *	if (!o || pg_json_put_str(o, "name", f->name) || pg_json_put_u64(o, "calls", calls) ||
 *	    pg_json_put_num(o, "change", change)) {
 *		json_object_put(o);
 *		return NULL;
 *	}
 *
 * The pg_json_new_*() constructors return a new value, or NULL when out of memory.
 */
#ifndef PG_JSONW_H
#define PG_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

int pg_json_put(struct json_object *obj, const char *key, struct json_object *v);
int pg_json_push(struct json_object *arr, struct json_object *v);
/* A string, or JSON null when @s is NULL. */
int pg_json_put_str(struct json_object *obj, const char *key, const char *s);
/* JSON null. */
int pg_json_put_null(struct json_object *obj, const char *key);
int pg_json_put_u64(struct json_object *obj, const char *key, uint64_t v);
int pg_json_put_int(struct json_object *obj, const char *key, int64_t v);
int pg_json_put_bool(struct json_object *obj, const char *key, bool v);
/*
 * A number in its shortest form that reads back to the same double ("-0" written as 0), or
 * JSON null for NAN and infinities (JSON has neither).
 */
int pg_json_put_num(struct json_object *obj, const char *key, double v);
/* As pg_json_put_str(), with @s made valid UTF-8 first (core/utf8.h). */
int pg_json_put_utf8(struct json_object *obj, const char *key, const char *s);

/* An empty array with room for @n elements (a hint only). */
struct json_object *pg_json_new_array(size_t n);
/* An array of the strings @v[0..n) (none NULL); _utf8v makes each valid UTF-8 first. */
struct json_object *pg_json_new_strv(char *const *v, size_t n);
struct json_object *pg_json_new_utf8v(char *const *v, size_t n);

#endif
