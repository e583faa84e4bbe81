/* filefaults N MODE [ORDER ADVICE]: map a file of N pages privately and
 * touch each page once, then print the faults getrusage() counted for the
 * loop and where the mapping lies in its 2 MB page table (pmdoff, in
 * pages). ORDER: seq (in order, the default) or rand (page i*7919 mod N:
 * every page once, N not a multiple of 7919); ADVICE: the madvise() of the
 * whole mapping before the loop: normal (the default), random or
 * sequential.
 * MODE: r (read) or w (write: copy-on-write), after c (cold: the pages
 * dropped from the page cache with POSIX_FADV_DONTNEED) or s (sparse: a
 * file ftruncate()d to N pages, never written, so never cached) or h (hot:
 * written with write(2), so cached). The file is on /var/tmp. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static void faults(long *minflt, long *majflt) {
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	*minflt = r.ru_minflt;
	*majflt = r.ru_majflt;
}

int main(int argc, char **argv) {
	if ((argc != 3 && argc != 5) || strlen(argv[2]) != 2) {
		fprintf(stderr, "usage: filefaults N c|s|h r|w [seq|rand normal|random|sequential]\n");
		return 2;
	}
	int rand = argc == 5 && strcmp(argv[3], "rand") == 0;
	int advice = MADV_NORMAL;
	if (argc == 5 && strcmp(argv[4], "random") == 0)
		advice = MADV_RANDOM;
	if (argc == 5 && strcmp(argv[4], "sequential") == 0)
		advice = MADV_SEQUENTIAL;
	long n = atol(argv[1]);
	char how = argv[2][0], rw = argv[2][1];
	char path[] = "/var/tmp/filefaultsXXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	if (how == 's') {
		ftruncate(fd, n * 4096);
	} else {
		char buf[4096];
		memset(buf, 7, sizeof buf);
		for (long i = 0; i < n; i++)
			write(fd, buf, sizeof buf);
		fsync(fd);
		if (how == 'c')
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	char *p = mmap(NULL, n * 4096, rw == 'w' ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, n * 4096, advice);
	long min0, maj0, min1, maj1;
	volatile char sink = 0;
	faults(&min0, &maj0);
	for (long i = 0; i < n; i++) {
		long pg = rand ? i * 7919 % n : i;
		if (rw == 'w')
			p[pg * 4096] = 1;
		else
			sink += p[pg * 4096];
	}
	faults(&min1, &maj1);
	printf("%ld %s%s%s%s%s pmdoff=%lu minflt=%ld majflt=%ld\n", n, argv[2], argc == 5 ? " " : "", argc == 5 ? argv[3] : "", argc == 5 ? " " : "", argc == 5 ? argv[4] : "", ((unsigned long)p >> 12) % 512, min1 - min0, maj1 - maj0);
	return 0;
}
