/* SPDX-License-Identifier: MIT */
/*
 * core/jsonw.h - building json-c documents without leaking on failure.
 *
 * Each call consumes @v: on success the container owns it, on failure it is released. A NULL
 * @v (a failed json_object_new_*()) is reported as -ENOMEM. All return 0 or -ENOMEM.
 */
#ifndef PG_JSONW_H
#define PG_JSONW_H

#include <json-c/json.h>

int pg_json_put(struct json_object *obj, const char *key, struct json_object *v);
int pg_json_push(struct json_object *arr, struct json_object *v);
/* A string, or JSON null when @s is NULL. */
int pg_json_put_str(struct json_object *obj, const char *key, const char *s);
/* JSON null. */
int pg_json_put_null(struct json_object *obj, const char *key);

#endif
