// Enable a cgroup event from another CPU while a task of the cgroup runs on
// the event's CPU whose perf context is already active (another CPU event).
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
static int peo(struct perf_event_attr *a, int pid, int cpu, unsigned long fl) {
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, fl);
}
int main(int argc, char **argv) {
	int cpu = 1;
	cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
	struct perf_event_attr a; memset(&a, 0, sizeof a);
	a.size = sizeof a; a.type = PERF_TYPE_SOFTWARE; a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int other = peo(&a, -1, cpu, PERF_FLAG_FD_CLOEXEC);     /* enabled: cpu1's context is active */
	int cg = open(argv[1], O_RDONLY);
	a.disabled = 1;
	int ev = peo(&a, cg, cpu, PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	if (other < 0 || cg < 0 || ev < 0) { perror("open"); return 1; }
	usleep(100000);
	ioctl(ev, PERF_EVENT_IOC_ENABLE, 0);   /* from cpu0: an IPI to cpu1 */
	usleep(200000);
	uint64_t v[3]; read(ev, v, sizeof v);
	printf("count %llu enabled %llu running %llu (ns); slept 200000000\n",
	       (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
	return 0;
}
