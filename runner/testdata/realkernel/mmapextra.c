/*
 * mmapextra.c N [PAGES]: maps a software event's ring (1 + PAGES data pages,
 * default 8) twice N times (open, mmap, mmap, munmap, munmap, close), then
 * maps a fresh event's ring and prints how much of it the kernel charged to
 * mm->pinned_vm (/proc/self/status VmPin): the part of the mapping over the
 * user's perf_event_mlock_kb allowance, so how much user->locked_vm the N
 * extra mappings left behind. With "big", it maps 1 + 2048 pages instead of
 * the fresh ring and prints the errno of a refusal.
 * For mmapextra.sh; perf_event_paranoid 2 lets an unprivileged user open it
 * (exclude_kernel, exclude_hv).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_event(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long vmpin_kb(void)
{
	char l[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (fgets(l, sizeof(l), f))
		if (!strncmp(l, "VmPin:", 6))
			v = atol(l + 6);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	int pages = argc > 2 && strcmp(argv[2], "big") ? atoi(argv[2]) : 8;
	int big = argc > 2 && !strcmp(argv[2], "big");
	long ps = sysconf(_SC_PAGESIZE);
	size_t len = (1 + pages) * ps;

	for (int i = 0; i < n; i++) {
		int fd = open_event();
		void *a = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		void *b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (fd < 0 || a == MAP_FAILED || b == MAP_FAILED) {
			perror("mmapextra: the double mapping");
			return 1;
		}
		munmap(a, len);
		munmap(b, len);
		close(fd);
	}
	if (big)
		len = (1 + 2048) * ps;
	int fd = open_event();
	void *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("extra %d fresh %zu pages: mmap errno %d (%s)\n", n, len / ps, errno, strerror(errno));
		return 0;
	}
	printf("extra %d fresh %zu pages: VmPin %ld kB\n", n, len / ps, vmpin_kb());
	return 0;
}
