package pmu

import "sort"

// stats are the core's counters, read through Observe.
type stats struct {
	opens, closes, mmaps   uint64
	ipis                   uint64 // call_function_single IPIs taken
	pendingDisableRemote   uint64
	samples, overflows     uint64
	rbLost                 uint64 // samples the ring buffer refused (paused or full)
	wakeups                uint64 // perf_output_wakeup() calls
	tpFiltered             uint64 // tracepoint records an event filter rejected (tp_filter.go)
	sigioSent              uint64 // kill_fasync() sends to a file owner (fasync.go)
	sigioFallback          uint64 // F_SETSIG signals that fell back to SIGIO (fasync.go)
	fdputLast              uint64 // fdput()s that were the file's final fput (core_fd.go)
	pmis                   uint64 // hardware PMU NMIs handled
	throttles, unthrottles uint64
	freeEventWarn          uint64 // free_event() refused a refcount other than 1 (knob_child_release.go)
	funcCallENXIO          uint64 // task_function_call() rounds refused with -ENXIO (knob_task_function_call.go)
	stopRetries            uint64 // perf_event_stop() rounds whose IPI found the event moved (-EAGAIN) (core_funccall.go)
	outputStopRetries      uint64 // perf_pmu_output_stop() rounds whose cross-call found an event of the buffer moved (-EAGAIN) (aux_mmap.go)
}

var observables = map[string]func(k *Kernel) int64{
	"samples":       func(k *Kernel) int64 { return int64(k.stats.samples) },
	"overflows":     func(k *Kernel) int64 { return int64(k.stats.overflows) },
	"rb.lost":       func(k *Kernel) int64 { return int64(k.stats.rbLost) },
	"rb.count":      func(k *Kernel) int64 { return int64(len(k.bufs)) },
	"wakeups":       func(k *Kernel) int64 { return int64(k.stats.wakeups) },
	"pmis":          func(k *Kernel) int64 { return int64(k.stats.pmis) },
	"throttles":     func(k *Kernel) int64 { return int64(k.stats.throttles) },
	"unthrottles":   func(k *Kernel) int64 { return int64(k.stats.unthrottles) },
	"events.opened": func(k *Kernel) int64 { return int64(k.stats.opens) },
	"events.closed": func(k *Kernel) int64 { return int64(k.stats.closes) },
	"events.freed": func(k *Kernel) int64 {
		var n int64
		for _, e := range k.events {
			if e.life.isFreed(k.now()) {
				n++
			}
		}
		return n
	},
	"ipis":            func(k *Kernel) int64 { return int64(k.stats.ipis) },
	"events.active":   func(k *Kernel) int64 { return k.countState(StateActive) },
	"events.inactive": func(k *Kernel) int64 { return k.countState(StateInactive) },
	"events.off":      func(k *Kernel) int64 { return k.countState(StateOff) },
	"events.error":    func(k *Kernel) int64 { return k.countState(StateError) },
	"mmaps":           func(k *Kernel) int64 { return int64(k.stats.mmaps) },
	"lost_samples": func(k *Kernel) int64 {
		var n int64
		for _, e := range k.events {
			n += int64(e.lostSamples)
		}
		return n
	},
}

// The core observables' meanings (the drivers register theirs with help).
func init() {
	for n, h := range map[string]string{
		"samples":         "samples written into a ring buffer",
		"overflows":       "counter overflows handled (__perf_event_overflow)",
		"rb.lost":         "samples a paused or full ring buffer refused",
		"rb.count":        "ring buffers alive now",
		"wakeups":         "perf_output_wakeup() calls",
		"pmis":            "hardware PMU NMIs handled",
		"throttles":       "events throttled (more than max_samples_per_tick)",
		"unthrottles":     "events unthrottled by the tick",
		"events.opened":   "perf_event_open() calls that made an event",
		"events.closed":   "events released",
		"ipis":            "cross-CPU function calls (smp_call_function_single IPIs) taken",
		"events.freed":    "events whose memory free_event_rcu() freed, a grace period after the last reference went",
		"events.active":   "events ACTIVE now",
		"events.inactive": "events INACTIVE now",
		"events.off":      "events OFF (disabled) now",
		"events.error":    "events in ERROR now (a pinned group that could not go on)",
		"mmaps":           "ring buffers perf_mmap() allocated",
		"lost_samples":    "event->lost_samples summed over every event",
	} {
		observableHlp[n] = h
	}
}

func (k *Kernel) countState(s EventState) int64 {
	var n int64
	for _, e := range k.events {
		if e.state == s {
			n++
		}
	}
	return n
}

// Observe returns the named observable of the perf core (see
// ObservableNames): "samples" written, "rb.lost" samples refused by a paused
// or full buffer, "events.active" events ACTIVE now, ...
func (k *Kernel) Observe(name string) (int64, bool) {
	f, ok := observables[name]
	if !ok {
		return 0, false
	}
	return f(k), true
}

// ObservableNames lists the names Observe knows, sorted.
func ObservableNames() []string {
	var out []string
	for n := range observables {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
