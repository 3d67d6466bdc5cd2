// SPDX-License-Identifier: MIT
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "../../core/alloc.h"
#include "../../core/hash.h"
#include "../../core/log.h"
#include "symbolize.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ---- kernel ---- */

static int cmp_ksym(const void *a, const void *b)
{
	const struct pg_ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pg_ksyms_load(struct pg_ksyms *k)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t cap = 0;
	char line[512];

	memset(k, 0, sizeof(*k));
	if (!f) {
		pg_debug("cannot read /proc/kallsyms: kernel frames stay unresolved");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (PG_ALLOC_GROW(k->v, k->n + 1, cap))
			break;
		k->v[k->n].addr = addr;
		k->v[k->n].name = strdup(name);
		if (!k->v[k->n].name)
			break;
		pg_frame_sanitize(k->v[k->n].name);
		k->n++;
	}
	fclose(f);
	qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	if (!k->n)
		pg_debug("/proc/kallsyms shows no addresses: kernel frames stay unresolved");
}

void pg_ksyms_range(const struct pg_ksyms *k, const char *name, uint64_t *lo, uint64_t *hi)
{
	uint64_t end;

	*lo = 0;
	*(hi ? hi : &end) = 0;
	for (size_t i = 0; i + 1 < k->n; i++)
		if (!strcmp(k->v[i].name, name)) {
			*lo = k->v[i].addr;
			*(hi ? hi : &end) = k->v[i + 1].addr;
			return;
		}
}

void pg_ksyms_release(struct pg_ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	memset(k, 0, sizeof(*k));
}

int pg_sym_kernel(const struct pg_ksyms *k, uint64_t ip, struct pg_strbuf *out)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {	/* the last symbol at or below ip */
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)	/* no symbols (hidden addresses): no address either, it changes per boot */
		return pg_strbuf_add(out, "[kernel] [k]");
	return pg_strbuf_addf(out, "%s [k]", k->v[lo - 1].name);
}

/* ---- user ---- */

void pg_frame_sanitize(char *name)
{
	for (char *c = name; *c; c++) {
		if (*c == ';')
			*c = ',';
		else if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	}
}

/* A demangled (C++) or plain copy of @name, sanitized; NULL on ENOMEM. */
static char *frame_name(const char *name)
{
	char *d = NULL;
	int status = -1;

	if (name[0] == '_' && name[1] == 'Z')
		d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		/* "memcpy@@GLIBC_2.14", "memcpy@GLIBC_2.2.5": the version is not the name */
		d = strndup(name, strcspn(name, "@"));
	}
	if (d)
		pg_frame_sanitize(d);
	return d;
}

static void add_src(struct pg_srcs *s, const char *frame, Dwarf_Die *die)
{
	const char *file = dwarf_decl_file(die);
	int line = 0;
	struct pg_source *src;

	if (!s || !file)
		return;
	dwarf_decl_line(die, &line);
	if (PG_ALLOC_GROW(s->v, s->n + 1, s->cap))
		return;
	src = &s->v[s->n];
	src->frame = strdup(frame);
	src->file = strdup(file);
	src->line = line > 0 ? (uint32_t)line : 0;
	if (!src->frame || !src->file) {
		free(src->frame);
		free(src->file);
		return;
	}
	pg_frame_sanitize(src->file);
	s->n++;
}

/* The name of an inlined subroutine or subprogram DIE (its linkage name demangled if it has
 * one), malloc'd; NULL if it has none. */
static char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		n = dwarf_formstring(&attr);
	if (!n)
		n = dwarf_diename(die);
	return n ? frame_name(n) : NULL;
}

/* Symbolize one pc into a fresh string: "func;inlined1;inlined2", and the ELF address of its
 * function symbol into @symaddr (PG_NO_SYM: none). NULL on ENOMEM. */
static char *symbolize(Dwfl *dwfl, struct pg_srcs *srcs, uint64_t pc, bool activation,
		       uint64_t *symaddr)
{
	Dwarf_Addr lookup = activation ? pc : pc - 1, bias = 0, start = 0;
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, lookup) : NULL;
	struct pg_strbuf b = PG_STRBUF_INIT;
	Dwarf_Die *scopes = NULL, *cu;
	const char *sym = NULL, *modname;
	GElf_Off off = 0;
	GElf_Sym s;
	int nscopes = 0;

	*symaddr = PG_NO_SYM;
	if (!mod)
		return strdup("[unknown]");
	modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	sym = dwfl_module_addrinfo(mod, lookup, &off, &s, NULL, NULL, NULL);
	cu = dwfl_module_addrdie(mod, lookup, &bias);
	if (cu)
		nscopes = dwarf_getscopes(cu, lookup - bias, &scopes);
	if (sym) {
		char *n = frame_name(sym);

		*symaddr = s.st_value;	/* as in the file: not adjusted (libdwfl.h) */

		if (n) {
			pg_strbuf_add(&b, n);
			for (int i = nscopes - 1; i >= 0; i--) {
				if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
					add_src(srcs, n, &scopes[i]);
					break;
				}
			}
		}
		free(n);
	} else {
		Dwarf_Addr mbias = 0;

		/* the ELF address (what addr2line takes), or the offset in the mapping */
		if (!dwfl_module_getelf(mod, &mbias))
			mbias = start;
		pg_strbuf_addf(&b, "%s+0x%" PRIx64, modname ? pg_basename(modname) : "[unknown]",
			       (uint64_t)(lookup - mbias));
	}
	/* inlined functions, outermost first: scopes[] is innermost first */
	for (int i = nscopes - 1; i >= 0; i--) {
		char *n;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		n = die_name(&scopes[i]);
		if (!n)
			continue;
		pg_strbuf_addf(&b, ";%s" PG_INLINED_MARK, n);
		if (!b.err)	/* the marked name, as the stack has it */
			add_src(srcs, b.s + b.len - strlen(n) - strlen(PG_INLINED_MARK),
				&scopes[i]);
		free(n);
	}
	free(scopes);
	if (!b.len && !b.err)
		pg_strbuf_add(&b, "[unknown]");
	return pg_strbuf_take(&b);
}

static size_t slot(const struct pg_symcache *c, uint64_t k1, uint64_t k2)
{
	size_t h = (size_t)(((k1 ^ k2 * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL) >> 17);

	h &= c->cap - 1;
	while (c->vals[h] && (c->keys[2 * h] != k1 || c->keys[2 * h + 1] != k2))
		h = (h + 1) & (c->cap - 1);
	return h;
}

/* symbolize() appended to @out. */
static int symbolize_into(Dwfl *dwfl, struct pg_srcs *srcs, uint64_t pc, bool activation,
			  struct pg_strbuf *out, uint64_t *symaddr)
{
	char *v = symbolize(dwfl, srcs, pc, activation, symaddr);

	if (!v)
		return -ENOMEM;
	pg_strbuf_add(out, v);
	free(v);
	return out->err;
}

static int cache_grow(struct pg_symcache *c)
{
	struct pg_symcache n = { c->cap ? c->cap * 2 : 4096, c->n, NULL, NULL, NULL };

	n.keys = calloc(2 * n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	n.syms = calloc(n.cap, sizeof(*n.syms));
	if (!n.keys || !n.vals || !n.syms) {
		free(n.keys);
		free(n.vals);
		free(n.syms);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->cap; i++) {
		size_t h;

		if (!c->vals[i])
			continue;
		h = slot(&n, c->keys[2 * i], c->keys[2 * i + 1]);
		n.keys[2 * h] = c->keys[2 * i];
		n.keys[2 * h + 1] = c->keys[2 * i + 1];
		n.vals[h] = c->vals[i];
		n.syms[h] = c->syms[i];
	}
	free(c->keys);
	free(c->vals);
	free(c->syms);
	*c = n;
	return 0;
}

void pg_symcache_release(struct pg_symcache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->vals[i]);
	free(c->keys);
	free(c->vals);
	free(c->syms);
	memset(c, 0, sizeof(*c));
}

int pg_sym_user(Dwfl *dwfl, struct pg_symcache *cache, struct pg_srcs *srcs, uint64_t pc,
		bool activation, struct pg_strbuf *out, uint64_t *symaddr)
{
	Dwarf_Addr lookup = activation ? pc : pc - 1, bias = 0;
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, lookup) : NULL;
	const char *file = NULL;
	uint64_t k1, k2, sa, *sap = symaddr ? symaddr : &sa;
	size_t h;
	char *v;

	*sap = PG_NO_SYM;
	if (!mod)
		return pg_strbuf_add(out, "[unknown]");
	if (dwfl_module_getelf(mod, &bias))
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
	if (!file)	/* no file to key on */
		return symbolize_into(dwfl, srcs, pc, activation, out, sap);
	k1 = pg_fnv1a(PG_FNV1A_INIT, file, strlen(file));
	k2 = (uint64_t)(lookup - bias) << 1 | (activation ? 1 : 0);
	if ((cache->n + 1) * 2 > cache->cap && cache_grow(cache))
		return -ENOMEM;
	h = slot(cache, k1, k2);
	if (cache->vals[h]) {
		*sap = cache->syms[h];
		return pg_strbuf_add(out, cache->vals[h]);
	}
	v = symbolize(dwfl, srcs, pc, activation, sap);
	if (!v)
		return -ENOMEM;
	cache->keys[2 * h] = k1;
	cache->keys[2 * h + 1] = k2;
	cache->vals[h] = v;
	cache->syms[h] = *sap;
	cache->n++;
	return pg_strbuf_add(out, v);
}

static int cmp_src(const void *a, const void *b)
{
	const struct pg_source *x = a, *y = b;
	int c = strcmp(x->frame, y->frame);

	if (c)
		return c;
	return x < y ? -1 : x > y;	/* stable: the first location wins */
}

int pg_srcs_finish(struct pg_srcs *s, struct pg_run *run)
{
	size_t n = 0;

	if (!s->n) {
		pg_srcs_release(s);
		return 0;
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_src);
	for (size_t i = 0; i < s->n; i++) {
		if (n && !strcmp(s->v[n - 1].frame, s->v[i].frame)) {
			free(s->v[i].frame);
			free(s->v[i].file);
			continue;
		}
		s->v[n++] = s->v[i];
	}
	run->sources = s->v;
	run->nsources = n;
	memset(s, 0, sizeof(*s));
	return 0;
}

void pg_srcs_release(struct pg_srcs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].frame);
		free(s->v[i].file);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
