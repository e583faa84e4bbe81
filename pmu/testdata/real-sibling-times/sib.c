#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
static int peo(struct perf_event_attr *a, int group){return syscall(SYS_perf_event_open,a,0,-1,group,0);}
static void spin(long ns){struct timespec s,n;clock_gettime(CLOCK_MONOTONIC,&s);do{clock_gettime(CLOCK_MONOTONIC,&n);}while((n.tv_sec-s.tv_sec)*1000000000L+(n.tv_nsec-s.tv_nsec)<ns);}
int main(void){
 struct perf_event_attr l,s; memset(&l,0,sizeof l); l.size=sizeof l; l.type=PERF_TYPE_SOFTWARE; l.config=PERF_COUNT_SW_TASK_CLOCK;
 l.read_format=PERF_FORMAT_TOTAL_TIME_ENABLED|PERF_FORMAT_TOTAL_TIME_RUNNING; l.disabled=1;
 s=l; s.disabled=0; s.config=PERF_COUNT_SW_CPU_CLOCK;
 int lf=peo(&l,-1), sf=peo(&s,lf); if(lf<0||sf<0){perror("open");return 1;}
 spin(10000000); ioctl(lf,PERF_EVENT_IOC_ENABLE,0); spin(10000000);
 uint64_t v[3]; read(sf,v,sizeof v); printf("sibling count %llu enabled %llu running %llu\n",(unsigned long long)v[0],(unsigned long long)v[1],(unsigned long long)v[2]);
 read(lf,v,sizeof v); printf("leader  count %llu enabled %llu running %llu\n",(unsigned long long)v[0],(unsigned long long)v[1],(unsigned long long)v[2]);
 return 0;}
