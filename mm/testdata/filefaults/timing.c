/* timing N: read a cold file of N pages (written, synced, dropped from the
 * page cache) through a private mapping, page by page in order, and print
 * the loop's voluntary context switches (its sleeps in D on the disk),
 * faults and wall time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	long n = atol(argv[1]);
	char path[] = "/var/tmp/nvXXXXXX"; int fd = mkstemp(path); unlink(path);
	char buf[4096]; memset(buf, 7, sizeof buf);
	for (long i = 0; i < n; i++) write(fd, buf, sizeof buf);
	fsync(fd); posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); usleep(100000);
	volatile char *p = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	struct rusage a, b; struct timespec t0, t1;
	getrusage(RUSAGE_SELF, &a); clock_gettime(CLOCK_MONOTONIC, &t0);
	char s = 0; for (long i = 0; i < n; i++) s += p[i * 4096];
	clock_gettime(CLOCK_MONOTONIC, &t1); getrusage(RUSAGE_SELF, &b);
	printf("n=%ld nvcsw=%ld minflt=%ld majflt=%ld wall_us=%.0f\n", n, b.ru_nvcsw - a.ru_nvcsw, b.ru_minflt - a.ru_minflt, b.ru_majflt - a.ru_majflt, ((t1.tv_sec - t0.tv_sec) * 1e9 + t1.tv_nsec - t0.tv_nsec) / 1e3);
	return s;
}
