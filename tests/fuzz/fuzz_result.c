// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the compare result format (formats/result.h, docs/compare-format.md), as
 * `perfgate vote` reads it. An input that parses is written back and must read again (the
 * writer writes what the reader reads), then voted on with both payloads. No crash, leak or
 * UB; a vote is -1, 0 or +1.
 */
#include "../../formats/result.h"
#include "../../reporters/vote.h"
#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the writer is atomic (temporary file and rename) and pg_vote_read() takes a path */
	path = fuzz_tmp("result", false);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct pg_vote_result r;
	char why[256];
	int v;

	fuzz_quiet();
	pg_vote_result_init(&r);
	if (!pg_result_parse(text, size, "input", &r.cmp, &r.base, &r.new)) {
		if (pg_result_write(&r.cmp, &r.base, &r.new, path))
			abort();
		pg_vote_result_release(&r);
		if (pg_vote_read(path, false, &r))
			abort();
		v = pg_vote_decide(&r, why, sizeof(why));
		if (v < -1 || v > 1)
			abort();
		for (int sys = PG_VOTE_GERRIT; sys <= PG_VOTE_GITHUB; sys++)
			free(pg_vote_payload(&r, (enum pg_vote_system)sys, "Performance", NULL));
	}
	pg_vote_result_release(&r);
	free(text);
	return 0;
}
