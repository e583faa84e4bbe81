/* pause-output: PERF_EVENT_IOC_PAUSE_OUTPUT on a page-faults event that
 * samples every fault (sample_type IP) into its ring (one user page and
 * eight data pages): paused, a sample is refused and counted in
 * rb->lost (perf_output_begin(): "if (unlikely(READ_ONCE(rb->paused)))");
 * unpaused, the next sample is preceded by a PERF_RECORD_LOST with that
 * count.
 *
 * ./workload VARIANT
 *   paused   PAUSE_OUTPUT 1, ten faults, PAUSE_OUTPUT 0, five faults
 *   running  fifteen faults, never paused
 * After the event is disabled it walks the ring from 0 to data_head and
 * prints "KEY VALUE" lines: the SAMPLE records (VARIANT-samples), the
 * LOST records (VARIANT-lost-records) and the sum of their lost counts
 * (VARIANT-lost), and data_head (VARIANT-data-head). */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void faults(char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i * 4096] = 1;
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "paused") && strcmp(argv[1], "running"))) {
		fprintf(stderr, "usage: %s paused|running\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 2;
	}
	size_t len = 9 * 4096;
	char *rb = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q = mmap(NULL, 5 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rb == MAP_FAILED || p == MAP_FAILED || q == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	int paused = strcmp(v, "paused") == 0;

	if (paused)
		ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	faults(p, 10);
	if (paused)
		ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	faults(q, 5);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	struct perf_event_mmap_page *pg = (void *)rb;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	char *data = rb + pg->data_offset;
	uint64_t size = pg->data_size, off = 0, lost = 0;
	int samples = 0, lostrec = 0;

	while (off < head) {
		struct perf_event_header h;

		memcpy(&h, data + off % size, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			samples++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t n;

			memcpy(&n, data + (off + 16) % size, sizeof(n)); /* {header, id, lost} */
			lostrec++;
			lost += n;
		}
		off += h.size;
	}
	printf("%s-samples %d\n%s-lost-records %d\n%s-lost %llu\n%s-data-head %llu\n", v, samples, v, lostrec, v,
	       (unsigned long long)lost, v, (unsigned long long)head);
	return 0;
}
