/* Touch N fresh anonymous pages once each (a write: one minor fault each),
 * then unmap them. */
#include <stdlib.h>
#include <sys/mman.h>
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000;
	if (n == 0)
		return 0;
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
	munmap(p, n * 4096);
	return 0;
}
