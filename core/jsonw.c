// SPDX-License-Identifier: MIT
/* core/jsonw.c - the JSON writer helpers (core/jsonw.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "utf8.h"

int pg_json_put(struct json_object *obj, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(obj, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int pg_json_push(struct json_object *arr, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int pg_json_put_null(struct json_object *obj, const char *key)
{
	return json_object_object_add(obj, key, NULL) ? -ENOMEM : 0;
}

int pg_json_put_str(struct json_object *obj, const char *key, const char *s)
{
	if (!s)
		return pg_json_put_null(obj, key);
	return pg_json_put(obj, key, json_object_new_string(s));
}

int pg_json_put_u64(struct json_object *obj, const char *key, uint64_t v)
{
	return pg_json_put(obj, key, json_object_new_uint64(v));
}

int pg_json_put_int(struct json_object *obj, const char *key, int64_t v)
{
	return pg_json_put(obj, key, json_object_new_int64(v));
}

int pg_json_put_bool(struct json_object *obj, const char *key, bool v)
{
	return pg_json_put(obj, key, json_object_new_boolean(v));
}

int pg_json_put_num(struct json_object *obj, const char *key, double v)
{
	char buf[40];

	if (!isfinite(v))
		return pg_json_put_null(obj, key);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return pg_json_put(obj, key, json_object_new_double_s(v, buf));
}

/* A string made valid UTF-8, or NULL when out of memory. */
static struct json_object *new_utf8(const char *s)
{
	char *u = pg_utf8_sanitize(s, false);
	struct json_object *o = u ? json_object_new_string(u) : NULL;

	free(u);
	return o;
}

int pg_json_put_utf8(struct json_object *obj, const char *key, const char *s)
{
	if (!s)
		return pg_json_put_null(obj, key);
	return pg_json_put(obj, key, new_utf8(s));
}

struct json_object *pg_json_new_array(size_t n)
{
	return json_object_new_array_ext(n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n);
}

static struct json_object *new_strv(char *const *v, size_t n, bool utf8)
{
	struct json_object *arr = pg_json_new_array(n);

	for (size_t i = 0; arr && i < n; i++) {
		if (pg_json_push(arr, utf8 ? new_utf8(v[i]) : json_object_new_string(v[i]))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

struct json_object *pg_json_new_strv(char *const *v, size_t n)
{
	return new_strv(v, n, false);
}

struct json_object *pg_json_new_utf8v(char *const *v, size_t n)
{
	return new_strv(v, n, true);
}
