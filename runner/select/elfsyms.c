// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "../../core/run.h"
#include "elfsyms.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * Is @c one nop instruction exactly 5 bytes long? Linux 6.18 optimizes a probe on any such
 * nop into a call of its uprobe trampoline (tested on 6.18.44: the probed code read back as
 * `e8 rel32` for `0f 1f 44 00 00`, clang's `0f 1f 44 00 08`, other SIB and disp8 bytes,
 * `66 0f 1f 40 00`, `66 66 0f 1f 00`, `48 0f 1f 40 00`, `66 66 0f 1f c0` and
 * `66 66 66 66 90`; not for 4- or 6-byte nops). Decoded: prefixes 0x66 (and REX before
 * `0f 1f`), then `90`, or `0f 1f /0` with its ModRM, SIB and displacement.
 */
static bool is_nop5(const unsigned char *c, size_t len)
{
	size_t i = 0, n;
	unsigned char mod, rm;

	if (len < 5)
		return false;
	while (i < 4 && c[i] == 0x66)
		i++;
	if (c[i] == 0x90)
		return i == 4;
	if (i < 4 && (c[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i > 2 || c[i] != 0x0f || c[i + 1] != 0x1f || (c[i + 2] & 0x38))
		return false;
	mod = c[i + 2] >> 6;
	rm = c[i + 2] & 7;
	n = i + 3;
	if (mod != 3 && rm == 4) {		/* SIB, base 5 without disp: disp32 */
		if (n >= len)
			return false;
		if (mod == 0 && (c[n] & 7) == 5)
			n += 4;
		n++;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		n += 4;
	return n == 5;
}

enum pg_site pg_classify_site(const unsigned char *c, size_t len, bool *endbr)
{
	*endbr = false;
	if (len >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) {
		*endbr = true;
		c += 4;
		len -= 4;
	}
	if (!len)
		return PG_SITE_UNKNOWN;
	/* gcc's nopl 0x0(%rax,%rax,1), clang's nopl 0x8(%rax,%rax,1): optimized into a call */
	if (is_nop5(c, len))
		return PG_SITE_NOP5;
	/* instructions the kernel emulates instead of single-stepping */
	if (c[0] == 0x90 || (c[0] >= 0x50 && c[0] <= 0x57))	/* nop, push %reg */
		return PG_SITE_EMULATED;
	if (len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57)	/* push %r8-%r15 */
		return PG_SITE_EMULATED;
	if (c[0] == 0xe8 || c[0] == 0xe9 || c[0] == 0xeb)	/* call, jmp */
		return PG_SITE_EMULATED;
	if (len >= 2 && c[0] == 0x0f && c[1] == 0x1f)		/* other multi-byte nops */
		return PG_SITE_EMULATED;
	if (len >= 3 && c[0] == 0x66 && c[1] == 0x0f && c[2] == 0x1f)	/* nopw */
		return PG_SITE_EMULATED;
	if (len >= 2 && c[0] == 0x66 && c[1] == 0x90)		/* xchg %ax,%ax */
		return PG_SITE_EMULATED;
	return PG_SITE_SSTEP;
}

bool pg_sym_is_runtime(const char *name)
{
	static const char *const names[] = {
		"_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
		"__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
		"_dl_relocate_static_pie", "__cxx_global_var_init", "atexit",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return !strncmp(name, "_GLOBAL__sub_I_", 15) || !strncmp(name, "__x86.get_pc_thunk", 18) ||
	       pg_gb_harness(name);	/* Google Benchmark's harness: core/gbench.h */
}

bool pg_sym_matches(const struct pg_sym *sym, const char *pattern)
{
	const char *paren;
	char *bare;
	bool ok;

	if (!fnmatch(pattern, sym->name, 0))
		return true;
	if (!sym->display)
		return false;
	if (!fnmatch(pattern, sym->display, 0))
		return true;
	paren = strchr(sym->display, '(');
	if (!paren)
		return false;
	bare = strndup(sym->display, (size_t)(paren - sym->display));
	ok = bare && !fnmatch(pattern, bare, 0);
	free(bare);
	return ok;
}

/* File offset of virtual address @addr, from the PT_LOAD segments; -1 if none holds it. */
static int64_t vaddr_to_offset(Elf *elf, uint64_t addr)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz)
			return (int64_t)(addr - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pg_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The first bytes of a function, read with pread(): a mapping of the file would show the int3
 * breakpoints that the kernel puts into every new mapping of a file with uprobes registered
 * (another perfgate tracing the same binary, or our own calibration targets).
 */
static size_t code_at(int fd, uint64_t off, unsigned char *buf, size_t len)
{
	ssize_t r = pread(fd, buf, len, (off_t)off);

	return r > 0 ? (size_t)r : 0;
}

/*
 * Append the function symbols of table @scn to @out: name, address, size, binding and, for
 * now, the file offset of the entry (finish_symbols() does the rest once the copies that
 * .symtab and .dynsym both hold are gone).
 */
static int add_symbols(Elf *elf, Elf_Scn *scn, size_t rawlen, struct pg_elf_syms *out,
		       size_t *cap)
{
	const char *file = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t count;

	if (!gelf_getshdr(scn, &sh))
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !sh.sh_entsize)
		return 0;
	count = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		struct pg_sym *s;
		int64_t off;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		/* the local symbols of one translation unit follow its STT_FILE entry */
		if (GELF_ST_TYPE(sym.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh.sh_link, sym.st_name);
			continue;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		off = vaddr_to_offset(elf, sym.st_value);
		if (off < 0 || (uint64_t)off >= rawlen)
			continue;
		if (PG_ALLOC_GROW(out->syms, out->n + 1, *cap))
			return -ENOMEM;
		s = &out->syms[out->n];
		memset(s, 0, sizeof(*s));
		s->name = strdup(name);
		if (!s->name)
			return -ENOMEM;
		out->n++;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		s->global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		s->offset = (uint64_t)off;
		if (!s->global && file && *file && !(s->tu = strdup(pg_basename(file))))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_name_addr(const void *a, const void *b, void *syms)
{
	const struct pg_sym *x = &((const struct pg_sym *)syms)[*(const size_t *)a];
	const struct pg_sym *y = &((const struct pg_sym *)syms)[*(const size_t *)b];

	return strcmp(x->name, y->name) ?: (x->addr > y->addr) - (x->addr < y->addr);
}

/* Set the scope of each group g[0..n) of symbols that share a name (sorted by address). */
static int scope_group(struct pg_sym *syms, const size_t *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pg_sym *s = &syms[g[i]];
		const char *tu = s->tu ? s->tu : "";
		size_t nth = 1;

		/* the how-manieth of this group with this tu (or none) is it? */
		for (size_t k = 0; k < i; k++)
			nth += !strcmp(syms[g[k]].tu ? syms[g[k]].tu : "", tu);
		if (*tu && nth == 1)
			s->scope = strdup(tu);
		else if (asprintf(&s->scope, "%s#%zu", tu, nth) < 0)
			s->scope = NULL;
		if (!s->scope)
			return -ENOMEM;
	}
	return 0;
}

/* Give the functions that share a name in this file their scope (struct pg_sym). */
static int assign_scopes(struct pg_elf_syms *out)
{
	size_t *idx = malloc((out->n ? out->n : 1) * sizeof(*idx));
	int err = 0;

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < out->n; i++)
		idx[i] = i;
	qsort_r(idx, out->n, sizeof(*idx), cmp_name_addr, out->syms);
	for (size_t i = 0, j; i < out->n && !err; i = j) {
		for (j = i + 1; j < out->n && !strcmp(out->syms[idx[j]].name,
						     out->syms[idx[i]].name); j++)
			;
		if (j - i > 1)
			err = scope_group(out->syms, idx + i, j - i);
	}
	free(idx);
	return err;
}

/* Demangle each symbol of @out and classify its probe site (the entry read from @fd): the
 * probe goes after a leading endbr64. */
static void finish_symbols(int fd, struct pg_elf_syms *out)
{
	for (size_t i = 0; i < out->n; i++) {
		struct pg_sym *s = &out->syms[i];
		unsigned char code[16];

		if (!strncmp(s->name, "_Z", 2)) {
			int status = 0;

			s->display = __cxa_demangle(s->name, NULL, NULL, &status);
			if (status)
				s->display = NULL;
		}
		s->site = pg_classify_site(code, code_at(fd, s->offset, code, sizeof(code)),
					   &s->endbr);
		s->offset += s->endbr ? 4 : 0;
	}
}

int pg_elf_syms_load(const char *path, struct pg_elf_syms *out)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t cap = 0, rawlen = 0;
	const char *raw;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pg_err("%s: %s", path, strerror(errno));
		return err;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		pg_err("%s: not an ELF file", path);
		err = -ENOEXEC;
		goto cleanup;
	}
	if (eh.e_machine != EM_X86_64 || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		pg_err("%s: not an x86-64 executable or shared library", path);
		err = -ENOEXEC;
		goto cleanup;
	}
	out->path = strdup(path);
	if (!out->path) {
		err = -ENOMEM;
		goto cleanup;
	}
	out->is_dyn = eh.e_type == ET_DYN;
	raw = elf_rawfile(elf, &rawlen);
	if (!raw) {
		pg_err("%s: cannot read: %s", path, elf_errmsg(-1));
		err = -EIO;
		goto cleanup;
	}
	out->interp = pg_elf_interp(path);
	/* .symtab has the local functions, .dynsym what a stripped file keeps; both repeat */
	for (int pass = 0; pass < 2; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh))
				continue;
			if (sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			err = add_symbols(elf, scn, rawlen, out, &cap);
			if (err)
				goto cleanup;
		}
	}
	qsort(out->syms, out->n, sizeof(*out->syms), cmp_sym);
	/* drop the copies (same address and name) that the two tables produced */
	if (out->n) {
		size_t w = 1;

		for (size_t r = 1; r < out->n; r++) {
			struct pg_sym *p = &out->syms[w - 1], *s = &out->syms[r];

			if (s->addr == p->addr && !strcmp(s->name, p->name)) {
				if (!p->tu) {	/* the .symtab copy knows the file */
					p->tu = s->tu;
					s->tu = NULL;
				}
				free(s->name);
				free(s->tu);
				continue;
			}
			out->syms[w++] = *s;
		}
		out->n = w;
	}
	err = assign_scopes(out);
	if (err)
		goto cleanup;
	finish_symbols(fd, out);
	if (!out->n) {
		pg_err("%s: no function symbols (stripped?)", path);
		err = -ENODATA;
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		pg_elf_syms_release(out);
	return err;
}

void pg_elf_syms_release(struct pg_elf_syms *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->syms[i].name);
		free(s->syms[i].display);
		free(s->syms[i].tu);
		free(s->syms[i].scope);
	}
	free(s->syms);
	free(s->path);
	free(s->interp);
	memset(s, 0, sizeof(*s));
}

char *pg_elf_interp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *interp = NULL;
	size_t n, rawlen = 0;
	const char *raw;
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n) &&
	    (raw = elf_rawfile(elf, &rawlen))) {
		for (size_t i = 0; i < n && !interp; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP &&
			    ph.p_filesz > 1 && ph.p_offset + ph.p_filesz <= rawlen)
				interp = strndup(raw + ph.p_offset, ph.p_filesz - 1);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return interp;
}
