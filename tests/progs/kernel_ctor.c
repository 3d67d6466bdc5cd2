// SPDX-License-Identifier: MIT
/*
 * A kernel of ~2 ms called 30 times beside a constructor of ~1 us called 40,000 times: the
 * default selection must trace the kernel, which holds most of the time, and not the
 * constructor, whose probes would cost about as much as its work (the selection tests).
 *
 * Both are far from the default 5% budget's edge on any machine: the kernel's 30 calls cost
 * ~0.3% of the run even at 10 us a traced call (4x the slowest nop5 site calibrated on our
 * machines), and the constructor's 40,000 cost over 10% even at 0.5 us a call, the cheapest
 * floor the budget assumes (runner's pg_budget_call_cost()). The constructor still holds
 * an eighth of the CPU time, so the budget leaves out a function with a large share, and at
 * -F 4999 its samples (~40 a repetition) are enough for a sampled verdict (10 needed).
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
	for (unsigned long k = 0; k < 2000000; k++)
		kc_sink += k * n;
}

int main(void)
{
	struct obj o;

	for (unsigned long i = 0; i < 40000; i++)
		obj_init(&o, i);
	for (unsigned long i = 0; i < 30; i++)
		kernel(i);
	return (int)(o.v[0] & 0);
}
