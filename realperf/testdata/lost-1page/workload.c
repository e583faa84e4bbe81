// workload.c N: N close(-1) calls, as fast as the kernel takes them.
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 300000;
	for (long i = 0; i < n; i++)
		close(-1);
	return 0;
}
