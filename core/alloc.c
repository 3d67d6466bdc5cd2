// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"

int pg_alloc_grow(void **arr, size_t elsize, size_t need, size_t *alloc)
{
	size_t cap = *alloc;
	void *p;

	if (need <= cap)
		return 0;
	if (!elsize || need > SIZE_MAX / 2 / elsize)
		return -ENOMEM;
	cap = cap + cap / 2 > cap + 8 ? cap + cap / 2 : cap + 8;
	if (cap < need)
		cap = need;
	if (cap > SIZE_MAX / 2 / elsize)
		cap = need;
	p = realloc(*arr, cap * elsize);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*alloc = cap;
	return 0;
}

int pg_alloc_grow_pow2(void **arr, size_t elsize, size_t n)
{
	void *p;

	if (n && (n < 8 || (n & (n - 1))))
		return 0;
	if (!elsize || n > SIZE_MAX / 4 / elsize)
		return -ENOMEM;
	p = realloc(*arr, (n ? n * 2 : 8) * elsize);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}
