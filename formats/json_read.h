/* SPDX-License-Identifier: MIT */
/*
 * formats/json_read.h - the bounded JSON reading toolkit of perfgate's file formats (run files:
 * formats/runfile.h, compare results: formats/result.h): a file read whole up to its format's
 * size limit, parsed strictly by json-c, then walked with typed getters whose error messages
 * name the file and the JSON path of the value.
 *
 * Invariants:
 *  - Every function that fails has logged exactly one line (core/log.h) naming the file, and
 *    returns a negative errno: -EINVAL for anything wrong with the input, -ENOMEM, -EFBIG for
 *    a file over its limit, or the errno of a failed open or read. Nothing is left allocated
 *    in a caller's output but what the caller releases anyway (see pg_jr_dup_strv()).
 *  - Strings handed out never contain a NUL character (C strings cannot hold them: such a
 *    value is an error). Borrowed strings (pg_jr_get_str()) live as long as the JSON tree.
 *  - Integers are json-c's int64 or uint64; json-c reads integers beyond 2^64 - 1 as
 *    2^64 - 1, so a range check is what refuses them.
 *  - The size limit is the format's policy, stated in its header: the parsed tree takes about
 *    35 times the file's size in memory, so the limit keeps a crafted file from exhausting it.
 *
 * Flags of a member: PG_JR_REQUIRED (present, not null), PG_JR_NULLABLE (present, may be
 * null), PG_JR_OPTIONAL (may be absent or null; *out is NULL then). The old bool "nullable"
 * arguments of the run file reader read as the first two.
 *
 * Example (a reader of a format "thing" with a name and a count):
 *
 *	struct pg_jr jr = { .name = path };
 *	struct json_object *root;
 *	char *buf;
 *	size_t len;
 *	uint64_t count;
 *	const char *name;
 *
 *	err = pg_jr_slurp(path, THING_MAX_BYTES, "for things", &buf, &len);
 *	err = err ?: pg_jr_parse(&jr, "thing", buf, len, &root);
 *	err = err ?: pg_jr_get_str(&jr, root, "", "name", PG_JR_REQUIRED, &name);
 *	err = err ?: pg_jr_get_u64(&jr, root, "", "count", UINT32_MAX, &count);
 *	...
 *	json_object_put(root);
 *	free(buf);
 *
 * A later format version that encodes a value more compactly (a histogram as one string, say)
 * reads the raw value with pg_jr_member()/pg_jr_to_str() and decodes it in the format's
 * reader; the toolkit stays generic.
 */
#ifndef PG_JSON_READ_H
#define PG_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* What is being read, for messages: "NAME: CONTEXT: WHERE: what is wrong". */
struct pg_jr {
	const char *name;	/* the file, or what the caller calls the input */
	const char *context;	/* NULL, or words between the name and the rest, e.g. "not a
				 * usable perfgate compare result" */
};

enum {
	PG_JR_REQUIRED = 0,
	PG_JR_NULLABLE = 1,
	PG_JR_OPTIONAL = 3,	/* absent is fine too (implies nullable) */
};

/* ---- files ---- */

/*
 * A size limit in bytes from environment variable @env, in MiB from 1 to 65536; @default_mb
 * when it is unset or empty, and (after a warning, once per process for each @warned flag)
 * when it is not such a number.
 */
long long pg_jr_limit_env(const char *env, int default_mb, bool *warned);

/*
 * The whole file @path into a malloc'd buffer *out of *len bytes plus a NUL, if it holds at
 * most @max bytes. @limit_note ends the message of a file too large: "cannot read PATH: larger
 * than the limit of N MiB LIMIT_NOTE". Directories are refused (-EISDIR).
 */
int pg_jr_slurp(const char *path, size_t max, const char *limit_note, char **out, size_t *len);

/*
 * Parse @buf[0..len) (buf[len] must be '\0') as one strict JSON document into *out (the
 * caller puts it). Messages give line and column: "invalid JSON at line L, column C: why"; an
 * empty document is "not a @format (it is empty)"; NUL bytes and data after the value are
 * errors.
 */
int pg_jr_parse(const struct pg_jr *jr, const char *format, const char *buf, size_t len,
		struct json_object **out);

/* ---- values ---- */

/* Log "NAME: [CONTEXT: ][WHERE: ]message" and return -EINVAL. @where is a JSON path or "". */
int pg_jr_bad(const struct pg_jr *jr, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Log "NAME: out of memory" and return -ENOMEM. */
int pg_jr_oom(const struct pg_jr *jr);

/* "an integer", "a string", ... for messages. */
const char *pg_jr_type_name(enum json_type t);

/*
 * Value @v (named @what inside @where) must be of type @t, or null with PG_JR_NULLABLE. A
 * json_type_double wanted accepts integers too (every number).
 */
int pg_jr_want(const struct pg_jr *jr, struct json_object *v, const char *where,
	       const char *what, enum json_type t, unsigned int flags);

/* Member @key of object @obj, of type @t (flags above); *out NULL when null or absent. */
int pg_jr_member(const struct pg_jr *jr, struct json_object *obj, const char *where,
		 const char *key, enum json_type t, unsigned int flags, struct json_object **out);

/* An integer in [0, @max]. */
int pg_jr_to_u64(const struct pg_jr *jr, struct json_object *v, const char *where,
		 const char *what, uint64_t max, uint64_t *out);
int pg_jr_get_u64(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, uint64_t max, uint64_t *out);
/* An optional integer in [0, @max]: 0 when absent. */
int pg_jr_opt_u64(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, uint64_t max, uint64_t *out);
/* An integer in [@lo, @hi] (both within int range). */
int pg_jr_get_int(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, int lo, int hi, int *out);
/* A number (integer or fraction); NAN for null and, with PG_JR_OPTIONAL, when absent. */
int pg_jr_get_num(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, double *out);
int pg_jr_get_bool(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, bool *out);

/* A string; NULL for null (and absent, with PG_JR_OPTIONAL). Borrowed from the tree. */
int pg_jr_to_str(const struct pg_jr *jr, struct json_object *v, const char *where,
		 const char *what, unsigned int flags, const char **out);
int pg_jr_get_str(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, const char **out);
/* As pg_jr_get_str(), but *out is a malloc'd copy (NULL for null or absent). */
int pg_jr_dup_str(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, char **out);
/*
 * A string naming one of @n values: *out is the k < @n with @name(k) equal to it. Unknown
 * names are an error.
 */
int pg_jr_get_enum(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, const char *(*name)(int k), int n, int *out);

/*
 * The array of strings @arr (named @key in messages) appended to the string vector *v, *n
 * (core/strv.h). On failure the strings read so far stay in the vector: the caller frees it.
 */
int pg_jr_strv(const struct pg_jr *jr, struct json_object *arr, const char *where,
	       const char *key, char ***v, size_t *n);
/* Member @key, an array of strings (null and absent as @flags allow), into *v, *n. */
int pg_jr_dup_strv(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, unsigned int flags, char ***v, size_t *n);

#endif
