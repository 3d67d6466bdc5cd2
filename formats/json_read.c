// SPDX-License-Identifier: MIT
/* formats/json_read.c - the bounded JSON reading toolkit (formats/json_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/alloc.h"
#include "../core/log.h"
#include "../core/strv.h"
#include "json_read.h"

/* ---- files ---- */

long long pg_jr_limit_env(const char *env, int default_mb, bool *warned)
{
	const char *s = getenv(env);
	unsigned long long mb;
	char *end;

	if (!s || !*s)
		return (long long)default_mb << 20;
	errno = 0;
	mb = strtoull(s, &end, 10);
	if (errno || *end || *s == '-' || mb < 1 || mb > 65536) {
		if (!*warned)
			pg_warn("%s='%s' is not a size in MiB from 1 to 65536: using %d", env, s,
				default_mb);
		*warned = true;
		return (long long)default_mb << 20;
	}
	return (long long)mb << 20;
}

int pg_jr_slurp(const char *path, size_t max, const char *limit_note, char **out, size_t *outlen)
{
	size_t len = 0, cap = 0, want;
	struct stat st;
	char *buf = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pg_err("cannot read %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		pg_err("cannot read %s: %s", path, strerror(-err));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		pg_err("cannot read %s: it is a directory", path);
		err = -EISDIR;
		goto out;
	}
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
		goto too_big;
	/* room for the file, a NUL and one more byte to see the end of the file */
	want = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 64 * 1024;
	for (;;) {
		ssize_t got;

		if (len + 1 >= cap) {
			if (len > max)
				goto too_big;
			if (PG_ALLOC_GROW(buf, len + 1 >= want ? len + 2 : want, cap)) {
				err = -ENOMEM;
				pg_err("cannot read %s: out of memory", path);
				goto out;
			}
		}
		got = read(fd, buf + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			pg_err("cannot read %s: %s", path, strerror(-err));
			goto out;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	if (len > max)
		goto too_big;
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	goto out;
too_big:
	pg_err("cannot read %s: larger than the limit of %zu MiB %s", path, max >> 20, limit_note);
	err = -EFBIG;
out:
	free(buf);
	close(fd);
	return err;
}

/* Line and column (from 1, in bytes) of offset @off of @buf. */
static void position(const char *buf, size_t off, unsigned long *line, unsigned long *col)
{
	const char *nl;

	*line = 1;
	*col = off + 1;
	for (const char *p = buf; (nl = memchr(p, '\n', (size_t)(buf + off - p))); p = nl + 1) {
		(*line)++;
		*col = (size_t)(buf + off - nl);
	}
}

int pg_jr_parse(const struct pg_jr *jr, const char *format, const char *buf, size_t len,
		struct json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	unsigned long line, col;
	const char *nul = memchr(buf, '\0', len), *what;
	size_t end;

	*out = NULL;
	if (len == strspn(buf, " \t\r\n"))
		return pg_jr_bad(jr, "", "not a %s (it is empty)", format);
	if (nul) {
		position(buf, (size_t)(nul - buf), &line, &col);
		return pg_jr_bad(jr, "", "invalid JSON at line %lu, column %lu: NUL byte", line,
				 col);
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok)
		return pg_jr_oom(jr);
	/* trailing data is checked below, with a clearer message than json-c's */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	*out = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		/* a top-level number may go on: end it with the NUL terminator */
		*out = json_tokener_parse_ex(tok, buf + len, 1);
		jerr = json_tokener_get_error(tok);
		end = len;
		if (jerr != json_tokener_success) {
			json_tokener_free(tok);
			position(buf, len, &line, &col);
			return pg_jr_bad(jr, "", "invalid JSON: unexpected end of file at line "
					 "%lu, column %lu (is the file truncated?)", line, col);
		}
	}
	json_tokener_free(tok);
	if (jerr == json_tokener_success) {
		/* json-c stops after the value: anything but white space may follow */
		end += strspn(buf + end, " \t\r\n");
		if (end == len)
			return 0;
		json_object_put(*out);
		*out = NULL;
		what = "unexpected data after the end of the top-level value";
	} else {
		what = json_tokener_error_desc(jerr);
	}
	position(buf, end, &line, &col);
	return pg_jr_bad(jr, "", "invalid JSON at line %lu, column %lu: %s", line, col, what);
}

/* ---- values ---- */

int pg_jr_bad(const struct pg_jr *jr, const char *where, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pg_err("%s: %s%s%s%s%s", jr->name, jr->context ? jr->context : "",
	       jr->context ? ": " : "", where, *where ? ": " : "", msg);
	return -EINVAL;
}

int pg_jr_oom(const struct pg_jr *jr)
{
	pg_err("%s: out of memory", jr->name);
	return -ENOMEM;
}

const char *pg_jr_type_name(enum json_type t)
{
	switch (t) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a fractional number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "unknown";
}

int pg_jr_want(const struct pg_jr *jr, struct json_object *v, const char *where,
	       const char *what, enum json_type t, unsigned int flags)
{
	enum json_type vt = json_object_get_type(v);
	bool nullable = flags & PG_JR_NULLABLE;

	if (vt == t || (nullable && vt == json_type_null))
		return 0;
	if (t == json_type_double && vt == json_type_int)
		return 0;
	return pg_jr_bad(jr, where, "%s must be %s%s, not %s", what,
			 t == json_type_double ? "a number" : pg_jr_type_name(t),
			 nullable ? " or null" : "", pg_jr_type_name(vt));
}

int pg_jr_member(const struct pg_jr *jr, struct json_object *obj, const char *where,
		 const char *key, enum json_type t, unsigned int flags, struct json_object **out)
{
	char what[64];

	if (!json_object_object_get_ex(obj, key, out)) {
		*out = NULL;
		if ((flags & PG_JR_OPTIONAL) == PG_JR_OPTIONAL)
			return 0;
		return pg_jr_bad(jr, where, "\"%s\" is missing", key);
	}
	snprintf(what, sizeof(what), "\"%s\"", key);
	return pg_jr_want(jr, *out, where, what, t, flags);
}

int pg_jr_to_u64(const struct pg_jr *jr, struct json_object *v, const char *where,
		 const char *what, uint64_t max, uint64_t *out)
{
	int err = pg_jr_want(jr, v, where, what, json_type_int, PG_JR_REQUIRED);

	if (err)
		return err;
	if (json_object_get_int64(v) < 0)
		return pg_jr_bad(jr, where, "%s must not be negative (it is %" PRId64 ")", what,
				 json_object_get_int64(v));
	*out = json_object_get_uint64(v);
	if (*out > max)
		return pg_jr_bad(jr, where, "%s is out of range (%" PRIu64 " > %" PRIu64 ")", what,
				 *out, max);
	return 0;
}

int pg_jr_get_u64(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, uint64_t max, uint64_t *out)
{
	struct json_object *v;
	char what[64];
	int err = pg_jr_member(jr, obj, where, key, json_type_int, PG_JR_REQUIRED, &v);

	if (err)
		return err;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return pg_jr_to_u64(jr, v, where, what, max, out);
}

int pg_jr_opt_u64(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, uint64_t max, uint64_t *out)
{
	struct json_object *v;
	char what[64];

	*out = 0;
	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return pg_jr_to_u64(jr, v, where, what, max, out);
}

int pg_jr_get_int(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, int lo, int hi, int *out)
{
	struct json_object *v;
	int64_t x;
	int err = pg_jr_member(jr, obj, where, key, json_type_int, PG_JR_REQUIRED, &v);

	if (err)
		return err;
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return pg_jr_bad(jr, where, "\"%s\" is out of range (%" PRId64 " is not in %d..%d)",
				 key, x, lo, hi);
	*out = (int)x;
	return 0;
}

int pg_jr_get_num(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, double *out)
{
	struct json_object *v;
	int err = pg_jr_member(jr, obj, where, key, json_type_double, flags, &v);

	*out = !err && v ? json_object_get_double(v) : NAN;
	return err;
}

int pg_jr_get_bool(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, bool *out)
{
	struct json_object *v;
	int err = pg_jr_member(jr, obj, where, key, json_type_boolean, PG_JR_REQUIRED, &v);

	*out = !err && json_object_get_boolean(v);
	return err;
}

int pg_jr_to_str(const struct pg_jr *jr, struct json_object *v, const char *where,
		 const char *what, unsigned int flags, const char **out)
{
	int err = pg_jr_want(jr, v, where, what, json_type_string, flags);

	*out = NULL;
	if (err || !v)
		return err;
	*out = json_object_get_string(v);
	if (strlen(*out) != (size_t)json_object_get_string_len(v))
		return pg_jr_bad(jr, where, "%s contains a NUL character", what);
	return 0;
}

int pg_jr_get_str(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, const char **out)
{
	struct json_object *v;
	char what[64];
	int err = pg_jr_member(jr, obj, where, key, json_type_string, flags, &v);

	*out = NULL;
	if (err || !v)
		return err;
	snprintf(what, sizeof(what), "\"%s\"", key);
	return pg_jr_to_str(jr, v, where, what, flags, out);
}

int pg_jr_dup_str(const struct pg_jr *jr, struct json_object *obj, const char *where,
		  const char *key, unsigned int flags, char **out)
{
	const char *s;
	int err = pg_jr_get_str(jr, obj, where, key, flags, &s);

	*out = NULL;
	if (err || !s)
		return err;
	*out = strdup(s);
	return *out ? 0 : pg_jr_oom(jr);
}

int pg_jr_get_enum(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, const char *(*name)(int k), int n, int *out)
{
	const char *s;
	int err = pg_jr_get_str(jr, obj, where, key, PG_JR_REQUIRED, &s);

	if (err)
		return err;
	for (int k = 0; k < n; k++) {
		if (!strcmp(s, name(k))) {
			*out = k;
			return 0;
		}
	}
	return pg_jr_bad(jr, where, "unknown \"%s\" \"%.40s\"", key, s);
}

int pg_jr_strv(const struct pg_jr *jr, struct json_object *arr, const char *where,
	       const char *key, char ***v, size_t *n)
{
	size_t len = json_object_array_length(arr);

	for (size_t i = 0; i < len; i++) {
		char what[80];
		const char *s;
		int err;

		snprintf(what, sizeof(what), "\"%s\"[%zu]", key, i);
		err = pg_jr_to_str(jr, json_object_array_get_idx(arr, i), where, what,
				   PG_JR_REQUIRED, &s);
		if (err)
			return err;
		if (pg_strv_push(v, n, s))
			return pg_jr_oom(jr);
	}
	return 0;
}

int pg_jr_dup_strv(const struct pg_jr *jr, struct json_object *obj, const char *where,
		   const char *key, unsigned int flags, char ***v, size_t *n)
{
	struct json_object *arr;
	int err = pg_jr_member(jr, obj, where, key, json_type_array, flags, &arr);

	if (err || !arr)
		return err;
	return pg_jr_strv(jr, arr, where, key, v, n);
}
