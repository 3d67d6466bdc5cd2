// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <gelf.h>
#include <libelf.h>

#include "../../bpf/perfgate.h"
#include "../../core/log.h"
#include "excfix.h"

extern char **environ;

/* The environment variables the fix sets; any earlier value is replaced. */
static const char *const fix_vars[] = { "LD_PRELOAD=", "PERFGATE_RETS_FD=",
					"PERFGATE_RETS_MAP_ID=" };
#define NVARS (sizeof(fix_vars) / sizeof(fix_vars[0]))

/*
 * Where `make install` puts the library (Makefile: $(PKGLIBDIR)), compiled in; the build tree
 * and an installed tree moved elsewhere are found next to the executable first.
 */
#ifndef PG_LIBDIR
#define PG_LIBDIR "/usr/local/lib/perfgate"
#endif

char *pg_excfix_find(void)
{
	const char *env = getenv("PERFGATE_PRELOAD");
	char exe[PATH_MAX], cand[PATH_MAX + 64], *slash, *path;
	/* relative to the executable's directory: a build tree, the same directory, an installed
	 * tree (bin/ and lib/perfgate/ side by side); then the compiled-in directory */
	static const char *const below[] = { "/build", "", "/../lib/perfgate" };
	ssize_t n;

	if (env && *env) {
		path = realpath(env, NULL);
		if (!path)
			pg_debug("PERFGATE_PRELOAD=%s: %s: the C++ exception fix is off", env,
				 strerror(errno));
		return path;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (size_t k = 0; k <= sizeof(below) / sizeof(below[0]); k++) {
		if (k < sizeof(below) / sizeof(below[0]))
			snprintf(cand, sizeof(cand), "%s%s/%s", exe, below[k], PG_PRELOAD_NAME);
		else
			snprintf(cand, sizeof(cand), "%s/%s", PG_LIBDIR, PG_PRELOAD_NAME);
		if (!access(cand, R_OK))
			return realpath(cand, NULL);
	}
	pg_debug("no %s in %s, %s/build, %s/../lib/perfgate or %s: the C++ exception fix is off",
		 PG_PRELOAD_NAME, exe, exe, exe, PG_LIBDIR);
	return NULL;
}

void pg_excfix_free_env(char **envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		free(envp[i]);
	free(envp);
}

char **pg_excfix_env(char *const *base, const char *lib, int fd, unsigned int id)
{
	const char *old = NULL;
	size_t n = 0, k = 0;
	char **envp;
	int err;

	while (base[n])
		n++;
	envp = calloc(n + NVARS + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool ours = false;

		for (size_t v = 0; v < NVARS; v++) {
			if (strncmp(base[i], fix_vars[v], strlen(fix_vars[v])))
				continue;
			ours = true;
			if (!v && !old)	/* the first, as getenv() */
				old = base[i] + strlen(fix_vars[0]);
		}
		if (ours)
			continue;
		envp[k] = strdup(base[i]);
		if (!envp[k++])
			goto fail;
	}
	err = asprintf(&envp[k++], "%s%s%s%s", fix_vars[0], lib, old && *old ? ":" : "",
		       old ? old : "");
	err = err < 0 ? err : asprintf(&envp[k++], "%s%d", fix_vars[1], fd);
	err = err < 0 ? err : asprintf(&envp[k++], "%s%u", fix_vars[2], id);
	if (err >= 0)
		return envp;
	envp[k - 1] = NULL;	/* asprintf leaves it undefined */
fail:
	pg_excfix_free_env(envp);
	return NULL;
}

int pg_excfix_open(struct pg_excfix *x, const char *lib, int map_fd)
{
	struct bpf_map_info info = { 0 };
	struct pg_bpf_rets zero = { 0 };
	__u32 len = sizeof(info);
	int err = 0;

	memset(x, 0, sizeof(*x));
	if (strpbrk(lib, ": ")) {	/* the separators of LD_PRELOAD */
		pg_debug("%s: a path with ':' or ' ' cannot be preloaded: the C++ exception fix "
			 "is off", lib);
		return -EINVAL;
	}
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		err = -errno;
	/* what the calibration child (a fork of perfgate) published is none of its business */
	for (__u32 i = 0; !err && i < PG_RETS_THREADS; i++)
		if (bpf_map_update_elem(map_fd, &i, &zero, BPF_ANY))
			err = -errno;
	/*
	 * Read-only for user space from now on: updates and writable mappings are refused, while
	 * the BPF programs still write. (A BPF_F_RDONLY descriptor cannot be mmapped at all.)
	 */
	if (!err && bpf_map_freeze(map_fd))
		err = -errno;
	x->fd = err ? -1 : fcntl(map_fd, F_DUPFD_CLOEXEC, 3);
	if (!err && x->fd < 0)
		err = -errno;
	x->lib = err ? NULL : strdup(lib);
	x->envp = x->lib ? pg_excfix_env(environ, lib, x->fd, info.id) : NULL;
	if (!err && !x->envp)
		err = -ENOMEM;
	if (err) {
		pg_debug("cannot give the benchmark the return-address map: %s: the C++ exception "
			 "fix is off", strerror(-err));
		if (x->fd >= 0)
			close(x->fd);
		free(x->lib);
		memset(x, 0, sizeof(*x));
		return err;
	}
	pg_debug("C++ exception fix: %s, map %u (frozen) as descriptor %d", lib, info.id, x->fd);
	return 0;
}

void pg_excfix_release(struct pg_excfix *x)
{
	if (!x->envp)
		return;
	close(x->fd);
	free(x->lib);
	pg_excfix_free_env(x->envp);
	memset(x, 0, sizeof(*x));
}

char **pg_excfix_child(const struct pg_excfix *x, bool *unreadable)
{
	*unreadable = false;
	if (!x->envp)
		return environ;
	if (access(x->lib, R_OK)) {
		*unreadable = true;
		return environ;
	}
	if (fcntl(x->fd, F_SETFD, 0))
		return environ;
	return x->envp;
}

/* Does the dynamic section @scn of @elf name a C++ runtime among its DT_NEEDED? */
static bool needs_cxx_runtime(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Dyn dyn;

	for (size_t i = 0; data && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		if (name && (!strncmp(name, "libstdc++", 9) || !strncmp(name, "libc++", 6)))
			return true;
	}
	return false;
}

int pg_excfix_binary_wants(const char *binary)
{
	int fd = open(binary, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		pg_debug("%s: %s", binary, elf_errmsg(-1));
		ret = -ENOEXEC;
		goto out;
	}
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((name && !strcmp(name, ".gcc_except_table")) ||
		    (sh.sh_type == SHT_DYNAMIC && needs_cxx_runtime(elf, scn, &sh)))
			ret = 1;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}
