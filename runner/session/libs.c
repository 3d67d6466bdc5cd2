// SPDX-License-Identifier: MIT
/*
 * runner/session/libs.c - the shared libraries a run's processes loaded, with their build-ids
 * and Debian packages (libs.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "../../core/env.h"
#include "../../core/log.h"
#include "../probes/excfix.h"
#include "libs.h"

/* Does @s hold only ".DIGITS" groups ("", ".6", ".1.0.4")? */
static bool version_suffix(const char *s)
{
	while (*s == '.' && s[1] >= '0' && s[1] <= '9')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return !*s;
}

/* Is @path a shared object by its name: "NAME.so" or "NAME.so.VERSION"? */
static bool is_shared_name(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	base = base ? base + 1 : path;
	if (!strcmp(base, PG_PRELOAD_NAME))
		return false;
	for (so = strstr(base, ".so"); so; so = strstr(so + 1, ".so"))
		if (so != base && version_suffix(so + 3))
			return true;
	return false;
}

/*
 * The DT_SONAME of the ELF file @path in *@soname and its GNU build-id in hex in *@build_id
 * (malloc'd; each NULL when the file has none or is unreadable).
 */
static void elf_facts(const char *path, char **soname, char **build_id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	const unsigned char *bits;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&bits) : -1;

	*soname = *build_id = NULL;
	if (len > 0 && (*build_id = malloc(2 * (size_t)len + 1)))
		for (ssize_t i = 0; i < len; i++)
			snprintf(*build_id + 2 * i, 3, "%02x", bits[i]);
	while (elf && !*soname && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_SONAME)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			/* a name, fit for a key of the environment (core/run.h) */
			if (s && *s && !strpbrk(s, "/= "))
				*soname = strdup(s);
			break;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/*
 * The form of @path that a package's list may name under merged /usr ("/usr/lib/x" was
 * installed as "/lib/x"), or NULL.
 */
static const char *unmerged(const char *path)
{
	static const char *const dirs[] = { "/usr/lib/", "/usr/lib32/", "/usr/lib64/",
					    "/usr/libx32/", "/usr/bin/", "/usr/sbin/" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return path + strlen("/usr");
	return NULL;
}

/*
 * Note @pkg as the owner of each of @paths (of lengths @lens) a line of the list @f names.
 * 0 or -ENOMEM.
 */
static int scan_list(FILE *f, const char *pkg, char *const *paths, const size_t *lens, size_t n,
		     char **pkgs)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		for (size_t i = 0; i < n && !err; i++) {
			const char *alt = unmerged(paths[i]);

			/* the lengths first: most lines are of other lengths */
			if ((lens[i] != (size_t)len || strcmp(line, paths[i])) &&
			    (!alt || lens[i] != (size_t)len + strlen("/usr") || strcmp(line, alt)))
				continue;
			if (pkgs[i] && strcmp(pkgs[i], pkg) <= 0)
				continue;
			free(pkgs[i]);
			pkgs[i] = strdup(pkg);
			err = pkgs[i] ? 0 : -ENOMEM;
		}
	}
	free(line);
	return err;
}

/* pkgs[i]: the package whose ADMINDIR/info/PACKAGE.list names paths[i]. 0 or -ENOMEM. */
static int find_owners(const char *admindir, char *const *paths, size_t n, char **pkgs)
{
	char dir[4096], file[4096 + 256];
	size_t *lens;
	DIR *d;
	struct dirent *e;
	int err = 0;

	snprintf(dir, sizeof(dir), "%s/info", admindir);
	d = opendir(dir);
	if (!d)
		return 0;	/* not a Debian system: unknown */
	lens = calloc(n + 1, sizeof(*lens));
	if (!lens) {
		closedir(d);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(paths[i]);
	while (!err && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char pkg[256];
		FILE *f;

		if (len <= 5 || len - 5 >= sizeof(pkg) || strcmp(e->d_name + len - 5, ".list"))
			continue;
		snprintf(pkg, sizeof(pkg), "%.*s", (int)(len - 5), e->d_name);
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		err = scan_list(f, pkg, paths, lens, n, pkgs);
		fclose(f);
	}
	closedir(d);
	free(lens);
	return err;
}

/* Does the stanza's Package @name and Architecture @arch answer to @pkg ("name[:arch]")? */
static bool stanza_is(const char *pkg, const char *name, const char *arch)
{
	size_t n = strcspn(pkg, ":");

	return strlen(name) == n && !strncmp(pkg, name, n) &&
	       (!pkg[n] || !strcmp(pkg + n + 1, arch));
}

/* One stanza of the status file ended: set the version of each package it is. 0 or -ENOMEM. */
static int end_stanza(char *const *pkgs, char **versions, size_t n, const char *name,
		      const char *arch, const char *version, bool installed)
{
	for (size_t i = 0; installed && *name && *version && i < n; i++) {
		if (!pkgs[i] || versions[i] || !stanza_is(pkgs[i], name, arch))
			continue;
		versions[i] = strdup(version);
		if (!versions[i])
			return -ENOMEM;
	}
	return 0;
}

/* versions[i]: the installed version of pkgs[i], from ADMINDIR/status. 0 or -ENOMEM. */
static int find_versions(const char *admindir, char *const *pkgs, size_t n, char **versions)
{
	char path[4096], name[256] = "", arch[64] = "", version[256] = "";
	char *line = NULL;
	size_t cap = 0;
	bool installed = false;
	ssize_t len;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/status", admindir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line) {
			err = end_stanza(pkgs, versions, n, name, arch, version, installed);
			name[0] = arch[0] = version[0] = '\0';
			installed = false;
		} else if (!strncmp(line, "Package: ", 9)) {
			snprintf(name, sizeof(name), "%s", line + 9);
		} else if (!strncmp(line, "Architecture: ", 14)) {
			snprintf(arch, sizeof(arch), "%s", line + 14);
		} else if (!strncmp(line, "Version: ", 9)) {
			snprintf(version, sizeof(version), "%s", line + 9);
		} else if (!strncmp(line, "Status: ", 8)) {
			len = (ssize_t)strlen(line);
			installed = len >= 10 && !strcmp(line + len - 10, " installed");
		}
	}
	err = err ?: end_stanza(pkgs, versions, n, name, arch, version, installed);
	free(line);
	fclose(f);
	return err;
}

int pg_dpkg_lookup(const char *admindir, char *const *paths, size_t n, char **pkgs,
		   char **versions)
{
	memset(pkgs, 0, n * sizeof(*pkgs));
	memset(versions, 0, n * sizeof(*versions));
	return find_owners(admindir, paths, n, pkgs) ?: find_versions(admindir, pkgs, n, versions);
}

/* Set the entry of the library at @path unless its soname has one. 0 or -ENOMEM. */
static int add_lib(struct pg_meta *m, const char *path, const char *build_id, const char *pkg,
		   const char *version)
{
	char *soname, *file_id, *key = NULL, *value = NULL;
	const char *base = strrchr(path, '/');
	int err = 0;

	/* the build-id the sampler read from the mapping, else the file's */
	elf_facts(path, &soname, &file_id);
	if (!build_id)
		build_id = file_id;

	if (asprintf(&key, "%s%s", PG_ENV_LIB_PREFIX, soname ? soname : base ? base + 1 : path) < 0)
		key = NULL;
	if (key && !strchr(key, '=') && !pg_env_get(m, key)) {
		value = pg_env_lib_value(pkg, version, build_id, path);
		err = value ? pg_env_set(m, key, value) : -ENOMEM;
	}
	if (!key)
		err = -ENOMEM;
	free(soname);
	free(file_id);
	free(key);
	free(value);
	return err;
}

int pg_meta_libraries(struct pg_meta *m, const struct pg_objects *objs, int side,
		      const char *admindir)
{
	char **paths = calloc(objs->n + 1, sizeof(*paths));
	char **pkgs = calloc(objs->n + 1, sizeof(*pkgs));
	char **versions = calloc(objs->n + 1, sizeof(*versions));
	const struct pg_object **of = calloc(objs->n + 1, sizeof(*of));
	size_t n = 0;
	int err = paths && pkgs && versions && of ? 0 : -ENOMEM;

	elf_version(EV_CURRENT);
	for (size_t i = 0; !err && i < objs->n; i++) {
		const struct pg_object *o = &objs->v[i];

		if (o->exe || !(o->sides & (1u << side)) || !is_shared_name(o->path))
			continue;
		of[n] = o;
		paths[n++] = o->path;
	}
	err = err ?: pg_dpkg_lookup(admindir ? admindir : PG_DPKG_ADMINDIR, paths, n, pkgs,
				    versions);
	for (size_t i = 0; !err && i < n; i++)
		err = add_lib(m, paths[i], of[i]->build_id, pkgs[i], versions[i]);
	for (size_t i = 0; pkgs && versions && i < n; i++) {
		free(pkgs[i]);
		free(versions[i]);
	}
	free(paths);
	free(pkgs);
	free(versions);
	free(of);
	if (err)
		pg_err("cannot list the shared libraries of the run: out of memory");
	return err;
}
