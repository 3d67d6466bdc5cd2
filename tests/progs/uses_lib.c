// SPDX-License-Identifier: MIT
/* Calls pgtest_lib_func() in libpgtest.so 50 times. */
void pgtest_lib_func(unsigned long i);

int main(void)
{
	for (unsigned long i = 0; i < 50; i++)
		pgtest_lib_func(i);
	return 0;
}
