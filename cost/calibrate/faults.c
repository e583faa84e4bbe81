// faults.c MODE N ROUNDS: the CPU time of a user page fault of one kind,
// per fault: N pages touched once each, in ROUNDS rounds after one round
// not counted (the pages a round frees are the next one's, as they are
// for a process that has run a while: the first touch of a VM's fresh
// guest memory costs the host's fault too). MODE:
//   anon_write  a write to a private anonymous page (do_anonymous_page():
//               a zeroed page)
//   anon_read   a read of one (the shared zero page mapped read-only)
//   file_map    a read of a private mapping of a cached file
//               (do_read_fault() -> do_fault_around(): filemap_map_pages()
//               maps the 16 cached pages of the 64 KB window)
//   file_cow    a write to a private mapping of a cached file
//               (do_cow_fault(): the page-cache page copied into an anon one)
// Prints cpu_ns (user + system) and wall_ns of the counted rounds' touch
// loops (not their mmap() and munmap()), and faults (getrusage's minor +
// major faults in them).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "timing.h"

static long nfaults(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

int main(int argc, char **argv) {
	if (argc != 4)
		return 2;
	const char *mode = argv[1];
	long n = atol(argv[2]), rounds = atol(argv[3]);
	int file = strncmp(mode, "file", 4) == 0;
	int wr = strcmp(mode, "anon_write") == 0 || strcmp(mode, "file_cow") == 0;
	int fd = -1;
	if (file) {
		char path[] = "/var/tmp/faultsXXXXXX";
		char buf[4096];
		fd = mkstemp(path);
		unlink(path);
		memset(buf, 7, sizeof buf);
		for (long i = 0; i < n; i++)
			if (write(fd, buf, sizeof buf) != sizeof buf)
				return 1;
	}
	long long c = 0, w = 0;
	long f = 0;
	for (long r = 0; r <= rounds; r++) {
		char *p = file ? mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
		               : mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		long long c0 = cpu_ns(), w0 = wall_ns();
		long f0 = nfaults();
		volatile char sink = 0;
		for (long i = 0; i < n; i++) {
			if (wr)
				p[i * 4096] = 1;
			else
				sink += p[i * 4096];
		}
		if (r > 0) { /* the touches alone: not the mmap() and munmap() */
			c += cpu_ns() - c0;
			w += wall_ns() - w0;
			f += nfaults() - f0;
		}
		munmap(p, n * 4096);
	}
	printf("cpu_ns %lld wall_ns %lld\nfaults %ld\n", c, w, f);
	return 0;
}
