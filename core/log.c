// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static enum pg_log_level threshold = PG_LOG_INFO;

void pg_log_set_level(enum pg_log_level level)
{
	threshold = level;
}

enum pg_log_level pg_log_get_level(void)
{
	return threshold;
}

void pg_log(enum pg_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level > threshold)
		return;
	fprintf(stderr, "perfgate: %s", prefix[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
