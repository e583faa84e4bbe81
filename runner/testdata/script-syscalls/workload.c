/* The system calls whose arguments and return values perf script prints:
 * close(-1) and close(1000) (-EBADF), prctl(PR_SET_NAME, "worker") through
 * syscall(2) so that arg3..arg5 are 0, write(1, buf, 64), and an anonymous
 * mmap with fd -1. */
#include <linux/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
	static char buf[64];
	close(-1);
	syscall(SYS_prctl, PR_SET_NAME, "worker", 0, 0, 0);
	write(1, buf, 64);
	close(1000);
	mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return 0;
}
