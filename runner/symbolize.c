// SPDX-License-Identifier: MIT
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "../core/log.h"
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
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			struct pg_ksym *nv = realloc(k->v, nc * sizeof(*nv));

			if (!nv)
				break;
			k->v = nv;
			cap = nc;
		}
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
	if (!lo)
		return pg_strbuf_addf(out, "[kernel]+0x%" PRIx64 " [k]", ip);
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
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		struct pg_source *nv = realloc(s->v, nc * sizeof(*nv));

		if (!nv)
			return;
		s->v = nv;
		s->cap = nc;
	}
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

/* Symbolize one pc into a fresh string: "func;inlined1;inlined2". NULL on ENOMEM. */
static char *symbolize(Dwfl *dwfl, struct pg_srcs *srcs, uint64_t pc, bool activation)
{
	Dwarf_Addr lookup = activation ? pc : pc - 1, bias = 0, start = 0;
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, lookup) : NULL;
	struct pg_strbuf b = PG_STRBUF_INIT;
	Dwarf_Die *scopes = NULL, *cu;
	const char *sym = NULL, *modname;
	GElf_Off off = 0;
	GElf_Sym s;
	int nscopes = 0;

	if (!mod)
		return strdup("[unknown]");
	modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	sym = dwfl_module_addrinfo(mod, lookup, &off, &s, NULL, NULL, NULL);
	cu = dwfl_module_addrdie(mod, lookup, &bias);
	if (cu)
		nscopes = dwarf_getscopes(cu, lookup - bias, &scopes);
	if (sym) {
		char *n = frame_name(sym);

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

		dwfl_module_getelf(mod, &mbias);
		pg_strbuf_addf(&b, "%s+0x%" PRIx64, modname ? pg_basename(modname) : "[unknown]",
			       (uint64_t)(lookup - (mod ? mbias : start)));
	}
	/* inlined functions, outermost first: scopes[] is innermost first */
	for (int i = nscopes - 1; i >= 0; i--) {
		char *n;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		n = die_name(&scopes[i]);
		if (!n)
			continue;
		pg_strbuf_addf(&b, ";%s", n);
		add_src(srcs, n, &scopes[i]);
		free(n);
	}
	free(scopes);
	if (!b.len && !b.err)
		pg_strbuf_add(&b, "[unknown]");
	return pg_strbuf_take(&b);
}

static int cache_grow(struct pg_symcache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 1024;
	uint64_t *keys = calloc(ncap, sizeof(*keys));
	char **vals = calloc(ncap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->cap; i++) {
		size_t h;

		if (!c->keys[i])
			continue;
		h = (size_t)((c->keys[i] * 0x9e3779b97f4a7c15ULL) >> 17) & (ncap - 1);
		while (keys[h])
			h = (h + 1) & (ncap - 1);
		keys[h] = c->keys[i];
		vals[h] = c->vals[i];
	}
	free(c->keys);
	free(c->vals);
	c->keys = keys;
	c->vals = vals;
	c->cap = ncap;
	return 0;
}

void pg_symcache_release(struct pg_symcache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->vals[i]);
	free(c->keys);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

int pg_sym_user(Dwfl *dwfl, struct pg_symcache *cache, struct pg_srcs *srcs, uint64_t pc,
		bool activation, struct pg_strbuf *out)
{
	uint64_t key = pc << 1 | (activation ? 1 : 0);
	char *v;
	size_t h;

	if (key && (cache->n + 1) * 2 > cache->cap && cache_grow(cache))
		return -ENOMEM;
	h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (cache->cap - 1);
	while (cache->keys[h] && cache->keys[h] != key)
		h = (h + 1) & (cache->cap - 1);
	if (key && cache->keys[h] == key)
		return pg_strbuf_add(out, cache->vals[h]);
	v = symbolize(dwfl, srcs, pc, activation);
	if (!v)
		return -ENOMEM;
	if (key) {
		cache->keys[h] = key;
		cache->vals[h] = v;
		cache->n++;
		return pg_strbuf_add(out, v);
	}
	pg_strbuf_add(out, v);
	free(v);
	return out->err;
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
