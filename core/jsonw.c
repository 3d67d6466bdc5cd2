// SPDX-License-Identifier: MIT
#include <errno.h>

#include "jsonw.h"

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
