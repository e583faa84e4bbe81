/* workload N [none]: map a file of N pages (ftruncate()d: a sparse file,
 * never in the page cache) privately and read each page once, in order;
 * then unmap it. With "none" it touches no page (the baseline: the same
 * calls, so the same faults of libc's code). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 3000;
	int touch = !(argc > 2 && strcmp(argv[2], "none") == 0);
	const char *path = "/var/tmp/perfsim-file-faults";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, n * 4096) != 0)
		return 1;
	volatile char *p = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	char sink = 0;
	for (long i = 0; touch && i < n; i++)
		sink += p[i * 4096];
	munmap((void *)p, n * 4096);
	close(fd);
	unlink(path);
	return sink;
}
