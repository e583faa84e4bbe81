/* ring-full-wakeup: a page-faults event sampling every fault (sample_type
 * IP, 16-byte records) into its own ring, with no reader.
 *
 * ./workload full       one data page, 300 faults: the ring takes 255
 *                       records (4080 bytes: ring_buffer_has_space() keeps
 *                       the free space above zero), the other 45 are
 *                       refused and counted in rb->lost; read() with
 *                       PERF_FORMAT_LOST gives the count and the lost
 * ./workload wakeup     eight data pages, wakeup_events 3, ten faults
 * ./workload watermark  eight data pages, watermark with wakeup_watermark
 *                       64 (bytes), twenty faults
 * For wakeup and watermark, poll(fd, 0) after each fault counts the
 * faults after which the ring had a wakeup pending: perf_poll() takes
 * rb->poll each time (atomic_xchg), so it sees each perf_output_wakeup()
 * once: every third sample (3 in ten), and each time data_head passes
 * rb->wakeup by more than the watermark (__perf_output_begin(): "head -
 * local_read(&rb->wakeup) > rb->watermark"), at 80, 144, 208 and 272 bytes
 * (4 in twenty samples of 16 bytes).
 * It prints "KEY VALUE" lines. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_faults(int wakeup_events, int wakeup_watermark)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.read_format = PERF_FORMAT_LOST;
	a.disabled = 1;
	if (wakeup_watermark) {
		a.watermark = 1;
		a.wakeup_watermark = wakeup_watermark;
	} else {
		a.wakeup_events = wakeup_events;
	}
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(2);
	}
	return fd;
}

static void *map(size_t len, int fd)
{
	void *m = fd < 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
			 : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return m;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s full|wakeup|watermark\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];

	if (strcmp(v, "full") == 0) {
		int fd = open_faults(0, 0);
		struct perf_event_mmap_page *up = map(2 * 4096, fd);
		char *p = map(300 * 4096, -1);
		uint64_t r[2];

		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		for (int i = 0; i < 300; i++)
			p[i * 4096] = 1;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, r, sizeof(r)) != sizeof(r)) {
			perror("read");
			return 2;
		}
		printf("full-count %llu\n", (unsigned long long)r[0]);
		printf("full-lost %llu\n", (unsigned long long)r[1]);
		printf("full-data-head %llu\n", (unsigned long long)up->data_head);
		printf("full-samples %llu\n", (unsigned long long)up->data_head / 16);
		return 0;
	}
	int wm = strcmp(v, "watermark") == 0;

	if (!wm && strcmp(v, "wakeup") != 0) {
		fprintf(stderr, "no variant %s\n", v);
		return 2;
	}
	int n = wm ? 20 : 10;
	int fd = wm ? open_faults(0, 64) : open_faults(3, 0);
	char *p;
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	int pollin = 0;

	map(9 * 4096, fd);
	p = map(n * 4096, -1);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++) {
		p[i * 4096] = 1;
		pf.revents = 0;
		if (poll(&pf, 1, 0) > 0 && (pf.revents & POLLIN))
			pollin++;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	printf("%s-pollin %d\n", v, pollin);
	return 0;
}
