#include <unistd.h>
int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < 20000000UL; i++) x += i; close(1000); return 0; }
