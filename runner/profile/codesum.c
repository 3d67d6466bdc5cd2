// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "../../core/alloc.h"
#include "../../core/hash.h"
#include "../../core/log.h"
#include "codesum.h"

#define MAX_FUNC_BYTES	(4u << 20)	/* larger "functions" are not summed */
#define PLT_STUB_INSNS	3		/* a PLT entry's GOT load is among its first three */
#define PLT_STUB_BYTES	32		/* and within its first 32 bytes */

struct cs_sym {
	uint64_t addr, size;
	const char *name;	/* in the file's string table (the Elf stays open) */
	bool func;
};

struct cs_sec {
	uint64_t addr, size, off;	/* off: in the file */
	const char *name;
	bool exec;
};

struct cs_slot {
	uint64_t got;		/* the GOT entry a PLT stub jumps through */
	const char *name;	/* the function the dynamic linker puts there */
};

struct pg_codesum_file {
	char *path;
	int err;		/* why it cannot be read; 0 if it can */
	int fd;
	Elf *elf;
	bool fixed;		/* ET_EXEC: linked at fixed addresses, which code may hold as
				 * immediates and absolute displacements */
	struct cs_sym *syms;	/* sorted by address */
	size_t nsyms, asyms;
	struct cs_sec *secs;
	size_t nsecs, asecs;
	struct cs_slot *slots;	/* sorted by got */
	size_t nslots, aslots;
};

/* ---- reading one file ---- */

static int cmp_sym(const void *a, const void *b)
{
	const struct cs_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)y->func - (int)x->func;	/* a function first among aliases */
}

static int cmp_slot(const void *a, const void *b)
{
	const struct cs_slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int add_symtab(struct pg_codesum_file *f, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym s;
		int type;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC)
			continue;
		name = elf_strptr(f->elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (PG_ALLOC_GROW(f->syms, f->nsyms + 1, f->asyms))
			return -ENOMEM;
		f->syms[f->nsyms++] = (struct cs_sym){ s.st_value, s.st_size, name,
						       type != STT_OBJECT };
	}
	return 0;
}

/* The GOT entries named by .rela.plt and .rela.dyn (JUMP_SLOT, GLOB_DAT), for PLT stubs. */
static int add_relas(struct pg_codesum_file *f, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(f->elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *sd = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && sd && i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		uint32_t type;

		if (!gelf_getrela(d, (int)i, &r))
			continue;
		type = GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(f->elf, symsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (PG_ALLOC_GROW(f->slots, f->nslots + 1, f->aslots))
			return -ENOMEM;
		f->slots[f->nslots++] = (struct cs_slot){ r.r_offset, name };
	}
	return 0;
}

static int load_file(struct pg_codesum_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	int err = 0;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -ENOENT;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || !gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_X86_64 ||
	    gelf_getclass(f->elf) != ELFCLASS64 || elf_getshdrstrndx(f->elf, &shstrndx))
		return -ENOEXEC;
	f->fixed = eh.e_type == ET_EXEC;
	while (!err && (scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			err = add_symtab(f, scn, &sh);
		else if (sh.sh_type == SHT_RELA && sh.sh_link)
			err = add_relas(f, scn, &sh);
		if (err || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_addr)
			continue;
		if (PG_ALLOC_GROW(f->secs, f->nsecs + 1, f->asecs))
			return -ENOMEM;
		f->secs[f->nsecs++] = (struct cs_sec){
			sh.sh_addr, sh.sh_size, sh.sh_offset,
			elf_strptr(f->elf, shstrndx, sh.sh_name),
			(sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS };
	}
	if (err)
		return err;
	qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	qsort(f->slots, f->nslots, sizeof(*f->slots), cmp_slot);
	return 0;
}

static void file_release(struct pg_codesum_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->syms);
	free(f->secs);
	free(f->slots);
	free(f->path);
}

static struct pg_codesum_file *file_get(struct pg_codesums *c, const char *path)
{
	struct pg_codesum_file *f;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path))
			return &c->v[i];
	if (PG_ALLOC_GROW(c->v, c->n + 1, c->alloc))
		return NULL;
	f = &c->v[c->n];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	c->n++;
	elf_version(EV_CURRENT);
	f->err = load_file(f);
	if (f->err)
		pg_debug("code digests: cannot read %s (%s)", path, strerror(-f->err));
	return f;
}

/* ---- lookups ---- */

/* The last symbol at or below @addr (a function first among aliases), or NULL. */
static const struct cs_sym *sym_below(const struct pg_codesum_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* back to the first of the symbols at that address: the function among aliases */
	while (lo > 1 && f->syms[lo - 2].addr == f->syms[lo - 1].addr)
		lo--;
	return &f->syms[lo - 1];
}

static const struct cs_sec *sec_of(const struct pg_codesum_file *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nsecs; i++)
		if (addr >= f->secs[i].addr && addr - f->secs[i].addr < f->secs[i].size)
			return &f->secs[i];
	return NULL;
}

static const char *slot_name(const struct pg_codesum_file *f, uint64_t got)
{
	size_t lo = 0, hi = f->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->slots[mid].got == got)
			return f->slots[mid].name;
		if (f->slots[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The bytes of [addr, addr + len) in an executable section, into @buf; 0 or -ENOENT. Read with
 * pread(), not through libelf's mapping: while the file is probed, the kernel puts its
 * breakpoints into every mapping of it that may execute (uprobe_mmap()), and libelf's
 * read-only mapping may.
 */
static int code_bytes(const struct pg_codesum_file *f, uint64_t addr, uint64_t len, uint8_t *buf)
{
	const struct cs_sec *s = sec_of(f, addr);

	if (!s || !s->exec || len > s->size - (addr - s->addr))
		return -ENOENT;
	return pread(f->fd, buf, len, (off_t)(s->off + (addr - s->addr))) == (ssize_t)len ?
	       0 : -ENOENT;
}

/* ---- the digest ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return mix(h, pg_fnv1a(PG_FNV1A_INIT, s, strlen(s)));
}

/* The function a PLT stub at @addr jumps to, by name, or NULL. */
static const char *plt_target(csh h, const struct pg_codesum_file *f, uint64_t addr)
{
	const struct cs_sec *s = sec_of(f, addr);
	uint8_t stub[PLT_STUB_BYTES];
	const uint8_t *code = stub;
	size_t len = s ? s->size - (addr - s->addr) : 0;
	const char *name = NULL;
	cs_insn *insn;

	if (len > sizeof(stub))
		len = sizeof(stub);
	if (!len || code_bytes(f, addr, len, stub))
		return NULL;
	insn = cs_malloc(h);
	for (int i = 0; insn && i < PLT_STUB_INSNS && !name; i++) {
		if (!cs_disasm_iter(h, &code, &len, &addr, insn))
			break;
		for (uint8_t k = 0; k < insn->detail->x86.op_count; k++) {
			const cs_x86_op *op = &insn->detail->x86.operands[k];

			if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP)
				name = slot_name(f, insn->address + insn->size +
						    (uint64_t)op->mem.disp);
		}
	}
	if (insn)
		cs_free(insn, 1);
	return name;
}

/* Mix in a target @t of the function [start, end): by what it lands in (codesum.h). */
static uint64_t mix_target(uint64_t h, csh cs, const struct pg_codesum_file *f, uint64_t start,
			   uint64_t end, uint64_t t)
{
	const struct cs_sec *s;
	const struct cs_sym *sym;
	const char *plt;

	if (t >= start && t < end)
		return mix(mix(h, 'I'), t - start);
	s = sec_of(f, t);
	if (s && s->name && !strncmp(s->name, ".plt", 4) && (plt = plt_target(cs, f, t)))
		return mix_str(mix(h, 'P'), plt);
	sym = sym_below(f, t);
	if (sym && (t - sym->addr < sym->size || t == sym->addr))
		return mix(mix_str(mix(h, 'S'), sym->name), t - sym->addr);
	return mix_str(mix(h, 'D'), s && s->name ? s->name : "?");
}

/* A value that is an address in a file linked at fixed addresses: mixed as a target. */
static uint64_t mix_value(uint64_t h, csh cs, const struct pg_codesum_file *f, uint64_t start,
			  uint64_t end, uint64_t v)
{
	if (f->fixed && sec_of(f, v))
		return mix_target(h, cs, f, start, end, v);
	return mix(h, v);
}

static uint64_t mix_insn(uint64_t h, csh cs, const struct pg_codesum_file *f, uint64_t start,
			 uint64_t end, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	bool branch = cs_insn_group(cs, insn, CS_GRP_JUMP) || cs_insn_group(cs, insn, CS_GRP_CALL);

	h = mix(h, insn->id);
	h = mix(h, (uint64_t)x->prefix[0] | (uint64_t)x->prefix[1] << 8 |
		   (uint64_t)x->prefix[2] << 16 | (uint64_t)x->prefix[3] << 24);
	for (uint8_t k = 0; k < x->op_count; k++) {
		const cs_x86_op *op = &x->operands[k];

		h = mix(h, (uint64_t)op->type << 8 | op->size);
		switch (op->type) {
		case X86_OP_REG:
			h = mix(h, op->reg);
			break;
		case X86_OP_IMM:
			h = branch ? mix_target(h, cs, f, start, end, (uint64_t)op->imm) :
				     mix_value(h, cs, f, start, end, (uint64_t)op->imm);
			break;
		case X86_OP_MEM:
			h = mix(h, (uint64_t)op->mem.segment << 32 | (uint64_t)op->mem.base << 16 |
				   (uint64_t)op->mem.index);
			h = mix(h, (uint64_t)op->mem.scale);
			h = op->mem.base == X86_REG_RIP ?
			    mix_target(h, cs, f, start, end,
				       insn->address + insn->size + (uint64_t)op->mem.disp) :
			    mix_value(h, cs, f, start, end, (uint64_t)op->mem.disp);
			break;
		default:
			break;
		}
	}
	return h;
}

static int disassembler(struct pg_codesums *c, csh *h)
{
	if (!c->opened) {
		c->opened = -1;
		if (cs_open(CS_ARCH_X86, CS_MODE_64, h) == CS_ERR_OK) {
			if (cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK) {
				c->handle = (size_t)*h;
				c->opened = 1;
			} else {
				cs_close(h);
			}
		}
		if (c->opened < 0)
			pg_debug("code digests: Capstone could not be opened for x86-64");
	}
	*h = (csh)c->handle;
	return c->opened > 0 ? 0 : -EOPNOTSUPP;
}

int pg_codesum(struct pg_codesums *c, const char *path, uint64_t addr, uint64_t *digest)
{
	struct pg_codesum_file *f = file_get(c, path);
	const struct cs_sym *sym;
	const uint8_t *code;
	uint8_t *buf;
	uint64_t h = 0x5ca1ab1e, pc = addr;
	size_t len;
	cs_insn *insn;
	csh cs;
	int err;

	if (!f)
		return -ENOMEM;
	if (f->err)
		return f->err;
	err = disassembler(c, &cs);
	if (err)
		return err;
	sym = sym_below(f, addr);
	if (!sym || sym->addr != addr || !sym->func || !sym->size || sym->size > MAX_FUNC_BYTES)
		return -ENOENT;
	buf = malloc(sym->size);
	insn = cs_malloc(cs);
	if (!buf || !insn) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = code_bytes(f, addr, sym->size, buf);
	if (err)
		goto cleanup;
	code = buf;
	len = sym->size;
	while (len && cs_disasm_iter(cs, &code, &len, &pc, insn))
		h = mix_insn(h, cs, f, addr, addr + sym->size, insn);
	/* what does not decode (data in the code, padding) counts byte by byte */
	for (; len; len--, code++)
		h = mix(h, *code);
	*digest = h ? h : 1;
cleanup:
	if (insn)
		cs_free(insn, 1);
	free(buf);
	return err;
}

void pg_codesums_release(struct pg_codesums *c)
{
	for (size_t i = 0; i < c->n; i++)
		file_release(&c->v[i]);
	free(c->v);
	if (c->opened > 0) {
		csh h = (csh)c->handle;

		cs_close(&h);
	}
	memset(c, 0, sizeof(*c));
}
