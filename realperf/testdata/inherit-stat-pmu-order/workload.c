/* fork-exit: fork N children one after the other; each exits at once and
 * the parent waits for it (the paired case fork-exit). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;

	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	return 0;
}
