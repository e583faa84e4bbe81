/* fileio N ACTION CHUNK TOTAL [OFF]: a file of N pages; ACTION:
 *   read     made cold (written, fsync()ed, dropped with
 *            POSIX_FADV_DONTNEED), then TOTAL bytes read with read(2) in
 *            CHUNK-byte calls from byte OFF (lseek())
 *   write    made empty (O_TRUNC), then TOTAL bytes written with write(2)
 *            in CHUNK-byte calls, then POSIX_FADV_DONTNEED of the whole
 *            file (its pages dirty: kept)
 *   wsync    the same with an fsync() before the DONTNEED (clean: dropped)
 * It waits 300 ms for any readahead to finish and prints the bytes the
 * calls returned, the file's size, and the pages mincore() finds cached
 * (through a mapping of the file). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: fileio N read|write|wsync CHUNK TOTAL [OFF]\n");
		return 2;
	}
	long n = atol(argv[1]), chunk = atol(argv[3]), total = atol(argv[4]), off = argc == 6 ? atol(argv[5]) : 0;
	const char *act = argv[2];
	char path[] = "/var/tmp/fileioXXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	char *buf = malloc(chunk);
	memset(buf, 7, chunk);
	long done = 0;
	if (strcmp(act, "read") == 0) {
		char page[4096];
		memset(page, 7, sizeof page);
		for (long i = 0; i < n; i++)
			write(fd, page, sizeof page);
		fsync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		lseek(fd, off, SEEK_SET);
		while (done < total) {
			long r = read(fd, buf, chunk < total - done ? chunk : total - done);
			if (r <= 0)
				break;
			done += r;
		}
	} else {
		while (done < total) {
			long w = write(fd, buf, chunk < total - done ? chunk : total - done);
			if (w <= 0)
				break;
			done += w;
		}
		if (strcmp(act, "wsync") == 0)
			fsync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	usleep(300000);
	struct stat st;
	fstat(fd, &st);
	long pages = (st.st_size + 4095) / 4096, res = 0;
	if (pages > 0) {
		unsigned char *vec = malloc(pages);
		char *p = mmap(NULL, pages * 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED || mincore(p, pages * 4096, vec) != 0)
			return 1;
		for (long i = 0; i < pages; i++)
			res += vec[i] & 1;
	}
	printf("%ld %s %ld %ld %ld done=%ld size=%ld resident=%ld\n", n, act, chunk, total, off, done, (long)st.st_size, res);
	return 0;
}
