/* ioctls: what PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_PERIOD and
 * PERF_EVENT_IOC_RESET do to a page-faults event that samples (period 1,
 * wakeup_events 1) and signals its owner (O_ASYNC, F_SETOWN self, F_SETSIG
 * SIGIO: si_code is the kill_fasync() band, POLL_IN or POLL_HUP), across
 * ten page faults on fresh anonymous pages.
 *
 * ./workload VARIANT
 *   refresh  disabled; ioctl(REFRESH, 3) enables it for three overflows:
 *            the third disables it (event_limit, __perf_event_overflow())
 *            and signals POLL_HUP; the rest are not counted
 *   period   enabled with ioctl(PERIOD, 2) first: an overflow every second
 *            fault (five POLL_INs); the count is the faults all the same
 *   reset    enabled; after the ten faults ioctl(RESET) zeroes the count,
 *            then five more faults
 * It prints "KEY VALUE" lines: the count read at the end (VARIANT-count),
 * the SIGIOs taken with POLL_IN (VARIANT-poll-in) and with POLL_HUP
 * (VARIANT-poll-hup). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int pollin, pollhup;

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == POLL_IN)
		pollin++;
	else if (si->si_code == POLL_HUP)
		pollhup++;
}

static void faults(char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i * 4096] = 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s refresh|period|reset\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGIO, &sa, NULL);

	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.wakeup_events = 1;
	a.disabled = 1;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 2;
	}
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETOWN, getpid());
	fcntl(fd, F_SETSIG, SIGIO);
	char *p = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q = mmap(NULL, 5 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || q == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	if (strcmp(v, "refresh") == 0) {
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 3);
		faults(p, 10);
	} else if (strcmp(v, "period") == 0) {
		uint64_t period = 2;

		ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		faults(p, 10);
	} else if (strcmp(v, "reset") == 0) {
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		faults(p, 10);
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		faults(q, 5);
	} else {
		fprintf(stderr, "no variant %s\n", v);
		return 2;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n)) {
		perror("read");
		return 2;
	}
	printf("%s-count %llu\n%s-poll-in %d\n%s-poll-hup %d\n", v, (unsigned long long)n, v, pollin, v, pollhup);
	return 0;
}
