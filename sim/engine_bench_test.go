package sim

import (
	"fmt"
	"testing"
)

// BenchmarkEngineLanes is the engine's cost per lane run as lanes are
// added, each lane coming back a fixed time later (lanes in lock step: every
// instant is a tie between them all, decided by the quiet schedule).
func BenchmarkEngineLanes(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("lanes=%d", n), func(b *testing.B) {
			e := NewEngine(nil)
			left := b.N
			for i := range n {
				var l *Lane
				l = e.AddLane(LaneName(i), func() {
					if left--; left > 0 {
						e.SetNext(l, e.Now()+Time(100+i%3))
					} else {
						e.SetNext(l, Never)
					}
				})
				e.SetNext(l, 0)
			}
			b.ResetTimer()
			if err := e.Run(Never - 1); err != nil {
				b.Fatal(err)
			}
		})
	}
}
