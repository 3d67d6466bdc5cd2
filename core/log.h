/* SPDX-License-Identifier: MIT */
/*
 * core/log.h - the one logging module.
 *
 * Everything perfgate says to a person goes to stderr through these calls; stdout is reserved
 * for reports. Messages are prefixed with "perfgate: " and end with a newline added here.
 * pg_log_level() sets the threshold (default PG_LOG_INFO; --quiet sets PG_LOG_WARN, -v DEBUG).
 *
 * diff/ must not call these (it is pure computation): it returns errors and reasons as strings.
 */
#ifndef PG_LOG_H
#define PG_LOG_H

enum pg_log_level {
	PG_LOG_ERROR = 0,
	PG_LOG_WARN,
	PG_LOG_INFO,
	PG_LOG_DEBUG,
};

void pg_log_set_level(enum pg_log_level level);
enum pg_log_level pg_log_get_level(void);
void pg_log(enum pg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pg_err(...) pg_log(PG_LOG_ERROR, __VA_ARGS__)
#define pg_warn(...) pg_log(PG_LOG_WARN, __VA_ARGS__)
#define pg_info(...) pg_log(PG_LOG_INFO, __VA_ARGS__)
#define pg_debug(...) pg_log(PG_LOG_DEBUG, __VA_ARGS__)

#endif
