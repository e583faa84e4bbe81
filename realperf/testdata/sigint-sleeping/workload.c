/* N close()s, then 10 s in nanosleep() (the syscall itself: glibc's
 * nanosleep() and sleep() make clock_nanosleep), where perf's SIGTERM finds it. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	struct timespec ts = { .tv_sec = 10 };
	for (int i = 0; i < n; i++)
		close(1000 + i);
	syscall(SYS_nanosleep, &ts, NULL);
	return 0;
}
