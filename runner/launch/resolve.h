/* SPDX-License-Identifier: MIT */
/*
 * runner/launch/resolve.h - finding the files a recording needs.
 *
 * Both return a malloc'd absolute, canonical path (the caller frees it), or NULL after logging
 * one line that says what was not found and where perfgate looked.
 */
#ifndef PG_RESOLVE_H
#define PG_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

/* The executable that execvp(@argv0) would run: a path, or the first match on $PATH. */
char *pg_resolve_command(const char *argv0);
/* The same, silent: NULL when there is none. */
char *pg_find_command(const char *argv0);

/*
 * Where the program of the command @argv (NULL-terminated) starts, as a shell and env(1) see
 * it: after leading NAME=value words, and after `env NAME=value...` (env without options).
 * The index of the program's word; *@nassign: how many assignments come before it (they are
 * argv's words other than "env", in order). A command of assignments only: its word count.
 */
size_t pg_command_env(char *const *argv, size_t *nassign);

/*
 * Put the NAME=value words of @assign[0..n) (a command's words before its program: "env" is
 * passed over) into this process's environment, as the shell would for the program: in a
 * forked child, before it execs. The strings are borrowed by the environment.
 */
void pg_command_putenv(char *const *assign, size_t n);

/* The program word of @argv (pg_command_env()): "" for a command of assignments only. */
const char *pg_command_program(char *const *argv);

/*
 * The ELF file named by @spec in a -f/-x BINARY: prefix. A spec with a '/' is a path. Otherwise
 * it is the executable itself when it equals its base name, else a shared library name such as
 * "libsqlite3.so.0" (or a prefix of it up to a '.', "libsqlite3", or the name of the file the
 * loader's path leads to, "libsqlite3.so.0.8.6"), resolved as the dynamic loader resolves it
 * for @exe: from `INTERP --list EXE` (the loader's own answer, RUNPATH and ld.so.cache
 * included), then $LD_LIBRARY_PATH and the system library directories.
 * @interp is the executable's PT_INTERP (NULL for a static executable).
 */
char *pg_resolve_binary(const char *spec, const char *exe, const char *interp);
/* The same, silent: NULL when not found (for callers with a fallback of their own). */
char *pg_find_binary(const char *spec, const char *exe, const char *interp);

/*
 * Resolve libraries as the benchmark's loader would with its command's NAME=value words
 * (@assign, @n: runner/launch/launch.h's assign, borrowed until the next call; NULL, 0: none): its
 * LD_LIBRARY_PATH, say, for `ld.so --list` and the search of $LD_LIBRARY_PATH.
 */
void pg_resolve_env(char *const *assign, size_t n);

/*
 * Run @argv (argv[0] a path) with the environment pg_resolve_env() gave, and capture its stdout
 * into a malloc'd string; NULL on failure.
 */
char *pg_capture(char *const argv[]);

#endif
