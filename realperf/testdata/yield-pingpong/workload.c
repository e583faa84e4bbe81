/* yield-pingpong: pin to CPU 0, fork, and have parent and child call
 * sched_yield() N times each: with both runnable on one CPU every yield
 * switches to the other (the paired case yield-pingpong). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	cpu_set_t set;
	pid_t p;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	p = fork();
	for (int i = 0; i < n; i++)
		sched_yield();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return 0;
}
