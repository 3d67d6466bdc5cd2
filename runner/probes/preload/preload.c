// SPDX-License-Identifier: MIT
/*
 * runner/probes/preload/preload.c - libperfgate-preload.so: C++ exceptions through traced
 * functions.
 *
 * A return probe replaces the traced function's return address on the stack with the kernel's
 * uretprobe trampoline (the first slot of the "[uprobes]" mapping). libgcc's unwinder finds no
 * unwind information there, so an exception thrown through a traced function would end in
 * std::terminate. perfgate preloads this library into the benchmark (LD_PRELOAD) and passes
 * it a read-only descriptor of the BPF map `rets` (PERFGATE_RETS_FD, PERFGATE_RETS_MAP_ID), in
 * which the entry probes publish, per thread, where each traced frame's return address lies
 * and what it was (struct pg_bpf_rets, bpf/perfgate.h). The library interposes:
 *  - _Unwind_RaiseException, _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind (libstdc++ calls
 *    them in libgcc_s through its PLT): before the real one unwinds, it writes the real return
 *    addresses back into this thread's slots that still hold the trampoline ("fix");
 *  - pthread_exit: glibc unwinds the thread (running C++ destructors) by calling libgcc_s
 *    directly, past any interposer, so the fix comes first here; nothing is re-armed, as the
 *    thread ends;
 *  - __cxa_begin_catch: once a handler caught the exception, it puts the trampoline back into
 *    the slots that exception's fix wrote for frames that are still live, at or above the
 *    catching frame's stack pointer ("re-arm"), so that their return probes fire as usual.
 *    The kernel drops the return instances of the unwound frames itself, as after a longjmp.
 * Each fixed slot is remembered with its exception: another exception may be thrown and
 * caught while one unwinds (in a destructor), or the unwinder's entry points may call each
 * other for the same exception (_Unwind_Resume_or_Rethrow calls _Unwind_RaiseException).
 *
 * Without perfgate's environment, or when anything does not check out (the descriptor, the
 * map, the thread's entry, a slot), every function here only forwards to the real one. The
 * library never prints and never makes a program fail that works without it. It is built
 * without sanitizers and links nothing but libc.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unwind.h>

#include "../../../bpf/perfgate.h"

#define EXPORT __attribute__((visibility("default")))

/* the caller's stack pointer before its call to us (built with frame pointers) */
#define CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 16)

static const volatile struct pg_bpf_rets *rets;	/* the mapped map; NULL: pass-through */
static uintptr_t tramp;		/* the trampoline's address, 0 until found */

/* The slots this thread's fixes wrote and that were not re-armed yet. */
struct fixed {
	uintptr_t slot;
	uintptr_t ra;
	const void *exc;	/* the exception whose unwinding needed it */
};
static __thread struct fixed fixed[PG_MAX_DEPTH];
static __thread unsigned int nfixed;
static __thread uintptr_t stack_lo, stack_hi;	/* this thread's stack; 0 until looked up */

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated. Length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	if (fd < 0)
		return -1;
	while (len < (ssize_t)size - 1 && (n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The number after "@key:" at the start of a line of @text, or -1. */
static long long field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* A decimal number that is all of @s, or -1. */
static long long number(const char *s)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end ? -1 : v;
}

/*
 * Map the `rets` array read-only when PERFGATE_RETS_FD is a descriptor of a BPF array map with
 * id PERFGATE_RETS_MAP_ID and this library's entry layout: the benchmark may have closed the
 * descriptor and reused its number, or been started by another perfgate version.
 */
__attribute__((constructor)) static void preload_init(void)
{
	long long fd = number(getenv("PERFGATE_RETS_FD"));
	long long id = number(getenv("PERFGATE_RETS_MAP_ID"));
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = PG_RETS_THREADS * sizeof(struct pg_bpf_rets);
	char path[64], text[1024];
	ssize_t n;
	void *m;

	if (fd < 0 || fd > 1 << 30 || id <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%lld", fd);
	n = readlink(path, text, sizeof(text) - 1);
	if (n < 0)
		return;
	text[n] = '\0';
	if (strcmp(text, "anon_inode:bpf-map"))
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%lld", fd);
	if (read_small(path, text, sizeof(text)) <= 0 || field(text, "map_id") != id ||
	    field(text, "map_type") != BPF_MAP_TYPE_ARRAY ||
	    field(text, "value_size") != (long long)sizeof(struct pg_bpf_rets) ||
	    field(text, "max_entries") != PG_RETS_THREADS)
		return;
	size = (size + page - 1) / page * page;
	m = mmap(NULL, size, PROT_READ, MAP_SHARED, (int)fd, 0);
	if (m != MAP_FAILED)
		rets = m;
}

/* The start of the "[uprobes]" mapping, where the return trampoline is; 0 if there is none. */
static uintptr_t find_trampoline(void)
{
	static const char name[] = "[uprobes]";
	const size_t len = sizeof(name) - 1;
	char buf[4096], tail[sizeof(name) - 1];
	uintptr_t start = 0, found = 0;
	bool in_start = true;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	memset(tail, 0, len);
	while (!found && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && !found; i++) {
			char c = buf[i];

			if (c == '\n') {
				if (!memcmp(tail, name, len))
					found = start;
				memset(tail, 0, len);
				start = 0;
				in_start = true;
				continue;
			}
			if (in_start && c >= '0' && c <= '9')
				start = start << 4 | (uintptr_t)(c - '0');
			else if (in_start && c >= 'a' && c <= 'f')
				start = start << 4 | (uintptr_t)(c - 'a' + 10);
			else
				in_start = false;
			memmove(tail, tail + 1, len - 1);
			tail[len - 1] = c;
		}
	}
	close(fd);
	return found;
}

/* Look up this thread's stack once; false when it cannot be known. */
static bool stack_known(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (stack_hi)
		return true;
	if (pthread_getattr_np(pthread_self(), &a))
		return false;
	if (!pthread_attr_getstack(&a, &addr, &size) && size) {
		stack_lo = (uintptr_t)addr;
		stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
	return stack_hi != 0;
}

/* Forget the fixed slots below @sp (their frames are gone) or that were overwritten since. */
static void forget_dead(uintptr_t sp)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nfixed; i++)
		if (fixed[i].slot >= sp && *(volatile uintptr_t *)fixed[i].slot == fixed[i].ra)
			fixed[k++] = fixed[i];
	nfixed = k;
}

/*
 * Before @exc unwinds from @sp: put the real return addresses back into this thread's slots at
 * or above @sp (the frames the unwinding will walk) that hold the trampoline, innermost first,
 * and remember them for rearm(). The thread's entry is copied between two reads of its owner's
 * tid: an entry taken over by a thread whose id collides (mod PG_RETS_THREADS) is left alone.
 */
static void fix(uintptr_t sp, const void *exc)
{
	uintptr_t slot[PG_MAX_DEPTH], ra[PG_MAX_DEPTH], t;
	const volatile struct pg_bpf_rets *e;
	unsigned int base, depth, tid;

	if (!rets)
		return;
	forget_dead(sp);
	tid = (unsigned int)gettid();
	e = &rets[tid & (PG_RETS_THREADS - 1)];
	if (__atomic_load_n(&e->tid, __ATOMIC_ACQUIRE) != tid)
		return;
	base = e->base;
	depth = e->depth;
	if (depth > PG_MAX_DEPTH || base >= depth)
		return;
	for (unsigned int i = base; i < depth; i++) {
		slot[i] = (uintptr_t)e->slot[i];
		ra[i] = (uintptr_t)e->ra[i];
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e->tid, __ATOMIC_ACQUIRE) != tid)
		return;
	if (!tramp)
		tramp = find_trampoline();
	t = tramp;
	if (!t || !stack_known() || sp < stack_lo || sp >= stack_hi)
		return;
	for (unsigned int i = depth; i-- > base;) {
		volatile uintptr_t *p = (volatile uintptr_t *)slot[i];

		/* a tail-called frame shares its caller's slot; the caller's entry fixes it */
		if (ra[i] == t || slot[i] < sp || slot[i] > stack_hi - sizeof(*p) ||
		    slot[i] % sizeof(*p) || *p != t)
			continue;
		*p = ra[i];
		if (nfixed < PG_MAX_DEPTH)	/* else that frame's return is not timed */
			fixed[nfixed++] = (struct fixed){ slot[i], ra[i], exc };
	}
}

/*
 * @exc was caught by the frame whose stack pointer is @sp, or its unwinding ended without
 * unwinding anything: put the trampoline back into the slots its fixes wrote at or above @sp
 * (live frames, whose return instances the kernel still holds), and forget all of its slots.
 */
static void rearm(uintptr_t sp, const void *exc)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nfixed; i++) {
		volatile uintptr_t *p = (volatile uintptr_t *)fixed[i].slot;

		if (fixed[i].exc != exc)
			fixed[k++] = fixed[i];
		else if (fixed[i].slot >= sp && *p == fixed[i].ra)
			*p = tramp;
	}
	nfixed = k;
}

/*
 * The next definition of @name after this library; for a library that was dlopen'ed without
 * RTLD_GLOBAL (out of RTLD_NEXT's reach), the one in @soname if that is loaded.
 */
static void *real(const char *name, const char *soname)
{
	void *f = dlsym(RTLD_NEXT, name), *h;

	if (f)
		return f;
	h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	f = dlsym(h, name);
	dlclose(h);
	return f;
}

/* *@cache, or else real(@name, @soname) remembered there. */
static void *resolve(void **cache, const char *name, const char *soname)
{
	void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);

	if (!f) {
		f = real(name, soname);
		__atomic_store_n(cache, f, __ATOMIC_RELAXED);
	}
	return f;
}

typedef _Unwind_Reason_Code (*unwind_fn)(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code (*forced_fn)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);

/*
 * The unwinder's entry points, called from the frame whose stack pointer is @sp: fix, let the
 * real one (@fn; a forced_fn with @stop and @arg when @forced) unwind @exc, and when it returns
 * (no handler, so the caller terminates, or an error) re-arm every slot, as no frame was
 * unwound.
 */
static _Unwind_Reason_Code unwind(void *fn, bool forced, struct _Unwind_Exception *exc,
				  _Unwind_Stop_Fn stop, void *arg, uintptr_t sp)
{
	_Unwind_Reason_Code r;

	if (!fn)
		return forced ? _URC_FATAL_PHASE2_ERROR : _URC_FATAL_PHASE1_ERROR;
	fix(sp, exc);
	r = forced ? ((forced_fn)fn)(exc, stop, arg) : ((unwind_fn)fn)(exc);
	rearm(sp, exc);
	return r;
}

EXPORT _Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *exc)
{
	static void *next;

	return unwind(resolve(&next, "_Unwind_RaiseException", "libgcc_s.so.1"), false, exc,
		      NULL, NULL, CALLER_SP());
}

EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *exc)
{
	static void *next;

	return unwind(resolve(&next, "_Unwind_Resume_or_Rethrow", "libgcc_s.so.1"), false, exc,
		      NULL, NULL, CALLER_SP());
}

EXPORT _Unwind_Reason_Code _Unwind_ForcedUnwind(struct _Unwind_Exception *exc,
						_Unwind_Stop_Fn stop, void *arg)
{
	static void *next;

	return unwind(resolve(&next, "_Unwind_ForcedUnwind", "libgcc_s.so.1"), true, exc, stop,
		      arg, CALLER_SP());
}

/* A handler caught @exc (its _Unwind_Exception): the frames at or above its caller's live. */
EXPORT void *__cxa_begin_catch(void *exc)
{
	static void *next;
	void *(*begin)(void *) = resolve(&next, "__cxa_begin_catch", "libstdc++.so.6");
	void *r;

	if (!begin)
		abort();	/* only a C++ program calls it, and then libstdc++ is loaded */
	r = begin(exc);
	rearm(CALLER_SP(), exc);
	return r;
}

/* The thread ends by a forced unwinding that glibc starts out of this library's reach. */
EXPORT void pthread_exit(void *ret)
{
	static void *next;
	void (*exit_thread)(void *) = resolve(&next, "pthread_exit", "libc.so.6");

	if (!exit_thread)
		abort();	/* libc has it */
	fix(CALLER_SP(), NULL);
	exit_thread(ret);
	__builtin_unreachable();
}
