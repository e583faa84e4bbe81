// diskwrite.c PAGES ROUNDS: how long an fsync() of PAGES dirty pages waits
// for the disk. Each round writes PAGES pages at the start of a file on
// /var/tmp (over blocks the file already has: no allocation, as a
// rewrite) and times the fsync(), then waits 200 ms so the next round
// does not queue behind anything. Prints each round's wall time in ns.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timing.h"

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	long pages = atol(argv[1]), rounds = atol(argv[2]);
	char path[] = "/var/tmp/diskwriteXXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	static char buf[4096];
	memset(buf, 7, sizeof buf);
	for (long i = 0; i < pages; i++)
		if (write(fd, buf, sizeof buf) != sizeof buf)
			return 1;
	fsync(fd);
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < pages; i++)
			if (pwrite(fd, buf, sizeof buf, i * 4096) != sizeof buf)
				return 1;
		long long w0 = wall_ns();
		fsync(fd);
		printf("%lld\n", wall_ns() - w0);
		usleep(200000);
	}
	return 0;
}
