package explore

import (
	"sync"
	"sync/atomic"
)

// runOrdered computes work(0..n-1) on jobs goroutines and hands the results
// to consume in index order, on the caller's goroutine, until consume says
// stop. Each run is a machine of its own, so schedules run in parallel; the
// order of consumption keeps an exploration's counts, its first violation
// and its output the same for any number of jobs. At most 2*jobs results
// wait to be consumed. Once interrupted says so, no more work is handed
// out; the results of work already handed out are consumed in order up to
// the first that was not.
func runOrdered[T any](n, jobs int, interrupted func() bool, work func(i int) T, consume func(i int, v T) (stop bool)) {
	if jobs <= 1 || n <= 1 {
		for i := 0; i < n && !interrupted(); i++ {
			if consume(i, work(i)) {
				return
			}
		}
		return
	}
	type item struct {
		i int
		v T
	}
	window := 2 * jobs
	results := make(chan item, window)
	slots := make(chan struct{}, window) // taken and not yet consumed
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				slots <- struct{}{}
				i := int(next.Add(1) - 1)
				if i >= n || stop.Load() || interrupted() {
					<-slots
					return
				}
				results <- item{i, work(i)}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int]T{}
	want := 0
	for it := range results {
		pending[it.i] = it.v
		for {
			v, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			if !stop.Load() && consume(want, v) {
				stop.Store(true)
			}
			<-slots
			want++
		}
	}
}
