/* enable-on-exec: when does attr.enable_on_exec enable an event, and how
 * often?
 *
 * ./workload VARIANT
 * The process opens a counter of syscalls:sys_enter_getppid on itself
 * (pid 0, cpu -1), disabled with enable_on_exec, calls getppid() twice and
 * execs itself ("stage 1"), which calls getppid() 5 times, and per VARIANT:
 *   once      disables the counter (PERF_EVENT_IOC_DISABLE), calls getppid()
 *             3 times and execs itself again ("stage 2"): 7 more calls; a
 *             second exec must not enable it again (perf_event_enable_on_exec()
 *             clears attr.enable_on_exec when it enables)
 *   enabled   the same without the disable: 5 + 3 + 7
 *   reenable  disables, 3 calls, execs; stage 2 enables it again
 *             (PERF_EVENT_IOC_ENABLE) before its 7 calls: 5 + 7
 *   inherit   (inherit=1) the first process does not exec: it forks a child
 *             that calls getppid() once, execs itself and calls it 4 times;
 *             the parent waits, calls getppid() 3 times and reads: only the
 *             child's inherited copy was enabled (at the child's exec), its
 *             4 calls folded back at its exit; the parent's own is still off
 * It prints "VARIANT-count N": the counter's value read at the end. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static uint64_t tp_id(void)
{
	const char *paths[] = {
		"/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id",
		"/sys/kernel/debug/tracing/events/syscalls/sys_enter_getppid/id",
	};
	for (unsigned i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "r");
		unsigned long long id;

		if (!f)
			continue;
		if (fscanf(f, "%llu", &id) == 1) {
			fclose(f);
			return id;
		}
		fclose(f);
	}
	fprintf(stderr, "no sys_enter_getppid tracepoint id\n");
	exit(2);
}

static void stage(const char *self, const char *variant, int n, int fd)
{
	char s[16], f[16];

	snprintf(s, sizeof(s), "%d", n);
	snprintf(f, sizeof(f), "%d", fd);
	execl(self, self, variant, s, f, (char *)NULL);
	perror("execl");
	exit(2);
}

static void report(const char *variant, int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v)) {
		perror("read");
		exit(2);
	}
	printf("%s-count %llu\n", variant, (unsigned long long)v);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s once|enabled|reenable|inherit\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];
	if (argc == 4) { /* a later stage, after an exec */
		int n = atoi(argv[2]), fd = atoi(argv[3]);

		if (strcmp(v, "inherit") == 0) { /* the forked child, exec'ed */
			calls(4);
			return 0;
		}
		if (n == 1) {
			calls(5);
			if (strcmp(v, "enabled") != 0)
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			calls(3);
			stage(argv[0], v, 2, fd);
		}
		if (strcmp(v, "reenable") == 0)
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		calls(7);
		report(v, fd);
		return 0;
	}
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = tp_id();
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = strcmp(v, "inherit") == 0;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return 2;
	}
	calls(2);
	if (!a.inherit)
		stage(argv[0], v, 1, fd);
	pid_t c = fork();
	if (c == 0) {
		calls(1);
		stage(argv[0], v, 1, fd);
	}
	waitpid(c, NULL, 0);
	calls(3);
	report(v, fd);
	return 0;
}
