/* SPDX-License-Identifier: MIT */
/*
 * runner/select/objects.h - the ELF objects a benchmark's processes really ran: the files their
 * address spaces mapped, as the sampler saw them (runner/profile/sampler.h), whatever the command
 * line named. A wrapper script, `env`, `sh -c` or a test runner in front of the program, or a
 * library of the build tree that shadows an installed one of the same name, all end up here as
 * the files the kernel mapped.
 *
 * Invariants: every path is absolute and canonical as /proc/PID/maps gives it, in v[] once;
 * self counts the samples whose innermost user frame lies in the object (samples_user of all
 * of them over the objects); reps counts the repetitions in which some sampled process mapped
 * it, last_rep the number (1-based) of the last one.
 *
 * Life cycle and ownership: zero-initialise (PG_OBJECTS_INIT), pg_objects_note() and
 * pg_objects_count_self() while samples come in, read, pg_objects_release(). The set owns its
 * strings.
 *
 *	struct pg_objects objs = PG_OBJECTS_INIT;
 *	struct pg_object *o = pg_objects_note(&objs, "/build/.libs/libjq.so.1.0.4", id, false, 1);
 *	...
 *	const struct pg_object *lib = pg_objects_by_name(&objs, "libjq.so.1");
 *	pg_objects_release(&objs);
 */
#ifndef PG_OBJECTS_H
#define PG_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_object {
	char *path;		/* as mapped */
	char *build_id;		/* hex, or NULL when the file has none */
	uint64_t self;		/* samples whose innermost user frame is here */
	uint64_t ran;		/* samples of processes that ran it as their program */
	uint32_t reps, last_rep;
	bool exe;		/* the main program of some process (its /proc/PID/exe) */
	uint8_t sides;		/* bit 1 << side: the sides (pg_sampler_set_side(); perfgate ab:
				 * 0 base, 1 new) whose processes mapped it; 0 when unknown */
};

struct pg_objects {
	struct pg_object *v;
	size_t n, alloc;
	uint64_t samples_user;	/* samples with a user frame in some object */
};

#define PG_OBJECTS_INIT { 0 }

void pg_objects_release(struct pg_objects *s);

/*
 * The entry of @path (added if new, @build_id copied, may be NULL), marked mapped in
 * repetition @rep (1-based; 0: no repetition) and as an executable when @exe. NULL: -ENOMEM.
 */
struct pg_object *pg_objects_note(struct pg_objects *s, const char *path, const char *build_id,
				  bool exe, uint32_t rep);

/* Add @n samples to the self count of @path (added if new). 0 or -ENOMEM. */
int pg_objects_count_self(struct pg_objects *s, const char *path, uint64_t n);

/* Add @n samples to the count of the program @path ran as (added if new). 0 or -ENOMEM. */
int pg_objects_count_ran(struct pg_objects *s, const char *path, uint64_t n);

/* A copy of @from into @to (initialised, empty). 0 or -ENOMEM (@to released). */
int pg_objects_copy(struct pg_objects *to, const struct pg_objects *from);

/*
 * Does the file name @base answer to @name as a library name does: equal, or @name followed
 * by '.' ("libjq.so.1" and "libjq" answer to "libjq.so.1.0.4")?
 */
bool pg_object_name_matches(const char *base, const char *name);

/*
 * The object whose base name answers to @name (pg_object_name_matches(); @name without a
 * '/'), the one with the most samples when several do; NULL when none.
 */
const struct pg_object *pg_objects_by_name(const struct pg_objects *s, const char *name);

/* The entry of exactly @path, or NULL. */
const struct pg_object *pg_objects_find(const struct pg_objects *s, const char *path);

/*
 * A file of the system rather than of the project: under /lib, /lib64, /usr/lib, /usr/lib64,
 * /usr/libexec, /bin, /sbin, /usr/bin or /usr/sbin (the C runtime, the loader, libstdc++,
 * libm, the shell and env of a wrapper), or no file at all ("[vdso]").
 */
bool pg_object_is_system(const char *path);

/*
 * Which objects a default selection takes its functions from (docs/recording.md, "Which
 * code is the project's"): a project object holding at least PG_PROJECT_MIN_SHARE of the
 * user samples as its own, and a system object only when it holds PG_SYSTEM_MIN_SHARE.
 * Sets take[i] per object; returns how many are taken.
 */
#define PG_PROJECT_MIN_SHARE 0.005
#define PG_SYSTEM_MIN_SHARE 0.10
size_t pg_objects_candidates(const struct pg_objects *s, bool *take);

#endif
