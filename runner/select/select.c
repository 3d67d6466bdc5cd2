// SPDX-License-Identifier: MIT
/*
 * runner/select/select.c - which functions a recording traces: -f, -x, the default selection and
 * --functions-of over the symbol tables of the executable and its libraries. See select.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/alloc.h"
#include "../../core/log.h"
#include "../../core/numfmt.h"
#include "../../core/sort.h"
#include "../../core/strbuf.h"
#include "../../core/strv.h"
#include "../budget/stack_gain.h"
#include "../launch/resolve.h"
#include "select.h"
#include "srcline.h"

int pg_parse_filter(const char *spec, char **binary, char **glob)
{
	const char *c = spec;

	*binary = *glob = NULL;
	for (c = spec; *c; c++) {
		if (*c != ':')
			continue;
		if (c[1] == ':') {	/* C++ scope: skip both */
			c++;
			continue;
		}
		break;
	}
	if (*c == ':') {
		if (c == spec || !c[1])
			return -EINVAL;
		*binary = strndup(spec, (size_t)(c - spec));
		*glob = strdup(c + 1);
	} else {
		if (!*spec)
			return -EINVAL;
		*glob = strdup(spec);
	}
	if (!*glob || (c != spec && *c == ':' && !*binary)) {
		free(*binary);
		free(*glob);
		*binary = *glob = NULL;
		return -ENOMEM;
	}
	return 0;
}

void pg_selection_release(struct pg_selection *sel)
{
	for (size_t i = 0; i < sel->nbins; i++) {
		free(sel->bins[i].path);
		free(sel->bins[i].chosen);
		pg_elf_syms_release(&sel->bins[i].syms);
	}
	free(sel->bins);
	free(sel->exe);
	free(sel->named);
	free(sel->exe_interp);
	pg_strv_free(sel->frames, sel->nframes);
	pg_strv_free(sel->leaves, sel->nleaves);
	memset(sel, 0, sizeof(*sel));
}

int pg_selection_init(struct pg_selection *sel, const char *argv0,
		      const struct pg_discovery *disc)
{
	const struct pg_object *prog;

	sel->exe = pg_resolve_command(argv0);
	if (!sel->exe)
		return -ENOENT;
	sel->named = strdup(sel->exe);
	if (!sel->named)
		return -ENOMEM;
	sel->script = !pg_is_elf(sel->exe);
	prog = disc ? pg_discovery_program(disc, sel->exe) : NULL;
	if (prog && strcmp(prog->path, sel->exe)) {
		free(sel->exe);
		sel->exe = strdup(prog->path);
		if (!sel->exe)
			return -ENOMEM;
	}
	if (disc && disc->done) {
		sel->disc = disc;
		if (pg_coverage_frames(&disc->cov, &sel->frames, &sel->nframes) ||
		    pg_coverage_leaves(&disc->cov, PG_BUDGET_MIN_OWN, &sel->leaves,
				       &sel->nleaves))
			return -ENOMEM;
	}
	sel->exe_interp = pg_elf_interp(sel->exe);
	return 0;
}

int pg_selection_add(struct pg_selection *sel, const char *path, struct pg_elf_syms *syms)
{
	struct pg_bin *b;

	if (PG_ALLOC_GROW(sel->bins, sel->nbins + 1, sel->alloc)) {
		pg_elf_syms_release(syms);
		return -ENOMEM;
	}
	b = &sel->bins[sel->nbins];
	memset(b, 0, sizeof(*b));
	b->path = strdup(path);
	b->chosen = calloc(syms->n, sizeof(bool));
	if (!b->path || !b->chosen) {
		free(b->path);
		free(b->chosen);
		pg_elf_syms_release(syms);
		return -ENOMEM;
	}
	b->syms = *syms;
	memset(syms, 0, sizeof(*syms));
	sel->nbins++;
	return 0;
}

struct pg_bin *pg_selection_bin(struct pg_selection *sel, const char *path)
{
	struct pg_elf_syms syms;

	for (size_t i = 0; i < sel->nbins; i++)
		if (!strcmp(sel->bins[i].path, path))
			return &sel->bins[i];
	if (pg_elf_syms_load(path, &syms) || pg_selection_add(sel, path, &syms))
		return NULL;
	return &sel->bins[sel->nbins - 1];
}

/*
 * The file a -f/-x BINARY (@what: the option as given) names, as the benchmark's processes
 * load it: a name answers to the file they mapped (a build tree's library before an
 * installed one of the same name), and a path that names a file they did not map, beside one
 * of that name that they did, is refused. Malloc'd; NULL after logging why.
 */
static char *resolve_spec(const struct pg_selection *sel, const char *what, const char *spec)
{
	const struct pg_objects *objs = sel->disc ? &sel->disc->objs : NULL;
	const struct pg_object *o;
	char *path;

	if (objs && !strchr(spec, '/') && (o = pg_objects_by_name(objs, spec)))
		return strdup(o->path);
	path = pg_resolve_binary(spec, sel->exe, sel->exe_interp);
	if (!path || !objs || pg_objects_find(objs, path))
		return path;
	o = pg_objects_by_name(objs, pg_basename(path));
	if (o) {
		pg_err("%s: %s is not the file the benchmark's processes load: they map %s, of "
		       "the same name; name that one (%s:GLOB)", what, path, o->path, o->path);
		free(path);
		return NULL;
	}
	return path;
}

/* Resolve the BINARY part of a filter (NULL: the executable) to a loaded binary. */
static struct pg_bin *filter_bin(struct pg_selection *sel, const char *what, const char *spec)
{
	struct pg_bin *b;
	char *path;

	if (!spec)
		return pg_selection_bin(sel, sel->exe);
	path = resolve_spec(sel, what, spec);
	if (!path)
		return NULL;
	b = pg_selection_bin(sel, path);
	free(path);
	return b;
}

static int apply_filters(struct pg_selection *sel, const struct pg_record_opts *o)
{
	char *spec = NULL, *glob = NULL;
	int err = 0;

	for (size_t i = 0; i < o->nfilters && !err; i++) {
		struct pg_bin *b;
		size_t hits = 0;

		err = pg_parse_filter(o->filters[i], &spec, &glob);
		if (err) {
			pg_err("-f '%s': expected [BINARY:]GLOB", o->filters[i]);
			break;
		}
		b = filter_bin(sel, o->filters[i], spec);
		if (!b) {
			err = -ENOENT;
			if (!spec)
				pg_err("-f '%s': %s is not an ELF executable; name the binary to "
				       "trace: -f PATH:GLOB", o->filters[i], sel->exe);
		} else {
			for (size_t k = 0; k < b->syms.n; k++) {
				if (pg_sym_matches(&b->syms.syms[k], glob)) {
					b->chosen[k] = true;
					hits++;
				}
			}
			if (!hits) {
				pg_err("-f '%s': no function in %s matches '%s'", o->filters[i],
				       b->path, glob);
				err = -ENOENT;
			}
		}
		free(spec);
		free(glob);
		spec = glob = NULL;
	}
	return err;
}

/*
 * Choose in @b the functions that are on the first pass's stacks (in a system object, only
 * those that hold PG_BUDGET_MIN_OWN of the samples as their own user time: not the C
 * runtime's start-up frames under every stack, nor a syscall wrapper) and not C run-time helpers,
 * while *@n < o->max_funcs; count those past the cap in *@capped.
 */
static void choose_seen(struct pg_selection *sel, struct pg_bin *b,
			const struct pg_record_opts *o, size_t *n, size_t *capped)
{
	bool sys = pg_object_is_system(b->path);
	char **names = sys ? sel->leaves : sel->frames;
	size_t nnames = sys ? sel->nleaves : sel->nframes;

	for (size_t k = 0; k < b->syms.n; k++) {
		const struct pg_sym *s = &b->syms.syms[k];

		if (pg_sym_is_runtime(s->name) ||
		    !pg_frames_have(names, nnames, s->display ? s->display : s->name))
			continue;
		if (*n >= o->max_funcs) {
			(*capped)++;
			continue;
		}
		b->chosen[k] = true;
		(*n)++;
	}
}

/*
 * The default selection after a sampled first pass: the functions on its stacks, in the
 * objects that hold its samples (pg_objects_candidates(): the project's code first, the
 * system's libraries only when they hold much of the time), most sampled objects first.
 * Returns how many were chosen (0: none, the caller falls back), or -ENOMEM.
 */
static long apply_discovered(struct pg_selection *sel, const struct pg_record_opts *o)
{
	const struct pg_objects *objs = &sel->disc->objs;
	bool *take = calloc(objs->n ? objs->n : 1, sizeof(*take));
	size_t *order = calloc(objs->n ? objs->n : 1, sizeof(*order));
	double *self = malloc((objs->n ? objs->n : 1) * sizeof(*self));
	size_t n = 0, capped = 0;
	struct pg_strbuf where = PG_STRBUF_INIT;
	bool project = false;
	int err;

	if (!take || !order || !self) {
		free(take);
		free(order);
		free(self);
		return -ENOMEM;
	}
	if (sel->disc->samples < PG_DISCOVER_MIN_SAMPLES) {	/* too thin: the program's own */
		free(take);
		free(order);
		free(self);
		if (sel->script) {
			pg_err("%s is a script whose processes took too few samples (%llu) to tell "
			       "what they run: run the program itself, or name what to trace with "
			       "-f BINARY:GLOB", sel->named,
			       (unsigned long long)sel->disc->samples);
			return -ENOENT;
		}
		pg_debug("the first pass took %llu samples: too few to find the code that holds "
			 "the time", (unsigned long long)sel->disc->samples);
		return 0;
	}
	pg_objects_candidates(objs, take);
	for (size_t i = 0; i < objs->n; i++) {
		order[i] = i;
		self[i] = (double)objs->v[i].self;
		project |= take[i] && !pg_object_is_system(objs->v[i].path);
	}
	if (!project && sel->script) {
		pg_err("%s is a script whose processes ran only the system's programs and "
		       "libraries (%s, ...): no code of a project to measure; run the program "
		       "itself, or name what to trace with -f BINARY:GLOB", sel->named,
		       pg_basename(sel->exe));
		free(take);
		free(order);
		free(self);
		return -ENOENT;
	}
	pg_sort_idx_desc(self, order, objs->n);	/* equal counts: the first found first */
	for (size_t j = 0; j < objs->n; j++) {
		const struct pg_object *ob = &objs->v[order[j]];
		struct pg_bin *b;
		size_t before = n;

		if (!take[order[j]] || !(b = pg_selection_bin(sel, ob->path)))
			continue;
		choose_seen(sel, b, o, &n, &capped);
		if (n > before)
			pg_strbuf_addf(&where, "%s%s (%.0f%% of the samples)",
				       where.len ? ", " : "", pg_basename(ob->path),
				       100.0 * (double)ob->self / (double)objs->samples_user);
	}
	if (n && capped)
		pg_warn("%zu more functions on the first pass's stacks are past --max-funcs %u",
			capped, o->max_funcs);
	if (n && !o->quiet)
		pg_info("no -f given: %zu candidate function%s on the first pass's stacks, in %s",
			n, n == 1 ? "" : "s", where.len ? where.s : "?");
	err = where.err;
	pg_strbuf_release(&where);
	free(take);
	free(order);
	free(self);
	return err ? err : (long)n;
}

static int apply_default(struct pg_selection *sel, const struct pg_record_opts *o)
{
	struct pg_bin *b = pg_selection_bin(sel, sel->exe);
	size_t n = 0, total = 0;

	if (!b) {
		pg_err("%s is not an ELF executable with symbols: choose what to trace with "
		       "-f PATH:GLOB", sel->exe);
		return -ENOENT;
	}
	for (size_t k = 0; k < b->syms.n; k++)
		if (!pg_sym_is_runtime(b->syms.syms[k].name))
			total++;
	for (size_t k = 0; k < b->syms.n && n < o->max_funcs; k++) {
		if (pg_sym_is_runtime(b->syms.syms[k].name))
			continue;
		b->chosen[k] = true;
		n++;
	}
	if (total > n)
		pg_warn("%s has %zu functions; tracing the first %zu by address (choose with "
			"-f GLOB, or raise --max-funcs)", pg_basename(sel->exe), total, n);
	else if (o->budget_pct > 0)	/* the budget chooses among them: it says what */
		pg_debug("no -f given: %zu functions of %s to choose from", n,
			 pg_basename(sel->exe));
	else
		pg_info("no -f given: tracing %s %zu function%s of %s", n == 1 ? "the" : "all", n,
			pg_plural(n), pg_basename(sel->exe));
	return 0;
}

static int apply_excludes(struct pg_selection *sel, const struct pg_record_opts *o)
{
	for (size_t i = 0; i < o->nexcludes; i++) {
		char *spec, *glob;
		char *path = NULL;

		if (pg_parse_filter(o->excludes[i], &spec, &glob)) {
			pg_err("-x '%s': expected [BINARY:]GLOB", o->excludes[i]);
			return -EINVAL;
		}
		if (spec) {
			path = resolve_spec(sel, o->excludes[i], spec);
			if (!path) {
				free(spec);
				free(glob);
				return -ENOENT;
			}
		}
		for (size_t b = 0; b < sel->nbins; b++) {
			struct pg_bin *bin = &sel->bins[b];

			if (path && strcmp(path, bin->path))
				continue;
			for (size_t k = 0; k < bin->syms.n; k++)
				if (pg_sym_matches(&bin->syms.syms[k], glob))
					bin->chosen[k] = false;
		}
		free(path);
		free(spec);
		free(glob);
	}
	return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A function's key within its binary for --functions-of: "NAME\x1fSCOPE", with an empty
 * SCOPE for a name that was unique in its binary (malloc'd; NULL on -ENOMEM).
 */
static char *named_key(const char *name, const char *scope)
{
	char *k;

	return asprintf(&k, "%s\x1f%s", name, scope ? scope : "") < 0 ? NULL : k;
}

/* Drop the repeats of sorted @v[0..n) (freeing them); the new count. */
static size_t unique_strs(char **v, size_t n)
{
	size_t w = 0;

	for (size_t r = 0; r < n; r++) {
		if (w && !strcmp(v[w - 1], v[r]))
			free(v[r]);
		else
			v[w++] = v[r];
	}
	return w;
}

/* A named_key() as a person reads it: "name" or "name [scope]" (malloc'd; NULL: -ENOMEM). */
static char *pretty_key(const char *key)
{
	const char *sep = strchr(key, '\x1f');
	char *out;

	if (!sep || !sep[1])
		return strndup(key, sep ? (size_t)(sep - key) : strlen(key));
	return asprintf(&out, "%.*s [%s]", (int)(sep - key), key, sep + 1) < 0 ? NULL : out;
}

/*
 * Choose in @b the symbols whose keys (named_key()) are in @keys[0..n) (sorted, unique); set
 * found[i] for each key found. A key without a scope chooses every symbol of that name (the
 * name was unique where the source run was recorded; a static function may have several
 * here). Returns how many symbols were chosen, or -ENOMEM.
 */
static long choose_named(struct pg_bin *b, char **keys, size_t n, bool *found)
{
	long hits = 0;

	for (size_t k = 0; k < b->syms.n; k++) {
		const struct pg_sym *s = &b->syms.syms[k];
		char *key = named_key(s->name, s->scope), **at;

		if (!key)
			return -ENOMEM;
		at = bsearch(&key, keys, n, sizeof(*keys), cmp_str_ptr);
		if (!at && s->scope) {	/* recorded where the name was unique */
			free(key);
			if (!(key = named_key(s->name, NULL)))
				return -ENOMEM;
			at = bsearch(&key, keys, n, sizeof(*keys), cmp_str_ptr);
		}
		free(key);
		if (!at)
			continue;
		b->chosen[k] = true;
		found[at - keys] = true;
		hits++;
	}
	return hits;
}

/*
 * The binary recorded as @recorded in @src, today: @src's program is this command's program
 * whatever its name (perfgate ab ./tool-old ./tool-new); another by its base name as -f BIN:
 * finds it (the executable, a library of it), else the recorded path when it still exists.
 * NULL: neither.
 */
static char *functions_of_binary(const struct pg_selection *sel, const struct pg_run *src,
				 const char *recorded)
{
	const struct pg_object *o;
	char *path;

	if (src->meta.program && !strcmp(pg_basename(src->meta.program), pg_basename(recorded)) &&
	    pg_is_elf(sel->exe))
		return strdup(sel->exe);
	o = sel->disc ? pg_objects_by_name(&sel->disc->objs, pg_basename(recorded)) : NULL;
	path = o ? strdup(o->path) : pg_find_binary(pg_basename(recorded), sel->exe,
						     sel->exe_interp);
	return path ?: realpath(recorded, NULL);
}

/*
 * --functions-of: choose the source run's functions, binary by binary (found by base name, so
 * that the current build's files are traced, not the recorded paths), each by symbol name.
 * Functions and binaries that are gone are warned about; an error only when none is left.
 */
static int apply_functions_of(struct pg_selection *sel, const struct pg_record_opts *o)
{
	const struct pg_run *src = o->functions_of;
	size_t nf = src->nfuncs ? src->nfuncs : 1, chosen = 0, missing = 0, nbins_gone = 0;
	uint32_t *ids = pg_run_ids_by_key(src);
	char **names = calloc(nf, sizeof(*names));
	bool *found = calloc(nf, sizeof(*found));
	const char *bin_gone = NULL;
	char *example = NULL, what[PATH_MAX + 32];
	int err = ids && names && found ? 0 : -ENOMEM;

	if (o->functions_of_base)
		snprintf(what, sizeof(what), "the base side");
	else
		snprintf(what, sizeof(what), "--functions-of %s", o->functions_of_path);
	for (size_t i = 0, j; i < src->nfuncs && !err; i = j) {
		const struct pg_func *first = &src->funcs[ids[i]];
		const char *base = pg_basename(first->binary);
		size_t n = 0;
		struct pg_bin *b = NULL;
		char *path;

		/* this binary's functions: their keys, sorted, each once */
		for (j = i; j < src->nfuncs &&
			    !strcmp(pg_basename(src->funcs[ids[j]].binary), base); j++) {
			const struct pg_func *f = &src->funcs[ids[j]];

			if (!err && !(names[n++] = named_key(f->name, f->scope)))
				err = -ENOMEM;
		}
		if (err) {	/* the keys made so far (the last is NULL) */
			for (size_t k = 0; k < n; k++)
				free(names[k]);
			break;
		}
		qsort(names, n, sizeof(*names), cmp_str_ptr);
		n = unique_strs(names, n);
		path = functions_of_binary(sel, src, first->binary);
		if (path)
			b = pg_selection_bin(sel, path);
		free(path);
		if (!b) {
			nbins_gone++;
			bin_gone = bin_gone ?: base;
			missing += n;
		} else {
			long hits;

			memset(found, 0, n * sizeof(*found));
			hits = choose_named(b, names, n, found);
			if (hits < 0)
				err = (int)hits;
			chosen += hits > 0 ? (size_t)hits : 0;
			for (size_t k = 0; k < n && !err; k++) {
				if (found[k])
					continue;
				missing++;
				if (!example && !(example = pretty_key(names[k])))
					err = -ENOMEM;
			}
		}
		for (size_t k = 0; k < n; k++)
			free(names[k]);
	}
	if (!err && nbins_gone)
		pg_warn("%s: %zu of its binaries (%s%s) cannot be found by name among %s's "
			"libraries, nor at the recorded path: their functions are not traced", what,
			nbins_gone, bin_gone, nbins_gone > 1 ? ", ..." : "", pg_basename(sel->exe));
	if (!err && example)
		pg_warn("%s: some of its functions are not in %s's binaries (%s): the code "
			"changed, and compare will list them as removed", what,
			pg_basename(sel->exe), example);
	if (!err && !chosen) {
		pg_err("%s: none of its functions is in %s's binaries", what,
		       pg_basename(sel->exe));
		err = -ENOENT;
	}
	if (!err && !o->quiet && !o->functions_of_base)
		pg_info("%s: tracing %zu function%s (%zu of its %zu not found)", what, chosen,
			pg_plural(chosen),
			missing, src->nfuncs);
	if (err == -ENOMEM)
		pg_err("%s: out of memory", what);
	free(ids);
	free(names);
	free(found);
	free(example);
	return err;
}

int pg_select(struct pg_selection *sel, const struct pg_record_opts *o)
{
	int err;

	if (o->functions_of) {
		err = apply_functions_of(sel, o);
	} else if (o->nfilters) {
		err = apply_filters(sel, o);
	} else {
		long n = sel->disc ? apply_discovered(sel, o) : 0;

		err = n < 0 ? (int)n : n ? 0 : apply_default(sel, o);
	}
	return err ?: apply_excludes(sel, o);
}

/* Turn the chosen symbols into the run's function table: one function per address. */
int pg_selection_build(struct pg_selection *sel, struct pg_run *run, size_t site_count[])
{
	for (size_t b = 0; b < sel->nbins; b++) {
		struct pg_bin *bin = &sel->bins[b];
		size_t first = run->nfuncs;
		uint64_t last = 0;
		bool have_last = false;

		for (size_t k = 0; k < bin->syms.n; k++) {
			const struct pg_sym *s = &bin->syms.syms[k];
			int err;

			if (!bin->chosen[k] || (have_last && s->addr == last))
				continue;
			err = pg_run_add_func(run, bin->path, s->name, s->display, s->addr,
					      s->offset, s->site, s->endbr, NULL);
			err = err ?: pg_func_set_scope(&run->funcs[run->nfuncs - 1], s->scope);
			if (err)
				return err;
			site_count[s->site]++;
			last = s->addr;
			have_last = true;
		}
		if (pg_srcline_fill(run, first, bin->path))
			return -ENOMEM;
	}
	if (!run->nfuncs) {
		pg_err("no function left to trace (every match was excluded)");
		return -ENOENT;
	}
	return 0;
}

void pg_explain_sites(const size_t site[])
{
	if (site[PG_SITE_SSTEP])
		pg_warn("%zu function%s start%s with an instruction the kernel must single-step: "
			"a traced call costs ~10x more there; build with clang "
			"-fpatchable-function-entry=5 or gcc -pg -mfentry -mnop-mcount -fno-pie "
			"-no-pie for cheap probes", site[PG_SITE_SSTEP],
			site[PG_SITE_SSTEP] == 1 ? "" : "s", site[PG_SITE_SSTEP] == 1 ? "s" : "");
	pg_debug("probe sites: %zu nop5, %zu emulated, %zu single-stepped", site[PG_SITE_NOP5],
		 site[PG_SITE_EMULATED], site[PG_SITE_SSTEP]);
}
