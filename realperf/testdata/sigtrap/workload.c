/* sigtrap: what a page-faults event with attr.sigtrap sends the task that
 * faults, by SIGTRAP's disposition. (A watchpoint would be the usual
 * sigtrap event, but on this machine's virtual CPU a hardware breakpoint
 * never fires: a software event it is.)
 *
 * ./workload VARIANT
 * The process opens page-faults on itself (period 1, sigtrap,
 * remove_on_exec as sigtrap requires, sig_data 7, disabled), maps ten
 * fresh anonymous pages, enables the event, writes one byte to each page
 * (ten faults) and disables it. Each fault's overflow
 * (__perf_event_overflow()) queues perf_pending_task, whose task work on
 * the way back to user sends SIGTRAP with si_code TRAP_PERF
 * (perf_sigtrap() -> force_sig_perf(): send_sig_info()).
 *   handler  a SA_SIGINFO handler counts the SIGTRAPs, and of them those
 *            with si_code TRAP_PERF, si_perf_data 7 and si_perf_type
 *            PERF_TYPE_SOFTWARE
 *   ign      SIG_IGN: send_sig_info() drops them; the process lives on
 *   dfl      SIG_DFL, in a forked child: the first SIGTRAP ends it (the
 *            parent reports how)
 *   blocked  the handler, with SIGTRAP blocked (sigprocmask) across the
 *            faults and unblocked after: a standard signal already pending
 *            is not queued again, so one SIGTRAP is taken, at the unblock,
 *            with TRAP_PERF_FLAG_ASYNC in si_perf_flags (send_sig_perf()
 *            since 78ed93d72ded; before it force_sig_perf() unblocked the
 *            signal and reset it to SIG_DFL, ending the process)
 * It prints "KEY VALUE" lines: the faults the counter read (VARIANT-count),
 * the SIGTRAPs taken, those whose siginfo matched, the last si_perf_data,
 * those taken with TRAP_PERF_FLAG_ASYNC; for dfl how the child ended. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

#ifndef TRAP_PERF_FLAG_ASYNC
#define TRAP_PERF_FLAG_ASYNC 1
#endif

static volatile int taken, matched, async;
static volatile uint64_t data;

/* si_perf_data and si_perf_type, which this glibc's siginfo_t does not
 * name: include/uapi/asm-generic/siginfo.h's _sigfault._perf, after
 * si_addr (offset 16 on x86_64): _data at 24, _type at 32, _flags at 36. */
static uint64_t si_perf_data(const siginfo_t *si)
{
	uint64_t d;

	memcpy(&d, (const char *)si + 24, sizeof(d));
	return d;
}

static uint32_t si_perf_type(const siginfo_t *si)
{
	uint32_t t;

	memcpy(&t, (const char *)si + 32, sizeof(t));
	return t;
}

static uint32_t si_perf_flags(const siginfo_t *si)
{
	uint32_t f;

	memcpy(&f, (const char *)si + 36, sizeof(f));
	return f;
}

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	taken++;
	data = si_perf_data(si);
	if (si->si_code == TRAP_PERF && data == 7 && si_perf_type(si) == PERF_TYPE_SOFTWARE)
		matched++;
	if (si_perf_flags(si) & TRAP_PERF_FLAG_ASYNC)
		async++;
}

/* faults opens the event, faults ten pages in and returns the count. */
static uint64_t faults(void)
{
	struct perf_event_attr a;
	uint64_t v;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.sig_data = 7;
	a.disabled = 1;
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(2);
	}
	char *p = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 10; i++)
		p[i * 4096] = 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != sizeof(v)) {
		perror("read");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s handler|ign|dfl|blocked\n", argv[0]);
		return 2;
	}
	const char *v = argv[1];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	int block = strcmp(v, "blocked") == 0;

	if (strcmp(v, "handler") == 0 || block) {
		sa.sa_sigaction = on_trap;
		sa.sa_flags = SA_SIGINFO;
	} else if (strcmp(v, "ign") == 0) {
		sa.sa_handler = SIG_IGN;
	} else if (strcmp(v, "dfl") == 0) {
		sa.sa_handler = SIG_DFL;
	} else {
		fprintf(stderr, "no variant %s\n", v);
		return 2;
	}
	sigaction(SIGTRAP, &sa, NULL);
	if (strcmp(v, "dfl") == 0) {
		pid_t c = fork();
		int st;

		if (c == 0) {
			faults();
			_exit(0);
		}
		waitpid(c, &st, 0);
		printf("dfl-fatal %d\n", WIFSIGNALED(st) ? 1 : 0);
		printf("dfl-fatal-sig %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		return 0;
	}
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	if (block)
		sigprocmask(SIG_BLOCK, &set, NULL);
	uint64_t n = faults();
	if (block) {
		printf("%s-sigtrap-while-blocked %d\n", v, taken);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	printf("%s-count %llu\n", v, (unsigned long long)n);
	printf("%s-sigtrap %d\n", v, taken);
	printf("%s-sigtrap-matched %d\n", v, matched);
	printf("%s-sig-data %llu\n", v, (unsigned long long)data);
	printf("%s-sigtrap-async %d\n", v, async);
	return 0;
}
