// SPDX-License-Identifier: MIT
/* core/version.c - the version string (core/version.h), set by the Makefile from VERSION. */
#include "version.h"

/* a build outside the Makefile says so rather than claim a release */
#ifndef PG_VERSION_STRING
#define PG_VERSION_STRING "unknown"
#endif

const char pg_version[] = PG_VERSION_STRING;
