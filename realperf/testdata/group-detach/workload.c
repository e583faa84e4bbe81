/* group-detach: what happens to a group {task-clock, context-switches}
 * (read_format GROUP|ID) when its leader leaves it, read back with read():
 *
 * ./workload exec     the leader has remove_on_exec, the sibling not; the
 *                     task execs itself and reads both fds after its exec
 * ./workload close    the leader's fd is closed; the sibling's fd is read
 *
 * It prints "KEY VALUE" lines: for each read, nr (the group's size as
 * read() reports it) and torn (1 when the bytes read() returned are not
 * 8 + 16 * nr, the size of nr entries: a read_size left stale). */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_ev(uint64_t config, int group, int roe)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.remove_on_exec = roe;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	return syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static void show(const char *key, int fd)
{
	uint64_t v[16] = {0};
	int n = read(fd, v, sizeof(v));

	printf("%s-nr %llu\n%s-torn %d\n", key, (unsigned long long)v[0], key, n != (int)(8 + 16 * v[0]));
}

static void spin(void)
{
	for (volatile long i = 0; i < 3000000; i++)
		;
}

int main(int argc, char **argv)
{
	if (argc > 3) { /* after the exec */
		spin();
		show("exec-sibling", atoi(argv[2]));
		show("exec-leader", atoi(argv[3]));
		return 0;
	}
	int ex = argc > 1 && !strcmp(argv[1], "exec");
	int lead = open_ev(PERF_COUNT_SW_TASK_CLOCK, -1, ex);
	int sib = open_ev(PERF_COUNT_SW_CONTEXT_SWITCHES, lead, 0);

	if (lead < 0 || sib < 0) {
		perror("perf_event_open");
		return 1;
	}
	spin();
	show(ex ? "exec-before" : "close-before", sib);
	fflush(stdout);
	if (ex) {
		char a[16], b[16];

		snprintf(a, sizeof(a), "%d", sib);
		snprintf(b, sizeof(b), "%d", lead);
		execl("/proc/self/exe", argv[0], "after", a, b, (char *)NULL);
		perror("execl");
		return 1;
	}
	close(lead);
	spin();
	show("close-sibling", sib);
	return 0;
}
