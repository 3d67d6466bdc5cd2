// SPDX-License-Identifier: MIT
/* runner/select/srcline.c - declaration file and line of functions from DWARF (see srcline.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "srcline.h"

/* The compilation units of one binary, read once (for binaries without .debug_aranges). */
struct cus {
	size_t n, alloc;
	Dwarf_Die *die;
};

static int cus_load(Dwarf *dw, struct cus *c)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (PG_ALLOC_GROW(c->die, c->n + 1, c->alloc))
			return -ENOMEM;
		if (dwarf_offdie(dw, off + hsize, &c->die[c->n]))
			c->n++;
		off = next;
	}
	return 0;
}

/* The unit holding @addr: from .debug_aranges when there is one (GCC), else by ranges. */
static bool find_cu(Dwarf *dw, const struct cus *c, Dwarf_Addr addr, Dwarf_Die *cu)
{
	if (dwarf_addrdie(dw, addr, cu))
		return true;
	for (size_t i = 0; i < c->n; i++) {
		if (dwarf_haspc(&c->die[i], addr) == 1) {
			*cu = c->die[i];
			return true;
		}
	}
	return false;
}

/*
 * The declaration file of @die in @cu. Not dwarf_decl_file(): elfutils 0.188 refuses file
 * index 0, which DWARF 5 uses for the primary source file (clang's default).
 */
static const char *decl_file(Dwarf_Die *die, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * File and line for @addr in @dw, the file absolute when the unit names its compilation
 * directory. *file points into libdw's data (valid until dwarf_end) or into @buf.
 */
static void lookup(Dwarf *dw, const struct cus *c, Dwarf_Addr addr, const char **file,
		   int *line, char *buf, size_t bufsize)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *l;
	int n;

	*file = NULL;
	*line = 0;
	if (!find_cu(dw, c, addr, &cu))
		return;
	/* innermost scope first: the first subprogram is the function itself */
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		*file = decl_file(&scopes[i], &cu);
		if (!*file || dwarf_decl_line(&scopes[i], line) || *line <= 0) {
			*file = NULL;
			*line = 0;
		}
		break;
	}
	free(scopes);
	if (!*file) {
		/* no declaration attributes: the line of the function's first instruction */
		l = dwarf_getsrc_die(&cu, addr);
		if (l && (*file = dwarf_linesrc(l, NULL, NULL)) &&
		    (dwarf_lineno(l, line) || *line <= 0)) {
			*file = NULL;
			*line = 0;
		}
	}
	/* a relative name is relative to the compilation directory */
	if (*file && **file != '/') {
		Dwarf_Attribute attr;
		const char *dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));

		if (dir && *dir == '/' &&
		    (size_t)snprintf(buf, bufsize, "%s/%s", dir, *file) < bufsize)
			*file = buf;
	}
}

int pg_srcline_fill(struct pg_run *run, size_t first, const char *binary)
{
	struct cus cus = { 0 };
	size_t found = 0;
	Dwarf *dw;
	int fd, err = 0;

	if (first >= run->nfuncs)
		return 0;
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pg_debug("%s: no source lines: %m", binary);
		return 0;
	}
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		pg_debug("%s: no source lines: no DWARF (%s)", binary, dwarf_errmsg(-1));
		close(fd);
		return 0;
	}
	err = cus_load(dw, &cus);
	for (size_t i = first; i < run->nfuncs && !err; i++) {
		char buf[PATH_MAX];
		const char *file;
		int line;

		lookup(dw, &cus, run->funcs[i].addr, &file, &line, buf, sizeof(buf));
		if (!file)
			continue;
		err = pg_func_set_src(&run->funcs[i], file, (uint32_t)line);
		found++;
	}
	pg_debug("%s: source lines for %zu of %zu functions", binary, found, run->nfuncs - first);
	free(cus.die);
	dwarf_end(dw);
	close(fd);
	if (err)
		pg_err("%s: reading source lines: out of memory", binary);
	return err;
}
