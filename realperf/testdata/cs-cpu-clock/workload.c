// workload.c K N: K rounds of a user loop of N iterations then a 1 ms
// nanosleep() (1,000,000 iterations take about 1.8 ms of CPU here).
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
	int k = argc > 1 ? atoi(argv[1]) : 10;
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	struct timespec ms = {0, 1000000};
	volatile long x = 0;
	for (int r = 0; r < k; r++) {
		for (long i = 0; i < n; i++)
			x += i;
		nanosleep(&ms, NULL);
	}
	return 0;
}
