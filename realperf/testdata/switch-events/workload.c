/* switch-events: N nanosleep()s of 100 us; each blocks, so the task is
 * switched out and back in (the paired case switch-events). */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return 0;
}
