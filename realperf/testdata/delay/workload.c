// workload.c N: a user loop of N iterations (50,000,000 take about 160 ms
// of CPU on this machine, the compute of case.sim).
#include <stdlib.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 300000000;
	volatile long x = 0;
	for (long i = 0; i < n; i++)
		x += i;
	return 0;
}
