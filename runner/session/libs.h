/* SPDX-License-Identifier: MIT */
/*
 * runner/session/libs.h - the shared libraries a run's processes loaded, as entries of its
 * environment (core/env.h: "lib.SONAME" = "PACKAGE VERSION BUILD_ID PATH"), so that compare can
 * say when two runs ran against different builds of a library.
 *
 * The libraries are the objects the sampler saw mapped (runner/select/objects.h): a run
 * recorded without samples (-F 0, --no-sample) has none. Each one's Debian package comes from
 * dpkg's database, read directly (no dpkg-query): the file lists of the packages
 * (ADMINDIR/info/PACKAGE.list) say which owns the path, under merged /usr its form without the
 * "/usr" too, and ADMINDIR/status its installed version. A library no package owns (a build
 * tree's, a copy) has package and version "-", and is told apart by its build-id.
 *
 *	err = pg_meta_libraries(&run->meta, pg_sampler_objects(sampler), 0);
 */
#ifndef PG_LIBS_H
#define PG_LIBS_H

#include <stddef.h>

#include "../../core/run.h"
#include "../select/objects.h"

/* dpkg's database on Debian and its derivatives */
#define PG_DPKG_ADMINDIR "/var/lib/dpkg"

/*
 * Add to @m's environment the entry of each shared object in @objs that processes of side
 * @side (0 for perfgate record; perfgate ab: 0 base, 1 new) mapped, other than a program and
 * perfgate's own preload library. Two objects of one soname: the first in @objs's order is
 * kept. The database is read from @admindir (NULL: PG_DPKG_ADMINDIR); none there leaves the
 * packages unknown. 0 or -ENOMEM.
 */
int pg_meta_libraries(struct pg_meta *m, const struct pg_objects *objs, int side,
		      const char *admindir);

/*
 * The Debian package that owns each of @paths[0..n) ("libc6:amd64", as its list is named;
 * the smallest name when several lists name the path) and its installed version, from
 * @admindir: sets pkgs[i] and versions[i] (malloc'd; NULL when unknown). 0 or -ENOMEM.
 */
int pg_dpkg_lookup(const char *admindir, char *const *paths, size_t n, char **pkgs,
		   char **versions);

#endif
