// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the folded-stack reader (pg_folded_parse). It never reads past the input,
 * and what it accepts is sorted, unique, valid, and written back unchanged by a second parse.
 */
#include "../../formats/folded.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_stack *v = NULL, *v2 = NULL;
	size_t n = 0, n2 = 0, len = 0;
	char why[256], *text = NULL;
	FILE *f;

	fuzz_quiet();
	/* exactly @size bytes, not NUL-terminated: ASan catches a read past the end */
	if (pg_folded_parse((const char *)data, size, &v, &n, why, sizeof(why)))
		return 0;
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	if (pg_folded_write(f, v, n) || fclose(f))
		abort();
	if (pg_folded_parse(text, len, &v2, &n2, why, sizeof(why)) || n2 != n)
		abort();	/* what we write, we read back */
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].folded, v2[i].folded) || v[i].count != v2[i].count)
			abort();
	pg_stacks_free(v, n);
	pg_stacks_free(v2, n2);
	free(text);
	return 0;
}
