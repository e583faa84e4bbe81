package sim

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// TuneGC sets the garbage collector's target to 400% unless the user set
// GOGC. A run builds a whole machine, its coroutines and its buffers and
// drops them at the end: at the default 100% the collector took two thirds
// of an exploration's time (simrun explore aux-mmap-vs-munmap --runs 2000:
// 2.39 s at 100%, 0.84 s at 400%, for 14 MB more at peak).
//
// The target also has a floor, gcFloor: an exploration of a small scenario
// keeps ~3 MB live, so 400% collected every 12 MB, every ~80 schedules of
// aux-pause-resume-nmi (150 KB each), and the collections (marking, every
// pooled coroutine's stack scanned, the write barrier on while they ran)
// were 8% of its instructions. After each collection the target is raised
// so the heap may grow to gcFloor before the next; a process whose live
// heap is over gcFloor/5 keeps 400%.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		gcTuneOnce.Do(armGCTick)
	}
}

const (
	gcPercent = 400
	gcFloor   = 64 << 20
	// gcMaxPercent bounds the raised target: a live heap of a few hundred
	// KB (a process that has just started) does not get a goal of 64 MB
	// from a multiple in the thousands of what it holds.
	gcMaxPercent = 4000
)

var (
	gcTuneOnce sync.Once
	gcSetPct   = gcPercent // the target last set (only gcTick reads and sets it)
	gcLive     = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
)

// gcTickObj is what gcTick hangs on: an object the next collection frees,
// whose finalizer then runs gcTick (not a tiny allocation, whose finalizer
// could wait for its neighbours).
type gcTickObj struct{ _ *int }

func armGCTick() {
	runtime.SetFinalizer(&gcTickObj{}, gcTick)
}

// gcTick runs after each collection: it sets the target that lets the heap
// grow to gcFloor (at least gcPercent, at most gcMaxPercent), rounded to a
// hundred so a live heap that wobbles does not reset it (SetGCPercent
// stops the world), and arms itself for the next collection.
func gcTick(*gcTickObj) {
	metrics.Read(gcLive)
	pct := gcPercent
	if v := gcLive[0].Value; v.Kind() == metrics.KindUint64 {
		if live := v.Uint64(); live > 0 && live*(100+gcPercent)/100 < gcFloor {
			pct = max(min(int(gcFloor/live)*100-100, gcMaxPercent), gcPercent)
		}
	}
	if pct != gcSetPct {
		gcSetPct = pct
		debug.SetGCPercent(pct)
	}
	armGCTick()
}
