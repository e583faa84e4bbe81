/* read(2) N pages of a file into N fresh anonymous pages, then write(2) them
 * back from N other fresh pages: the kernel's copies fault each buffer page
 * in from kernel mode (the read's at _copy_to_iter, the write's at
 * fault_in_readable), which -e page-faults:k counts and :u does not. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 256;
	if (n == 0)
		return 0;
	size_t len = n * 4096;
	int fd = open("/tmp/perfsim-read-buffer", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, len) != 0)
		return 1;
	char *r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED || w == MAP_FAILED || read(fd, r, len) != (ssize_t)len)
		return 1;
	if (lseek(fd, 0, SEEK_SET) != 0 || write(fd, w, len) != (ssize_t)len)
		return 1;
	close(fd);
	unlink("/tmp/perfsim-read-buffer");
	return 0;
}
