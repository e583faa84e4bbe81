// The paired case pthread-join: K rounds of pthread_create() of a thread
// that spins N iterations and exits, then pthread_join() of it.
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static void *spin(void *a) { volatile long i; long n = (long)a; for (i = 0; i < n; i++) ; return 0; }
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int k = argc > 2 ? atoi(argv[2]) : 1;
	for (int j = 0; j < k; j++) {
		pthread_t t;
		pthread_create(&t, 0, spin, (void *)n);
		pthread_join(t, 0);
	}
	return 0;
}
