/* SPDX-License-Identifier: MIT */
/*
 * core/version.h - perfgate's version, one string for the program, its run files and reports.
 *
 * The number comes from the file VERSION at the top of the source tree (the release: X.Y.Z),
 * compiled into core/version.c by the Makefile. A build from a git checkout appends what
 * `git describe` says of it, "0.1.0 (git v0.1.0-3-gda979fd-dirty)", unless HEAD is the
 * release's tag vX.Y.Z; a build from the release tarball (make dist) carries the string the
 * tarball was made with.
 */
#ifndef PG_VERSION_H
#define PG_VERSION_H

/* "X.Y.Z" or "X.Y.Z (git DESCRIBE)": static, never NULL */
extern const char pg_version[];

#define PERFGATE_VERSION pg_version

#endif
