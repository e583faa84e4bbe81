// yield.c N: fork one child; parent and child each call sched_yield() N
// times (run it pinned to one CPU: taskset -c 0), so every yield switches
// to the other. Prints the parent's CPU and wall time like closeloop.c.
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	pid_t pid = fork();
	long long c0 = cpu_ns(), w0 = wall_ns();
	for (long i = 0; i < n; i++)
		sched_yield();
	long long c1 = cpu_ns(), w1 = wall_ns();
	if (pid == 0)
		return 0;
	waitpid(pid, NULL, 0);
	printf("cpu_ns %lld wall_ns %lld\n", c1 - c0, w1 - w0);
	return 0;
}
