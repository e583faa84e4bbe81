package sim

import (
	"fmt"
	"testing"
)

// BenchmarkCoroutineSwitch is the cost of a lane run's coroutine switches
// (ns/op: one run) with n coroutines in turn: "resume", the engine's
// goroutine resuming each and each yielding back (two switches a run);
// "yieldto", each handing the run to the next (YieldTo: one switch a run,
// what a CPU's yield does where the engine's step is plain).
func BenchmarkCoroutineSwitch(b *testing.B) {
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
