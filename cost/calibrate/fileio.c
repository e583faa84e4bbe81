// fileio.c MB ROUNDS: the CPU time read(2) and write(2) of a regular file
// spend a KiB through the page cache, in 64 KB calls: write MB MB to a new
// file on /var/tmp (the pages cached and dirtied: ext4's delayed
// allocation, no writeback waited for), then read it back while it is
// cached; each round prints "write_ns_per_kib N read_ns_per_kib N" (CPU
// time: user + system, so other load on the machine does not count).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	long mb = atol(argv[1]), rounds = atol(argv[2]);
	static char buf[1 << 16];
	memset(buf, 7, sizeof buf);
	for (long r = 0; r < rounds; r++) {
		char path[] = "/var/tmp/fileioXXXXXX";
		int fd = mkstemp(path);
		unlink(path);
		long n = mb * 16, kib = mb * 1024;
		long long c0 = cpu_ns();
		for (long i = 0; i < n; i++)
			if (write(fd, buf, sizeof buf) != sizeof buf)
				return 1;
		long long w = cpu_ns() - c0;
		lseek(fd, 0, SEEK_SET);
		c0 = cpu_ns();
		for (long i = 0; i < n; i++)
			if (read(fd, buf, sizeof buf) != sizeof buf)
				return 1;
		long long rd = cpu_ns() - c0;
		printf("write_ns_per_kib %.1f read_ns_per_kib %.1f\n", (double)w / kib, (double)rd / kib);
		close(fd);
	}
	return 0;
}
