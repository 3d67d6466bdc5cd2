/* SPDX-License-Identifier: MIT */
/*
 * runner/probes/uprobe_multi.h - the uprobe_multi part of the BPF UAPI, for older headers.
 *
 * Debian 12's UAPI headers (Linux 6.1) know nothing of uprobe_multi links, which arrived in
 * Linux 6.6, and its libbpf 1.1 has no API for them. perfgate creates them itself with a raw
 * BPF_LINK_CREATE (runner/probes/probes.c), laying out the link_create part of union bpf_attr as
 * Linux 6.6+ does. Nothing here allocates or owns anything; the values are the kernel's ABI
 * and must never change.
 *
 *	union bpf_attr attr = { 0 };
 *	struct pg_link_create_uprobe_multi *lc = (void *)&attr.link_create;
 *
 *	lc->prog_fd = prog_fd;
 *	lc->attach_type = PG_BPF_TRACE_UPROBE_MULTI;
 *	lc->path = (__u64)(unsigned long)path;
 *	...
 *	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
 *
 * A kernel without uprobe_multi answers EINVAL (an unknown attach type), EOPNOTSUPP or ENOSYS.
 */
#ifndef PG_UPROBE_MULTI_H
#define PG_UPROBE_MULTI_H

#include <linux/bpf.h>
#include <linux/types.h>

/* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI */
#define PG_BPF_TRACE_UPROBE_MULTI 48
/* BPF_F_UPROBE_MULTI_RETURN: return probes, not entry probes */
#define PG_BPF_F_UPROBE_MULTI_RETURN 1U

/* The link_create part of union bpf_attr for uprobe_multi, as in Linux 6.6+. */
struct pg_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;		/* const char *: the binary */
	__u64 offsets;		/* const __u64 *: cnt file offsets */
	__u64 ref_ctr_offsets;	/* const __u64 *, or 0 */
	__u64 cookies;		/* const __u64 *: cnt BPF cookies, or 0 */
	__u32 cnt;
	__u32 um_flags;		/* PG_BPF_F_UPROBE_MULTI_RETURN or 0 */
	__u32 pid;		/* 0: every process */
};

_Static_assert(sizeof(struct pg_link_create_uprobe_multi) <= sizeof(union bpf_attr),
	       "bpf_attr too small for uprobe_multi");

#endif
