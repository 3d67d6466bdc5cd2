/* SPDX-License-Identifier: MIT */
#ifndef PG_VERSION_H
#define PG_VERSION_H
#define PERFGATE_VERSION "0.1.0"
#endif
