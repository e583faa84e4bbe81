// closeloop.c N: seed 002's benchmark, N close(-1) calls. Prints the CPU time
// the loop took in nanoseconds (user + system, getrusage(RUSAGE_SELF), so
// other load on the machine does not count) and its wall time.
#include <stdlib.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 3000000;
	long long c0 = cpu_ns(), w0 = wall_ns();
	for (long i = 0; i < n; i++)
		close(-1);
	report(c0, w0);
	return 0;
}
