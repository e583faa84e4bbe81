package explore

import (
	"syscall"
	"time"
)

// maxRSSMB is the peak resident set size of this process (getrusage
// ru_maxrss, KiB on Linux), in MiB; 0 where getrusage fails.
func maxRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

// userCPU is the user CPU time this process has used (getrusage ru_utime).
func userCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
