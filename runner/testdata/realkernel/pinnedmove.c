/*
 * pinnedmove.c K [PAGES]: K rounds of: open a software event, fork a helper
 * that maps the event's ring (1 + PAGES data pages, default 1024) first and
 * prints its VmPin, map the same ring here second, let the helper unmap and
 * exit, then unmap here, last, and print this process's VmPin. Then map a
 * fresh event's ring of 1 + 4096 pages (16 MiB) and print the errno of a
 * refusal or the VmPin after it.
 *
 * perf_mmap() charges the part of a ring over the user's perf_event_mlock_kb
 * allowance to the mapping mm's pinned_vm (the helper's); the ring's last
 * perf_mmap_close() subtracts it from vma->vm_mm->pinned_vm, this process's,
 * which goes below zero. VmPin is printed as the kernel prints it (unsigned:
 * a negative count is 2^64 minus it). With RLIMIT_MEMLOCK 8 MiB an
 * unprivileged user may not map the 16 MiB ring, unless the rounds left
 * pinned_vm negative. For pinnedmove.sh; perf_event_paranoid 2 lets an
 * unprivileged user open the event (exclude_kernel, exclude_hv).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_event(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* vmpin copies /proc/self/status's VmPin figure, as text, into s. */
static void vmpin(char *s, size_t n)
{
	char l[256];
	FILE *f = fopen("/proc/self/status", "r");

	snprintf(s, n, "?");
	while (fgets(l, sizeof(l), f))
		if (!strncmp(l, "VmPin:", 6))
			sscanf(l + 6, "%63s", s);
	fclose(f);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 0;
	int pages = argc > 2 ? atoi(argv[2]) : 1024;
	long ps = sysconf(_SC_PAGESIZE);
	size_t len = (1 + pages) * ps;
	char pin[64], c;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 0; i < k; i++) {
		int fd = open_event(), p2c[2], c2p[2];

		if (fd < 0 || pipe(p2c) || pipe(c2p)) {
			perror("pinnedmove: open");
			return 1;
		}
		pid_t pid = fork();
		if (pid == 0) {
			void *a = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (a == MAP_FAILED) {
				printf("round %d: helper mmap errno %d (%s)\n", i, errno, strerror(errno));
				_exit(1);
			}
			vmpin(pin, sizeof(pin));
			printf("round %d: helper maps %zu pages: helper VmPin %s kB\n", i, len / ps, pin);
			write(c2p[1], "m", 1);
			read(p2c[0], &c, 1);
			munmap(a, len);
			_exit(0);
		}
		if (read(c2p[0], &c, 1) != 1)
			return 1;
		void *b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (b == MAP_FAILED) {
			printf("round %d: second mmap errno %d (%s)\n", i, errno, strerror(errno));
			return 1;
		}
		write(p2c[1], "u", 1);
		waitpid(pid, NULL, 0);
		munmap(b, len);
		close(fd);
		close(p2c[0]);
		close(p2c[1]);
		close(c2p[0]);
		close(c2p[1]);
		vmpin(pin, sizeof(pin));
		printf("round %d: after the last munmap here: VmPin %s kB\n", i, pin);
	}
	len = (1 + 4096) * ps;
	int fd = open_event();
	void *p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("rounds %d: fresh %zu pages: mmap errno %d (%s)\n", k, len / ps, errno, strerror(errno));
		return 0;
	}
	vmpin(pin, sizeof(pin));
	printf("rounds %d: fresh %zu pages: mapped, VmPin %s kB\n", k, len / ps, pin);
	return 0;
}
