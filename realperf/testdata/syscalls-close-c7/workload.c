#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 3;
	for (int i = 0; i < n; i++)
		close(1000 + i);
	return 0;
}
