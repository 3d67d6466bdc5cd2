/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf/traced.h - the set of traced processes, shared by perfgate.bpf.c (which owns and fills
 * it) and sample.bpf.c (whose copy the runner points at the same map with bpf_map__reuse_fd,
 * so the two definitions must be one). Keys are tgids (and thread ids, harmlessly).
 */
#ifndef PG_BPF_TRACED_H
#define PG_BPF_TRACED_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

#endif
