/* remove-on-exec-inherit: does a child's count reach its parent when the
 * child execs with an inherited remove_on_exec event?
 *
 * ./workload EVENT ROE EXEC SWAP SLEEP N
 *   EVENT task-clock | page-faults
 *   ROE   1: attr.remove_on_exec (with inherit); 0: not
 *   EXEC  1: the child execs /bin/true after its work; 0: it _exit()s
 *   SWAP  1: the parent's context holds only the inherited event (the
 *         child's is a clone: the context-swap fast path may run);
 *         0: a second, non-inherited event in the parent's context makes
 *         the child's context no clone (inherited_all = 0), so no swap
 *   SLEEP 1: the child first sleeps 200us (a fresh sched-in on an idle
 *         CPU: it switches in from idle, not from its parent); 0: not
 *   N     iterations
 * Parent and child are pinned to CPU 0 (the parent blocks in waitpid(), so
 * the child runs alone there: one CPU, as the simulation has it) and run
 * SCHED_FIFO (when allowed): other tasks do not preempt the child's spin,
 * which would update its count at each switch and hide the loss.
 * Each iteration: read the count (c0), fork; the child (SLEEP) sleeps,
 * touches 64 pages and spins 2 ms of CPU, writes its thread CPU time into a
 * shared page and execs or exits; the parent waitpid()s and reads the count
 * again (c1). It prints "# c1-c0 CHILD_CPU_NS" per iteration and at the end
 * "delta MEDIAN child-cpu MEDIAN" (ns, or page faults for the delta). */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int open_ev(uint64_t config, int inherit, int roe)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.inherit = inherit;
	a.remove_on_exec = roe;
	a.exclude_kernel = 0;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: %s task-clock|page-faults ROE EXEC SWAP SLEEP N\n", argv[0]);
		return 2;
	}
	uint64_t config = strcmp(argv[1], "page-faults") ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_PAGE_FAULTS;
	int roe = atoi(argv[2]), ex = atoi(argv[3]), swap = atoi(argv[4]), slp = atoi(argv[5]), n = atoi(argv[6]);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	struct sched_param sp = {.sched_priority = 1};

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		perror("sched_setscheduler (the figures then depend on the load)");
	int fd = open_ev(config, 1, roe);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	if (!swap && open_ev(PERF_COUNT_SW_DUMMY, 0, 0) < 0) {
		perror("perf_event_open dummy");
		return 1;
	}
	volatile uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int64_t *delta = calloc(n, sizeof(*delta)), *child = calloc(n, sizeof(*child));

	for (int i = 0; i < n; i++) {
		uint64_t c0, c1;

		if (read(fd, &c0, sizeof(c0)) != sizeof(c0))
			return 1;
		pid_t p = fork();
		if (p == 0) {
			if (slp)
				usleep(200);
			char *pages = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			for (int j = 0; j < 64; j++)
				pages[j * 4096] = 1;
			uint64_t t0 = thread_ns();
			while (thread_ns() - t0 < 2000000)
				;
			*shared = thread_ns();
			if (ex)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		waitpid(p, NULL, 0);
		if (read(fd, &c1, sizeof(c1)) != sizeof(c1))
			return 1;
		delta[i] = c1 - c0;
		child[i] = *shared;
		printf("# %lld %lld\n", (long long)delta[i], (long long)child[i]);
	}
	qsort(delta, n, sizeof(*delta), cmp);
	qsort(child, n, sizeof(*child), cmp);
	printf("delta %lld child-cpu %lld\n", (long long)delta[n / 2], (long long)child[n / 2]);
	return 0;
}
