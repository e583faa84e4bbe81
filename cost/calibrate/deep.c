// deep.c D N: recurse D frames deep (frame pointers kept), then N close(-1)
// through an inline syscall instruction, so a user callchain walked by frame
// pointers has about D+2 entries. Prints CPU and wall time like closeloop.c.
#include <stdlib.h>
#include "timing.h"

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
	report(c0, w0);
}

int main(int argc, char **argv) {
	rec(argc > 1 ? atoi(argv[1]) : 0, argc > 2 ? atol(argv[2]) : 1000000);
	return 0;
}
