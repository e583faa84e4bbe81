/* attach-pid: a process of two threads that perf record attaches to with
 * -p or -t (the paired cases attach-pid and attach-tid). It creates its
 * second thread, writes its pid and the thread's tid to the file argv[2]
 * (capture.sh waits for it, then starts perf), then both threads block
 * until capture.sh writes a byte to the fifo argv[3] (once perf has
 * attached); each then closes fd -1 N times; main joins the thread and
 * exits. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int n;
static pid_t tid;
static pthread_barrier_t ready, go;

static void *loop(void *arg)
{
	if (arg) {
		tid = gettid();
		pthread_barrier_wait(&ready);
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < n; i++)
		close(-1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c;
	int fd;
	FILE *f;

	if (argc < 4)
		return 2;
	n = atoi(argv[1]);
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&go, NULL, 2);
	pthread_create(&t, NULL, loop, &t);
	pthread_barrier_wait(&ready);
	f = fopen(argv[2], "w");
	fprintf(f, "%d %d\n", getpid(), tid);
	fclose(f);
	fd = open(argv[3], O_RDONLY);
	if (read(fd, &c, 1) != 1)
		return 1;
	loop(NULL);
	pthread_join(t, NULL);
	return 0;
}
