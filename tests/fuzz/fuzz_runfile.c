// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the run-file reader (pg_runfile_parse). Whatever the input, the reader
 * returns 0 or an error without crashing, leaking or reading out of bounds; a run it accepts
 * satisfies every invariant of core/run.h and can be reported.
 */
#include "../../formats/runfile.h"
#include "../../reporters/report.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_text(data, size), why[256];
	struct pg_run run;

	fuzz_quiet();
	pg_run_init(&run);
	if (!pg_runfile_parse(buf, size, "fuzz", &run)) {
		if (pg_run_validate(&run, why, sizeof(why)))
			abort();	/* the reader accepted an invalid run */
		for (int fmt = PG_REPORT_TEXT; fmt <= PG_REPORT_JSON; fmt++)
			pg_report_write(&run, (enum pg_report_format)fmt, fuzz_null());
	}
	pg_run_release(&run);
	free(buf);
	return 0;
}
