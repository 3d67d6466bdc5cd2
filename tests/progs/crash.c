// SPDX-License-Identifier: MIT
/* Exits with the status given as its first argument, or kills itself with SIGSEGV on "segv". */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int before_exit(int code) { return code; }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "segv"))
		raise(SIGSEGV);
	return before_exit(argc > 1 ? atoi(argv[1]) : 0);
}
