/* SPDX-License-Identifier: MIT */
/*
 * runner/profile/symbolize.h - frame names for sampled stacks.
 *
 * Names are what folded stacks hold, so they are stable across builds: no addresses, no line
 * numbers.
 *  - user frames: the demangled function name (ELF symbol, libdw); a pc inside inlined code
 *    gives the function and then each inlined function, outermost first, as separate frames
 *    marked PG_INLINED_MARK ("mix [i]", core/run.h): their time is the function's;
 *  - a user address in a module without a symbol for it: "libfoo.so.1+0x1234" (the ELF
 *    address, what addr2line takes); outside every module: "[unknown]";
 *  - kernel frames: "name [k]" from /proc/kallsyms; "[kernel] [k]" when unresolvable.
 * ';' in a name becomes ',' and control characters become spaces (folded stacks separate
 * frames with ';' and end a line with " COUNT").
 *
 * The file:line of each named function's declaration (DWARF) is collected on the side in a
 * struct pg_srcs, for flame graph tooltips.
 */
#ifndef PG_SYMBOLIZE_H
#define PG_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "../../core/run.h"
#include "../../core/strbuf.h"

struct pg_ksym {
	uint64_t addr;
	char *name;
};

struct pg_ksyms {
	size_t n;
	struct pg_ksym *v;	/* sorted by address */
};

/* Load the kernel's function symbols from /proc/kallsyms. An unreadable file or hidden
 * addresses (kptr_restrict) give an empty table: kernel frames then stay unresolved. */
void pg_ksyms_load(struct pg_ksyms *k);
void pg_ksyms_release(struct pg_ksyms *k);
/* The address range [*lo, *hi) of kernel function @name (up to the next symbol; @hi may be
 * NULL), or 0 and 0 when @k does not hold it. */
void pg_ksyms_range(const struct pg_ksyms *k, const char *name, uint64_t *lo, uint64_t *hi);

/*
 * Frames by (module file, ELF address): valid across address spaces and repetitions, so that
 * the symbol tables and DWARF of a library are searched once per recording, not once per
 * repetition (each repetition has new Dwfls, and with ASLR new load addresses).
 * Zero-initialise.
 */
#define PG_NO_SYM UINT64_MAX	/* an address in no function symbol */

struct pg_symcache {
	size_t cap, n;
	uint64_t *keys;		/* pairs: hash of the module file, vaddr << 1 | activation */
	char **vals;		/* "outer;inlined"; NULL = empty slot */
	uint64_t *syms;		/* the ELF address of the function symbol, or PG_NO_SYM */
};

void pg_symcache_release(struct pg_symcache *c);

/* Declaration file:line per frame name, collected while symbolizing. Zero-initialise. */
struct pg_srcs {
	size_t n, cap;
	struct pg_source *v;	/* unsorted, may repeat until pg_srcs_finish() */
};

/* Sort and deduplicate (first location wins); moves the table into @run (which must not
 * hold one yet). 0 or -ENOMEM. */
int pg_srcs_finish(struct pg_srcs *s, struct pg_run *run);
void pg_srcs_release(struct pg_srcs *s);

/* Append the frames of user @pc (a return address unless @activation) to @out, root first,
 * ';'-separated, no leading ';'; the ELF address of the function symbol it lies in into
 * @symaddr (may be NULL; PG_NO_SYM when there is none). 0 or -ENOMEM. */
int pg_sym_user(Dwfl *dwfl, struct pg_symcache *cache, struct pg_srcs *srcs, uint64_t pc,
		bool activation, struct pg_strbuf *out, uint64_t *symaddr);

/* Append "name [k]" for kernel address @ip. 0 or -ENOMEM. */
int pg_sym_kernel(const struct pg_ksyms *k, uint64_t ip, struct pg_strbuf *out);

/* Make @name safe for a folded stack (see above), in place. */
void pg_frame_sanitize(char *name);

#endif
