/* N close() calls alternating between fd 1000 and fd 1001 (each -EBADF). */
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4;
	for (int i = 0; i < n; i++)
		close(1000 + (i & 1));
	return 0;
}
