/* fork-cow N W: write N fresh anonymous pages, fork; the child writes them
 * again when W is 1 (each a copy-on-write fault: the fork write-protected
 * them on both sides), or only exits when W is 0 (the baseline); the parent
 * waits for it. */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200;
	int w = argc > 2 ? atoi(argv[2]) : 1;
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
	pid_t c = fork();
	if (c == 0) {
		for (long i = 0; w && i < n; i++)
			p[i * 4096] = 2;
		_exit(0);
	}
	waitpid(c, NULL, 0);
	return 0;
}
