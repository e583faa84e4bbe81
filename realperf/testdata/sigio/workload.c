/* sigio: what the kernel does with the SIGIO of an O_ASYNC perf fd
 * (a page-faults event sampling every fault, wakeup_events 1, owned by the
 * process with F_SETOWN) across ten page faults, by the disposition of the
 * signal and the F_SETSIG signal:
 *
 * ./workload dfl      SIGIO left at SIG_DFL
 * ./workload handler  a SIGIO handler
 * ./workload ign      SIGIO ignored (SIG_IGN)
 * ./workload rt-dfl   F_SETSIG 40 (a real-time signal) left at SIG_DFL
 * ./workload rt0      F_SETSIG 40 with handlers, RLIMIT_SIGPENDING 0
 * ./workload pgrp     F_SETOWN -pgid, F_SETSIG 40: the faulting process and
 *                     a forked child in its process group, both with handlers
 *
 * Each mode runs in a forked child; the parent prints "KEY VALUE" lines:
 * MODE-fatal (1 when a signal ended the child), MODE-fatal-sig (which),
 * MODE-sigio, MODE-si-kernel, MODE-rt (the signals the handlers took:
 * SIGIO, SIGIO with si_code SI_KERNEL, signal 40). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RTSIG 40

struct counts {
	volatile int sigio, sikernel, rt, ready, done;
};
static struct counts *cnt;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGIO) {
		__sync_fetch_and_add(&cnt->sigio, 1);
		if (si->si_code == SI_KERNEL)
			__sync_fetch_and_add(&cnt->sikernel, 1);
	} else if (sig == RTSIG) {
		__sync_fetch_and_add(&cnt->rt, 1);
	}
}

static void handle(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
}

static int open_faults(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.wakeup_events = 1;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void child(const char *mode)
{
	int setsig = 0, owner = getpid();

	cnt->done = 0; /* its page faults here, not in a handler */

	if (!strcmp(mode, "handler")) {
		handle(SIGIO);
	} else if (!strcmp(mode, "ign")) {
		signal(SIGIO, SIG_IGN);
	} else if (!strcmp(mode, "rt-dfl")) {
		setsig = RTSIG;
	} else if (!strcmp(mode, "rt0")) {
		struct rlimit rl = {0, 0};

		handle(SIGIO);
		handle(RTSIG);
		setsig = RTSIG;
		if (setrlimit(RLIMIT_SIGPENDING, &rl))
			perror("setrlimit");
	} else if (!strcmp(mode, "pgrp")) {
		handle(RTSIG);
		setsig = RTSIG;
		setpgid(0, 0);
		owner = -getpgrp();
		if (fork() == 0) { /* in the group: spin until the faults are done */
			cnt->ready = 1;
			while (!cnt->done)
				;
			_exit(0);
		}
		while (!cnt->ready)
			;
	}
	int fd = open_faults();
	if (fd < 0) {
		perror("perf_event_open");
		_exit(2);
	}
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETOWN, owner);
	fcntl(fd, F_SETSIG, setsig);
	char *p = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 10; i++)
		p[i * 4096] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	for (volatile long i = 0; i < 1000000; i++) /* let the group's signals land */
		;
	cnt->done = 1;
	if (!strcmp(mode, "pgrp"))
		wait(NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	cnt = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const char *mode = argv[1];
	pid_t pid = fork();

	if (pid == 0)
		child(mode);
	int st;
	waitpid(pid, &st, 0);
	printf("%s-fatal %d\n%s-fatal-sig %d\n", mode, WIFSIGNALED(st), mode, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	printf("%s-sigio %d\n%s-si-kernel %d\n%s-rt %d\n", mode, cnt->sigio, mode, cnt->sikernel, mode, cnt->rt);
	return 0;
}
