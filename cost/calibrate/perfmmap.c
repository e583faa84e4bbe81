// perfmmap.c PAGES N: the CPU time perf_mmap() and munmap() of a perf ring
// of 1 + PAGES pages take: N dummy software events (task-bound, cpu -1, as
// perf record --per-thread opens them), each ring mapped, mapped again,
// unmapped twice, every step timed as a batch of N calls:
//   new     mmap() of a new ring: perf_mmap() -> perf_mmap_rb(): rb_alloc()
//           (a zeroed page for each of the 1 + PAGES) and map_range()
//           (vm_insert_pages() of each)
//   shared  a second mmap() of the same ring: map_range() alone
//   unmap   the second mapping's munmap(): perf_mmap_close(), not the last
//   last    the first's, the ring's last: perf_mmap_close() -> rb_free()
// Prints, per call, NAME_cpu_ns (user + system) and NAME_wall_ns of each.
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	long pages = atol(argv[1]), n = atol(argv[2]);
	size_t len = (1 + pages) * 4096;
	int *fd = calloc(n, sizeof *fd);
	void **p = calloc(n, sizeof *p), **q = calloc(n, sizeof *q);
	static const char *names[] = {"new", "shared", "unmap", "last"};
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	for (long i = 0; i < n; i++) {
		fd[i] = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd[i] < 0) {
			perror("perf_event_open");
			return 1;
		}
	}
	long long c = cpu_ns(), w = wall_ns();
	for (int step = 0; step < 4; step++) {
		for (long i = 0; i < n; i++) {
			void **v = step == 0 || step == 3 ? &p[i] : &q[i];
			if (step < 2) {
				*v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[i], 0);
				if (*v == MAP_FAILED) {
					perror("mmap");
					return 1;
				}
			} else if (munmap(*v, len) != 0) {
				perror("munmap");
				return 1;
			}
		}
		long long c1 = cpu_ns(), w1 = wall_ns();
		printf("%s_cpu_ns %lld %s_wall_ns %lld\n", names[step], (c1 - c) / n, names[step], (w1 - w) / n);
		c = cpu_ns(), w = wall_ns();
	}
	return 0;
}
