/* set-output-mmap: the rules of PERF_EVENT_IOC_SET_OUTPUT and of mmap() on a
 * perf fd, on page-faults events (period 1, sample_type IP) of the process.
 *
 * ./workload setoutput  a is mapped (eight data pages); SET_OUTPUT of a into
 *                       itself, of c (pid 0, cpu 0) into a (another CPU),
 *                       of b into d (no ring), of a into b (a is mapped):
 *                       EINVAL each (perf_event_set_output()); b into a
 *                       works, and mmap() of b then fails with EBUSY (its
 *                       rb is a's and b has no mmap_count: "we're
 *                       attempting to create an alias of another event's
 *                       mmap()", perf_mmap_rb()); ten faults: a's and b's
 *                       samples all in a's ring (twenty 16-byte records)
 *   mmap                a: 3 data pages (not a power of two): EINVAL; b, an
 *                       inherit event of cpu -1: EINVAL; a: 4 pages; a: 4
 *                       pages again; a: 8 pages (another size): EINVAL;
 *                       c: the user page only
 * It prints "KEY VALUE" lines: how many calls failed with EINVAL and
 * EBUSY, how many mmap()s succeeded, and the samples in a's ring. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int einval, ebusy, mapped;

static int open_faults(int cpu, int inherit)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.inherit = inherit;
	a.disabled = 1;
	int fd = syscall(SYS_perf_event_open, &a, 0, cpu, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(2);
	}
	return fd;
}

static void tally(int err)
{
	if (err == EINVAL)
		einval++;
	else if (err == EBUSY)
		ebusy++;
}

static void set_output(int fd, int to)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, to) < 0)
		tally(errno);
}

static void *map_ring(int fd, int pages)
{
	void *m = mmap(NULL, (1 + pages) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED) {
		tally(errno);
		return NULL;
	}
	mapped++;
	return m;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s setoutput|mmap\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];

	if (strcmp(v, "setoutput") == 0) {
		int a = open_faults(-1, 0);
		int b = open_faults(-1, 0);
		struct perf_event_mmap_page *up = map_ring(a, 8);

		set_output(a, a);
		int c = open_faults(0, 0);

		set_output(c, a);
		int d = open_faults(-1, 0);

		set_output(b, d);
		set_output(a, b);
		set_output(b, a);
		map_ring(b, 8);
		char *p = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
		ioctl(b, PERF_EVENT_IOC_ENABLE, 0);
		for (int i = 0; i < 10; i++)
			p[i * 4096] = 1;
		ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(b, PERF_EVENT_IOC_DISABLE, 0);
		printf("setoutput-einval %d\n", einval);
		printf("setoutput-ebusy %d\n", ebusy);
		printf("setoutput-samples %llu\n", (unsigned long long)up->data_head / 16);
		return 0;
	}
	if (strcmp(v, "mmap") != 0) {
		fprintf(stderr, "no variant %s\n", v);
		return 2;
	}
	int a = open_faults(-1, 0);
	int b = open_faults(-1, 1);
	int c = open_faults(-1, 0);

	map_ring(a, 3);
	map_ring(b, 4);
	map_ring(a, 4);
	map_ring(a, 4);
	map_ring(a, 8);
	map_ring(c, 0);
	printf("mmap-einval %d\n", einval);
	printf("mmap-ok %d\n", mapped);
	return 0;
}
