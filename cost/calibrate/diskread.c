// diskread.c PAGES ROUNDS: how long a major fault waits for the disk. A
// file of PAGES pages on /var/tmp is written and synced; each round drops
// it from the page cache (POSIX_FADV_DONTNEED), maps it and times one read
// of its middle page, whose fault reads around it what the disk's
// read_ahead_kb says (diskread.sh sets it), then waits 200 ms for the rest
// of that I/O to drain, so the next round does not queue behind it.
// Prints each round's wall time in ns.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	long pages = atol(argv[1]), rounds = atol(argv[2]);
	char path[] = "/var/tmp/diskreadXXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	static char buf[1 << 16];
	memset(buf, 7, sizeof buf);
	for (long i = 0; i < pages / 16; i++)
		if (write(fd, buf, sizeof buf) != sizeof buf)
			return 1;
	fsync(fd);
	for (long r = 0; r < rounds; r++) {
		volatile char *p = mmap(NULL, pages * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return 1;
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		long long w0 = wall_ns();
		(void)p[(pages / 2) * 4096];
		printf("%lld\n", wall_ns() - w0);
		munmap((void *)p, pages * 4096);
		usleep(200000);
	}
	return 0;
}
