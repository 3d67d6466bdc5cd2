/* SPDX-License-Identifier: MIT */
/*
 * runner/select/srcline.h - where a traced function is declared: file and line from the binary's
 * DWARF (libdw), for GitHub annotations and the reports.
 *
 * Best effort: a binary without debug information, or a function the DWARF does not cover,
 * keeps src_file = NULL and src_line = 0. Separate debug files (.gnu_debuglink) are not
 * searched.
 */
#ifndef PG_SRCLINE_H
#define PG_SRCLINE_H

#include <stddef.h>

#include "../../core/run.h"

/*
 * Fill src_file/src_line of run->funcs[first..run->nfuncs), which must all be functions of the
 * ELF file @binary, from its DWARF: the DW_AT_decl_file/decl_line of the subprogram that
 * contains the function's address, else the line-table entry of that address; a relative file
 * name is joined to the unit's DW_AT_comp_dir, so files are normally absolute. One Dwarf
 * handle for the whole binary. Returns 0 (also when there is no DWARF: logged at debug level)
 * or -ENOMEM.
 */
int pg_srcline_fill(struct pg_run *run, size_t first, const char *binary);

#endif
