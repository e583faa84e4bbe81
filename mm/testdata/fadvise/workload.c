/* fadvise N ACTION [OFF LEN]: make a file of N pages cold (written,
 * fsync()ed, dropped with POSIX_FADV_DONTNEED), give it ACTION, wait 300
 * ms for any read to finish, count the pages mincore() finds cached, then
 * map it privately and read each page once, in order, and print the
 * faults getrusage() counted for the loop and where the mapping lies in
 * its 2 MB page table (pmdoff, in pages). OFF and LEN are in pages (LEN 0:
 * to the end).
 * ACTION:
 *   none         nothing (the cold file)
 *   fwill        posix_fadvise(OFF, LEN, POSIX_FADV_WILLNEED)
 *   mwill        madvise(MADV_WILLNEED) of pages [OFF, OFF+LEN) of a
 *                mapping of the whole file (the one then read)
 *   fdrop        read the whole file through a first mapping, unmap it,
 *                then posix_fadvise(OFF, LEN, POSIX_FADV_DONTNEED)
 *   fdropmapped  the same, but the first mapping's pages [OFF, OFF+LEN)
 *                stay mapped, and the DONTNEED is of the whole file
 *   fseq         posix_fadvise(POSIX_FADV_SEQUENTIAL): ra_pages doubled
 *   frandseq     posix_fadvise(POSIX_FADV_RANDOM) and the mapping
 *                madvise()d MADV_SEQUENTIAL: the readahead is forced */
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

static long resident(char *p, long n) {
	unsigned char vec[n];
	long c = 0;
	if (mincore(p, n * 4096, vec) != 0)
		return -1;
	for (long i = 0; i < n; i++)
		c += vec[i] & 1;
	return c;
}

int main(int argc, char **argv) {
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: fadvise N ACTION [OFF LEN]\n");
		return 2;
	}
	long n = atol(argv[1]);
	const char *act = argv[2];
	long off = argc == 5 ? atol(argv[3]) : 0, len = argc == 5 ? atol(argv[4]) : 0;
	char path[] = "/var/tmp/fadviseXXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	char buf[4096];
	memset(buf, 7, sizeof buf);
	for (long i = 0; i < n; i++)
		write(fd, buf, sizeof buf);
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	volatile char sink = 0;
	char *first = NULL;
	if (strcmp(act, "fdrop") == 0 || strcmp(act, "fdropmapped") == 0) {
		first = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		for (long i = 0; i < n; i++)
			sink += first[i * 4096];
		if (strcmp(act, "fdrop") == 0) {
			munmap(first, n * 4096);
			posix_fadvise(fd, off * 4096, len * 4096, POSIX_FADV_DONTNEED);
		} else {
			if (off > 0)
				munmap(first, off * 4096);
			long end = len ? off + len : n;
			if (end < n)
				munmap(first + end * 4096, (n - end) * 4096);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
	}
	if (strcmp(act, "fwill") == 0)
		posix_fadvise(fd, off * 4096, len * 4096, POSIX_FADV_WILLNEED);
	if (strcmp(act, "fseq") == 0)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (strcmp(act, "frandseq") == 0)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	char *p = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	if (strcmp(act, "mwill") == 0)
		madvise(p + off * 4096, (len ? len : n - off) * 4096, MADV_WILLNEED);
	if (strcmp(act, "frandseq") == 0)
		madvise(p, n * 4096, MADV_SEQUENTIAL);
	usleep(300000);
	long res = resident(p, n);
	long min0, maj0, min1, maj1;
	faults(&min0, &maj0);
	for (long i = 0; i < n; i++)
		sink += p[i * 4096];
	faults(&min1, &maj1);
	printf("%ld %s %ld %ld resident=%ld pmdoff=%lu minflt=%ld majflt=%ld\n", n, act, off, len, res, ((unsigned long)p >> 12) % 512, min1 - min0, maj1 - maj0);
	return 0;
}
