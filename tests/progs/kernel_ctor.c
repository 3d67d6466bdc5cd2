// SPDX-License-Identifier: MIT
/*
 * A kernel of ~30 us called 300 times beside a constructor of ~1 us called 10,000 times: the
 * default selection must trace the kernel, which holds the time, and not the constructor,
 * whose probes would cost about as much as its work (the selection tests).
 */
volatile unsigned long kc_sink;

struct obj {
	unsigned long v[4];
};

__attribute__((noinline)) void obj_init(struct obj *o, unsigned long i)
{
	for (unsigned long k = 0; k < 600; k++)
		kc_sink += k ^ i;
	o->v[0] = i;
}

__attribute__((noinline)) void kernel(unsigned long n)
{
	for (unsigned long k = 0; k < 60000; k++)
		kc_sink += k * n;
}

int main(void)
{
	struct obj o;

	for (unsigned long i = 0; i < 10000; i++)
		obj_init(&o, i);
	for (unsigned long i = 0; i < 300; i++)
		kernel(i);
	return (int)(o.v[0] & 0);
}
