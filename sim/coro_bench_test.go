package sim

import (
	"fmt"
	"iter"
	"testing"
)

// BenchmarkCoroutineSwitch is the cost of a lane run's coroutine switches
// (ns/op: one run) with n coroutines in turn: "resume", the engine's
// goroutine resuming each and each yielding back (two switches a run);
// "yieldto", each handing the run to the next (YieldTo: one switch a run,
// what a CPU's yield does where the engine's step is plain); and "raw",
// the Go runtime's own switch under them (iter.Pull's next(): two switches
// an op), the floor of any lane switch: a simulated syscall on 8 or more
// CPUs in lock step takes ~4.6 of them (BenchmarkSyscallCPUs'
// lane-runs/syscall).
func BenchmarkCoroutineSwitch(b *testing.B) {
	b.Run("raw/iter.Pull", func(b *testing.B) {
		next, stop := iter.Pull(func(yield func(int) bool) {
			for i := 0; yield(i); i++ {
			}
		})
		defer stop()
		b.ResetTimer()
		for range b.N {
			next()
		}
	})
	for _, n := range []int{2, 8, 64} {
		b.Run(fmt.Sprintf("resume/coroutines=%d", n), func(b *testing.B) {
			cos := make([]*Coroutine, n)
			for i := range cos {
				cos[i] = NewCoroutine(func() {
					for {
						cos[i].Yield()
					}
				})
				cos[i].Resume()
			}
			b.ResetTimer()
			for k := range b.N {
				cos[k%n].Resume()
			}
			b.StopTimer()
			for _, co := range cos {
				co.Kill()
			}
		})
		b.Run(fmt.Sprintf("yieldto/coroutines=%d", n), func(b *testing.B) {
			cos := make([]*Coroutine, n)
			left := 0
			for i := range cos {
				cos[i] = NewCoroutine(func() {
					for {
						if left--; left <= 0 {
							cos[i].Yield()
							continue
						}
						cos[i].YieldTo(cos[(i+1)%n])
					}
				})
				cos[i].Resume()
			}
			left = b.N
			b.ResetTimer()
			cos[0].Resume()
			b.StopTimer()
			for _, co := range cos {
				co.Kill()
			}
		})
	}
}
