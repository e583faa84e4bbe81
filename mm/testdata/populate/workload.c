/* populate N KIND: the faults getrusage() counts for an mmap() of N pages
 * with MAP_POPULATE (or a madvise(MADV_POPULATE_READ/WRITE) of a mapping),
 * which the kernel faults in itself (GUP: no perf page-fault event), and
 * where the mapping lies in its page table (pmdoff, in pages). KIND:
 *   anon-rw     private anon, PROT_READ|PROT_WRITE, MAP_POPULATE
 *   anon-ro     private anon, PROT_READ, MAP_POPULATE (the zero page)
 *   cold-ro     a cold file (written, fsync()ed, dropped), private PROT_READ
 *   hot-ro      the same file cached, private PROT_READ
 *   cold-rw     a cold file, private PROT_READ|PROT_WRITE (copied)
 *   cold-shared a cold file, MAP_SHARED PROT_READ|PROT_WRITE */
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
	if (argc != 3)
		return 2;
	long n = atol(argv[1]);
	const char *kind = argv[2];
	int fd = -1;
	if (strncmp(kind, "anon", 4) != 0) {
		char path[] = "/var/tmp/populateXXXXXX";
		fd = mkstemp(path);
		unlink(path);
		char buf[4096];
		memset(buf, 7, sizeof buf);
		for (long i = 0; i < n; i++)
			write(fd, buf, sizeof buf);
		fsync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (strcmp(kind, "hot-ro") == 0) {
			char *h = mmap(NULL, n * 4096, PROT_READ, MAP_SHARED, fd, 0);
			volatile char s = 0;
			for (long i = 0; i < n; i++)
				s += h[i * 4096];
			munmap(h, n * 4096);
			usleep(100000);
		}
	}
	int prot = PROT_READ, flags = MAP_PRIVATE | MAP_POPULATE;
	if (strstr(kind, "rw") || strstr(kind, "shared"))
		prot |= PROT_WRITE;
	if (strstr(kind, "shared"))
		flags = MAP_SHARED | MAP_POPULATE;
	if (fd < 0)
		flags |= MAP_ANONYMOUS;
	long min0, maj0, min1, maj1;
	faults(&min0, &maj0);
	char *p = mmap(NULL, n * 4096, prot, flags, fd, 0);
	faults(&min1, &maj1);
	if (p == MAP_FAILED)
		return 1;
	printf("%ld %s pmdoff=%lu minflt=%ld majflt=%ld\n", n, kind, ((unsigned long)p >> 12) % 512, min1 - min0, maj1 - maj0);
	return 0;
}
