/* SPDX-License-Identifier: MIT */
/*
 * runner/probes/excfix.h - the C++ exception fix, perfgate's side (docs/recording.md).
 *
 * A return probe replaces the traced function's return address with the uretprobe trampoline,
 * which the C++ unwinder cannot step over. With the fix, the entry probes publish each
 * thread's traced return addresses in the mmapable BPF map `rets` (bpf/perfgate.h), and the
 * benchmark runs with libperfgate-preload.so preloaded (runner/probes/preload/preload.c) and a
 * descriptor of that map, which it maps read-only: the library puts the real addresses back
 * while an exception unwinds and the trampoline back once it is caught.
 *
 * perfgate finds the library (pg_excfix_find) and sets publish_rets before loading the BPF
 * object. Once the probes are calibrated, pg_excfix_open() empties the map and freezes it
 * (user space can no longer update it or map it writable; the BPF programs still write: a
 * descriptor opened read-only cannot be mmapped at all), and prepares the benchmark's
 * environment: LD_PRELOAD=LIB[:previous LD_PRELOAD], PERFGATE_RETS_FD, PERFGATE_RETS_MAP_ID.
 * The forked child calls pg_excfix_child() after switching user and execs with what it returns.
 */
#ifndef PG_EXCFIX_H
#define PG_EXCFIX_H

#include <stdbool.h>
#include <stddef.h>

#define PG_PRELOAD_NAME "libperfgate-preload.so"

/* All fields are valid only while envp is not NULL (the fix is on); zeroed means off. */
struct pg_excfix {
	char *lib;		/* canonical path of the preload library */
	int fd;			/* a descriptor of the frozen map, close-on-exec in perfgate */
	char **envp;		/* the benchmark's environment with the fix */
};

/*
 * The preload library: $PERFGATE_PRELOAD, else libperfgate-preload.so in build/ of the
 * directory of perfgate's executable, in that directory, in ../lib/perfgate/ from it (an
 * installed tree, wherever it was installed), then in PG_LIBDIR (where `make install` put it:
 * $(PREFIX)/lib/perfgate). A malloc'd canonical path, or NULL when there is none (logged at
 * debug level).
 */
char *pg_excfix_find(void);

/*
 * Can C++ exceptions unwind through the functions of @binary? 1 when it links a C++ runtime
 * (DT_NEEDED libstdc++ or libc++) or carries C++ exception tables (.gcc_except_table); 0 when
 * not; -errno when it cannot be read. perfgate turns the fix on only when one of the traced
 * binaries wants it (or with --exception-fix): it costs every traced call a little.
 */
int pg_excfix_binary_wants(const char *binary);

/*
 * Turn the fix on for the loaded map `rets` (@map_fd, perfgate's descriptor) with the library
 * @lib, after the calibration ran and before the benchmark's first run: empty the map (what
 * perfgate's calibration child published), freeze it and prepare the environment. 0, or
 * -errno (logged at debug level) and the fix stays off.
 */
int pg_excfix_open(struct pg_excfix *x, const char *lib, int map_fd);
void pg_excfix_release(struct pg_excfix *x);

/*
 * The environment @base (NULL-terminated) with the fix's variables: LD_PRELOAD=@lib, followed
 * by ':' and the LD_PRELOAD of @base if it has one, PERFGATE_RETS_FD=@fd and
 * PERFGATE_RETS_MAP_ID=@id, replacing any earlier values. malloc'd strings in a malloc'd
 * array, for pg_excfix_free_env(); NULL when out of memory.
 */
char **pg_excfix_env(char *const *base, const char *lib, int fd, unsigned int id);
void pg_excfix_free_env(char **envp);

/*
 * In the forked child, after it switched user: make the descriptor inheritable and return
 * the environment to exec with: x->envp when the fix is on and this user can read the
 * library, else environ (*unreadable tells the latter reason: ld.so would print an error
 * into the benchmark's output). Async-signal-safe.
 */
char **pg_excfix_child(const struct pg_excfix *x, bool *unreadable);

#endif
