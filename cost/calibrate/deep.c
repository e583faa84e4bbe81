// deep.c D N: recurse D frames deep (frame pointers kept), then N close(-1)
// through an inline syscall instruction, so a user callchain walked by frame
// pointers has about D+2 entries. Prints CPU and wall time like closeloop.c.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long long cpu_ns(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static long long wall_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long sys_close(long fd) {
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(3L), "D"(fd) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) static void rec(int d, long n) {
	if (d > 0) {
		rec(d - 1, n);
		__asm__ volatile("" ::: "memory");
		return;
	}
	long long c0 = cpu_ns(), w0 = wall_ns();
	for (long i = 0; i < n; i++)
		sys_close(-1);
	long long c1 = cpu_ns(), w1 = wall_ns();
	printf("cpu_ns %lld wall_ns %lld\n", c1 - c0, w1 - w0);
}

int main(int argc, char **argv) {
	rec(argc > 1 ? atoi(argv[1]) : 0, argc > 2 ? atol(argv[2]) : 1000000);
	return 0;
}
