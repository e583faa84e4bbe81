// spin.c N: a user loop of N iterations; prints its CPU and wall time in
// nanoseconds like closeloop.c (sampling it costs the difference).
#include <stdlib.h>
#include "timing.h"

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 300000000;
	volatile long x = 0;
	long long c0 = cpu_ns(), w0 = wall_ns();
	for (long i = 0; i < n; i++)
		x += i;
	report(c0, w0);
	return 0;
}
