#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 111;
	char name[16];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p:%d", i);
		prctl(PR_SET_NAME, name);
	}
	return 0;
}
