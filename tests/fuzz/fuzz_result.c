// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the compare-result reader of `perfgate vote` (pg_vote_read, the JSON of
 * `perfgate compare --json`, docs/compare-format.md), then the vote and both payloads. No
 * crash, leak or UB; a vote is -1, 0 or +1.
 */
#include "../../reporters/vote.h"
#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* pg_vote_read() takes a path: a file rewritten for every input */
	path = fuzz_tmp("result", false);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_vote_result r;
	FILE *f = fopen(path, "w");
	char why[256];

	fuzz_quiet();
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	pg_vote_result_init(&r);
	if (!pg_vote_read(path, false, &r)) {
		int v = pg_vote_decide(&r, why, sizeof(why));

		if (v < -1 || v > 1)
			abort();
		for (int sys = PG_VOTE_GERRIT; sys <= PG_VOTE_GITHUB; sys++)
			free(pg_vote_payload(&r, (enum pg_vote_system)sys, "Performance"));
	}
	pg_vote_result_release(&r);
	return 0;
}
