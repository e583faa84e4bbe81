package pmu

import (
	"math/bits"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// MAX_INTERRUPTS marks a throttled event (hwc->interrupts).
const maxInterrupts = ^uint64(0)

// tickNsec is TICK_NSEC (knob hz; 4 ms at this machine's HZ=250), the unit
// of the throttle accounting.
func (k *Kernel) tickNsec() sim.Duration { return k.S.Cfg.Tick }

// POLL_* values of event->pending_kill.
const (
	pollIn  = 1
	pollErr = 4
	pollHup = 6
)

// regs is the part of struct pt_regs a sample reads: where the CPU was.
type regs struct {
	ip   uint64
	user bool
	task *sched.Task // current, nil for idle
}

// perfSampleData is struct perf_sample_data: what the overflow path hands to
// the output handler before perf_prepare_sample() completes it.
type perfSampleData struct {
	period uint64
	raw    []byte
	addr   uint64
	// noCallchain: data->callchain was left NULL for perf_prepare_sample()
	// (a precise event's PMI taken outside the PEBS drain).
	noCallchain bool
}

// sampleScratch is per-CPU storage for the sample being prepared, one slot per
// recursion context (task, irq, nmi) as the kernel's per-context buffers, so a
// nested NMI sample does not overwrite the one it interrupted.
type sampleScratch struct {
	s     [3]rb.Sample
	chain [3][]uint64
}

// eventOverflow is __perf_event_overflow(): account the interrupt (and
// throttle), apply the event_limit of IOC_REFRESH, call the overflow handler.
// It returns non-zero when the caller must stop the event.
// kernel/events/core.c: __perf_event_overflow()
func (k *Kernel) eventOverflow(c *cpu.CPU, e *Event, throttle bool, data *perfSampleData, r *regs) int {
	if !e.isSampling() {
		return 0
	}
	listening := k.M.FootprintListening()
	e.checkLive("__perf_event_overflow")
	ret := k.accountInterrupt(c, e, throttle)
	k.auxOverflowPause(c, e) // aux_pause: after the interrupt accounting (annotated: footprint_aux.go)
	if listening {
		k.accessEventLimit(c, e) // footprint_overflow.go
	}
	e.pendingKill = pollIn
	if e.eventLimit != 0 {
		e.eventLimit--
		if e.eventLimit == 0 {
			c.Unaudited("perf_event_disable_inatomic") // core.c: __perf_event_overflow(): the event_limit ran out: perf_event_disable_inatomic(), pmu->stop (footprint_overflow.go)
			ret = 1
			e.pendingKill = pollHup
			k.perfEventDisableInatomic(e)
			e.pmu.Stop(c, e, 0)
		}
	}
	if e.Attr.Sigtrap {
		c.Unaudited("perf_sigtrap") // core.c: __perf_event_overflow(): the sigtrap's task_work_add() (footprint_overflow.go)
	}
	k.perfOverflowSigtrap(c, e, data)
	if listening {
		k.accessStats(c, "__perf_event_overflow")
	}
	k.stats.overflows++
	k.perfEventOutput(c, e, data, r, e.Attr.WriteBackward)
	if listening {
		k.annotateOverflowTail(c, e) // footprint_overflow.go
	}
	if e.fasyncFile() != nil && e.pendingKill != 0 {
		e.pendingWakeup = true // SIGIO for every overflow of an O_ASYNC event
		e.irqWorkQueue()
	}
	k.auxOverflowResume(c, e) // aux_resume: at the end (out:), after the sample
	return ret
}

// uptimeAtStart is how long the simulated machine has been up when the
// scenario starts, for the perf_clock() readings that are compared with a
// stamp the kernel zeroes at allocation (hwc->freq_time_stamp): any uptime
// over two ticks behaves alike; a real machine's is hours (this one's was
// 74,637 s when a survey compared freq mode's periods with the real perf:
// TestFreqFirstInterruptKeepsPeriod).
const uptimeAtStart = 60 * sim.Second

// accountInterrupt counts interrupts per tick and throttles an event that
// takes more than max_samples_per_tick; in freq mode it adapts the period.
// kernel/events/core.c: __perf_event_account_interrupt()
func (k *Kernel) accountInterrupt(c *cpu.CPU, e *Event, throttle bool) int {
	hwc := &e.hw
	ret := 0
	if k.M.FootprintListening() {
		k.accessAccountInterrupt(c, e, throttle) // footprint_overflow.go
	}
	seq := k.throttledSeq(c)
	if seq != hwc.interruptsSeq {
		hwc.interruptsSeq = seq
		hwc.interrupts = 1
	} else {
		hwc.interrupts++
	}
	if throttle && hwc.interrupts >= k.maxSamplesPerTick() {
		c.Unaudited("perf_event_throttle_group") // core.c: __perf_event_account_interrupt(): tick_dep_set_cpu(), perf_event_throttle_group() (footprint_overflow.go)
		k.armUnthrottle(c)                       // perf_throttled_count++, tick_dep_set_cpu()
		k.perfEventThrottleGroup(c, e)
		ret = 1
	}
	if e.Attr.Freq {
		// perf_clock() counts from boot and hwc->freq_time_stamp from 0,
		// so an event's first interrupt finds a delta of the machine's
		// uptime and leaves the period alone; the model's clock starts
		// with the scenario (uptimeAtStart).
		now := k.now() + uptimeAtStart
		delta := now - hwc.freqTimeStamp
		hwc.freqTimeStamp = now
		if delta > 0 && delta < 2*k.tickNsec() {
			k.perfAdjustPeriod(c, e, uint64(delta), hwc.lastPeriod)
		}
	}
	return ret
}

// throttledSeq is perf_throttled_seq, bumped by each tick on c: here the
// number of the tick period now is in (the division is done once a tick).
func (k *Kernel) throttledSeq(c *cpu.CPU) uint64 {
	ts := k.tickSeq.Get(c)
	if now := k.now(); now >= ts.next {
		tick := k.tickNsec()
		ts.seq = uint64(now / tick)
		ts.next = sim.Time(ts.seq+1) * tick
	}
	return ts.seq
}

type tickSeq struct {
	seq  uint64
	next sim.Time
}

// maxSamplesPerTick is DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ)
// (knob hz).
// Once perf_sample_event_took() lowered it, its value (throttle_took.go).
func (k *Kernel) maxSamplesPerTick() uint64 {
	if m := k.took.maxPerTick; m > 0 {
		return m
	}
	r := uint64(k.Opts.Sysctl.MaxSampleRate)
	if r == 0 {
		r = 100000
	}
	hz := uint64(k.S.Cfg.HZ)
	return (r + hz - 1) / hz
}

// perfAdjustPeriod moves sample_period towards the attr.sample_freq rate with
// the kernel's low-pass filter.
// kernel/events/core.c: perf_adjust_period()
func (k *Kernel) perfAdjustPeriod(c *cpu.CPU, e *Event, nsec, count uint64) {
	hwc := &e.hw
	period := perfCalculatePeriod(e.Attr.SampleFreq(), nsec, count)
	delta := int64(period - hwc.samplePeriod)
	if delta >= 0 {
		delta += 7
	} else {
		delta -= 7
	}
	delta /= 8 // low pass filter
	sp := uint64(int64(hwc.samplePeriod) + delta)
	if sp == 0 {
		sp = 1
	}
	hwc.samplePeriod = sp
	if hwc.periodLeft > 8*int64(sp) {
		c.Unaudited("perf_adjust_period: pmu->stop, pmu->start") // footprint_overflow.go
		e.pmu.Stop(c, e, PERF_EF_UPDATE)
		hwc.periodLeft = 0
		e.pmu.Start(c, e, PERF_EF_RELOAD)
	}
}

// perfCalculatePeriod is count * NSEC_PER_SEC / (nsec * freq).
// kernel/events/core.c: perf_calculate_period()
func perfCalculatePeriod(freq, nsec, count uint64) uint64 {
	if freq == 0 || nsec == 0 {
		return 1
	}
	hi, lo := bits.Mul64(count, uint64(sim.Second))
	d := nsec * freq
	if hi >= d {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, d)
	if q == 0 {
		q = 1
	}
	return q
}

// perfEventOutput is the default overflow handler: perf_event_output_forward
// or _backward (attr.write_backward) -> __perf_event_output(): prepare the
// sample, then begin, output and end on event->rb.
// kernel/events/core.c: __perf_event_output()
func (k *Kernel) perfEventOutput(c *cpu.CPU, e *Event, data *perfSampleData, r *regs, backward bool) {
	slot := int(c.Context())
	sc := k.scratch.Get(c)
	_ = sc
	s := &sc.s[slot]
	listening := k.M.FootprintListening()
	if listening {
		k.accessPrepareSample(c, e) // footprint_overflow.go
	}
	k.perfPrepareSample(c, e, s, &sc.chain[slot], data, r)
	if k.OnOutput != nil {
		if listening {
			accessOnOutput(c, e) // footprint_overflow.go
		}
		k.OnOutput(e, c, s)
	}
	// __perf_output_begin(): "if (event->parent) event = event->parent;"
	// then rcu_dereference(event->rb).
	oe := e.outputEvent()
	if listening {
		c.AccessMarkedOnly(oe, "event->rb", cpu.MarkedRead, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): rb = rcu_dereference(event->rb)
	}
	buf := oe.rb
	// Its code after the record is annotated here, and in its callers
	// (footprint_overflow.go): rb does not mark the return.
	err := rb.PerfEventOutputAudited(c, buf, oe, s, backward)
	if cp := &k.S.Cfg.Cost; cp.SampleRecord > 0 {
		c.Spend(cp.SampleRecord + cp.Callchain(len(s.Callchain)))
	}
	if k.M.FootprintListening() {
		k.annotateOutputTail(c, e) // after the Spend: a time advance there goes on in a fragment of its own
	}
	if err != nil {
		if buf != nil {
			k.stats.rbLost++
		}
		return
	}
	e.Samples++
	k.stats.samples++
}

// perfPrepareSample fills the sample from the event and the interrupted
// context. Addresses are fake but stable: a named frame always has one IP.
// kernel/events/core.c: perf_prepare_sample(), perf_sample_data_init()
func (k *Kernel) perfPrepareSample(c *cpu.CPU, e *Event, s *rb.Sample, chain *[]uint64, data *perfSampleData, r *regs) {
	st := e.Attr.SampleType
	s.Type = st & rb.SampleSupported
	s.ID = e.primaryEventID()
	s.StreamID = e.id
	s.IP = r.ip
	if r.user {
		s.Misc = uapi.PERF_RECORD_MISC_USER
	} else {
		s.Misc = uapi.PERF_RECORD_MISC_KERNEL
	}
	if t := r.task; t != nil {
		s.Pid, s.Tid = uint32(t.PID), uint32(t.TID)
	} else {
		s.Pid, s.Tid = 0, 0
	}
	s.Time = uint64(k.now())
	s.CPU, s.Res = uint32(c.ID), 0
	s.Period = data.period
	s.Addr = data.addr
	s.Read, s.ReadReserved = nil, 0
	if st&uapi.PERF_SAMPLE_READ != 0 {
		s.Read = k.perfOutputRead(c, e)
		s.ReadReserved = e.readSize // event->header_size includes the cached read_size
	}
	s.Raw = nil
	if st&uapi.PERF_SAMPLE_RAW != 0 {
		s.Raw = data.raw
	}
	s.Callchain = nil
	if st&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		if data.noCallchain {
			// `size += data->callchain->nr;` (6f55967ad9d9's oops)
			panicCrash("BUG: kernel NULL pointer dereference in perf_prepare_sample: data->callchain of precise event %d sampled by the PMI outside the PEBS drain", e.id)
		}
		if k.M.FootprintListening() {
			k.accessCallchain(c, e, r) // footprint_overflow.go
		}
		s.Callchain = k.perfCallchain(c, e, chain, r)
	}
	if st&uapi.PERF_SAMPLE_CGROUP != 0 {
		// task_css_check(current, perf_event_cgrp_id, 1)->cgroup: the idle
		// task is in the root cgroup.
		s.Cgroup = k.S.CgroupOf(sched.TaskOf(c.Curr())).ID
	}
	k.perfSampleUser(e, s, r) // after the parts before it: the stack dump is sized to fit
	if st&uapi.PERF_SAMPLE_AUX != 0 {
		k.prepareSampleAux(c, e, s)
	}
}

// fakeIP gives a named frame a stable address: a function slot of the
// synthetic images (image.go), user text in the exec'd image's text page,
// kernel text from _text. The addresses are kept by name, one map for user
// text and one for kernel text (a string key hashes fast, a struct with one
// does not).
func (k *Kernel) fakeIP(name string, kernel bool) uint64 {
	// The names are a few strings the model holds (constants, a task's
	// stack frames) asked again and again: a cache by where their bytes
	// are (strbytes.go) finds most without hashing them.
	x := &k.ipCache[bytesSlot(name, ipCacheSize)]
	if x.set && sameBytes(x.name, name) && x.kernel == kernel {
		// The same footprint as fakeIPSlow's: whether the cache has the
		// name depends on where its bytes are, which a replay need not
		// repeat; the footprint must not.
		if k.M.FootprintListening() {
			k.annotateIP(k.curCPU(), name, x.p, kernel)
		}
		return x.p.ip
	}
	p := k.fakeIPSlow(name, kernel)
	*x = ipCached{name: name, p: p, kernel: kernel, set: true}
	return p.ip
}

// ipCacheSize is the number of entries of Kernel.ipCache (a power of 2).
const ipCacheSize = 16

// ipCached is an entry of Kernel.ipCache: what fakeIP returned for name.
type ipCached struct {
	name        string
	p           ipPlaced
	kernel, set bool
}

// fakeIPSlow is fakeIP by the maps of addresses.
func (k *Kernel) fakeIPSlow(name string, kernel bool) ipPlaced {
	m := &k.ips[0]
	if kernel {
		m = &k.ips[1]
	}
	p, ok := (*m)[name]
	if !ok {
		p = k.images.placed(name, k.images.place(name, kernel), kernel)
		if *m == nil {
			*m = map[string]ipPlaced{}
		}
		(*m)[name] = p
	}
	if k.M.FootprintListening() {
		k.annotateIP(k.curCPU(), name, p, kernel) // image_footprint.go
	}
	return p
}

// interruptedRegs returns the regs of the context an interrupt landed on.
func (k *Kernel) interruptedRegs(c *cpu.CPU) regs {
	th := c.Curr()
	t := sched.TaskOf(th)
	if t == nil {
		return regs{ip: k.fakeIP("default_idle", true)}
	}
	if th.User {
		name := "main"
		if n := len(t.UserStack); n > 0 {
			name = t.UserStack[n-1]
		}
		return regs{ip: k.fakeIP(name, false), user: true, task: t}
	}
	return regs{ip: k.fakeIP(kernelFrame(t), true), task: t}
}
