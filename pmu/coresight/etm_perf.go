package coresight

import (
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/uapi"
)

// etmCtxt is struct etm_ctxt: the CPU's AUX handle and the event_data of the
// event tracing there.
type etmCtxt struct {
	handle    rb.AuxHandle
	eventData *EventData
}

// EventData is struct etm_event_data, the AUX area's private data (what
// setup_aux returns): the CPUs the event may trace on, the sink's buffer
// configuration, and (is-active knob) the overwrite flag Leo Yan's patch
// added.
type EventData struct {
	mask      []bool // cpumask of CPUs with a path to the sink
	sink      sink
	snkConfig any
	overwrite bool // event_data->overwrite (the dropped patch)
}

// SetupAux is etm_setup_aux(): build a path from every CPU's ETM to the sink
// (the ETR for all, or each CPU's TRBE), then the sink's buffer over the AUX
// pages. nil means -ENOMEM, as perf_mmap() reports it. Two allocations may
// fail (fault injection: site etm_setup_aux): alloc_event_data()'s (call 1:
// nothing made) and the sink's alloc_buffer() (call 2); a failure after the
// event data was made goes to err:, etm_free_aux(), whose free_event_data()
// (a work item in the kernel, run here at once) frees it.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_setup_aux()
func (d *Device) SetupAux(ev Event, aux []byte, nrPages int, overwrite bool) *EventData {
	// "event_data = alloc_event_data(cpu); if (!event_data) return NULL;"
	if d.shouldFail("etm_setup_aux") {
		return nil
	}
	ed := &EventData{mask: make([]bool, d.cfg.CPUs), overwrite: overwrite}
	d.Stats.EventData++
	if c := ev.CPU(); c >= 0 {
		if c < d.cfg.CPUs {
			ed.mask[c] = true
		}
	} else {
		for i := range ed.mask {
			ed.mask[i] = true
		}
	}
	first := -1
	for i, ok := range ed.mask {
		if ok && first < 0 {
			first = i
		}
	}
	if first < 0 {
		d.FreeAux(ed) // "If we don't have any CPUs ready for tracing, abort": err: etm_free_aux(event_data)
		return nil
	}
	ed.sink = d.sinkOf(first)
	// "event_data->snk_config = sink_ops(sink)->alloc_buffer(...); if (!event_data->snk_config) goto err;"
	var cfg any
	var err error
	if !d.shouldFail("etm_setup_aux") {
		cfg, err = ed.sink.allocBuffer(ev, aux, nrPages, overwrite)
	}
	if err != nil || cfg == nil {
		d.FreeAux(ed) // err: etm_free_aux(event_data)
		return nil
	}
	ed.snkConfig = cfg
	return ed
}

func (d *Device) shouldFail(site string) bool { return d.ShouldFail != nil && d.ShouldFail(site) }

// FreeAux is etm_free_aux() -> free_event_data(): the sink's buffer goes,
// then the event data.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_free_aux()
func (d *Device) FreeAux(ed *EventData) {
	if ed == nil {
		return
	}
	if ed.snkConfig != nil {
		ed.sink.freeBuffer(ed.snkConfig)
		ed.snkConfig = nil
	}
	d.Stats.EventData-- // free_event_data(): kfree(event_data)
}

// Start is etm_event_start(): with PERF_EF_RESUME only resume the source;
// otherwise begin an AUX transaction, enable the path (sink, then source)
// and mark the event running. Each non-resume start on a CPU the event may
// trace on begins a new period of trace.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_start()
func (d *Device) Start(cpu int, ev Event, flags int) {
	if cpu < 0 || cpu >= d.cfg.CPUs {
		ev.SetHWState(hesStopped)
		return
	}
	ctxt := &d.ctxt[cpu]
	if flags&pmu.PERF_EF_RESUME != 0 {
		if ctxt.eventData != nil { // etm_event_resume()
			d.etm[cpu].resume()
			if t := d.trbeOf(cpu); t != nil {
				t.rearm()
			}
		}
		return
	}
	if ctxt.eventData != nil {
		d.warn("etm_event_start: ctxt->event_data already set on cpu%d", cpu)
		ev.SetHWState(hesStopped)
		return
	}
	s := d.host.Stepper(cpu)
	h := &ctxt.handle
	priv := rb.AuxOutputBegin(s, h, ev.RB(), ev)
	ed, _ := priv.(*EventData)
	if ed == nil {
		ev.SetHWState(hesStopped)
		return
	}
	if ed.mask[cpu] {
		sk := d.sinkOf(cpu)
		if err := sk.enable(cpu, h, ed.snkConfig, ev); err != nil {
			// fail_end_stop: "Check if the handle is still associated with the event"
			if h.Event != nil {
				rb.AuxOutputFlag(h, uapi.PERF_AUX_FLAG_TRUNCATED)
				_ = rb.AuxOutputEnd(s, h, 0)
			}
			ev.SetHWState(hesStopped)
			return
		}
		d.periods++
		d.Stats.Periods++
		exclUser, exclKernel := ev.Excludes()
		d.etm[cpu].enable(d.periods, ev.AuxPaused(), exclUser, exclKernel, etmConfigOf(ev))
		if t := d.trbeOf(cpu); t != nil {
			t.rearm()
		}
	}
	ev.SetHWState(0)
	ctxt.eventData = ed
}

func (d *Device) trbeOf(cpu int) *TRBE {
	if d.trbe == nil {
		return nil
	}
	return d.trbe[cpu]
}

// Stop is etm_event_stop(): with PERF_EF_PAUSE, etm_event_pause(); otherwise
// stop the source, mark the event stopped and, with PERF_EF_UPDATE, have the
// sink copy its trace into the AUX area and commit it with
// perf_aux_output_end(); then disable the path. Knob
// coresight-snapshot-sync=is-active skips the copy on a sched-out in
// snapshot mode (Leo Yan's dropped patch).
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_stop()
func (d *Device) Stop(cpu int, ev Event, mode int) {
	if cpu < 0 || cpu >= d.cfg.CPUs {
		return
	}
	ctxt := &d.ctxt[cpu]
	if mode&pmu.PERF_EF_PAUSE != 0 {
		d.pause(cpu, ev, ctxt)
		return
	}
	h := &ctxt.handle
	s := d.host.Stepper(cpu)
	if h.Event != nil {
		if ed, _ := rb.GetAux(h).(*EventData); ed != ctxt.eventData {
			d.warn("etm_event_stop: perf_get_aux(handle) != ctxt->event_data")
			return
		}
	}
	ed := ctxt.eventData
	ctxt.eventData = nil
	if ev.HWState() == hesStopped {
		return
	}
	if ed == nil {
		d.warn("etm_event_stop: no event_data for a running event")
		return
	}
	if h.Event != nil && mode&pmu.PERF_EF_UPDATE != 0 && !ed.mask[cpu] {
		ev.SetHWState(hesStopped)
		_ = rb.AuxOutputEnd(s, h, 0)
		return
	}
	sk := d.sinkOf(cpu)
	d.etm[cpu].disable() // coresight_disable_source()
	ev.SetHWState(hesStopped)
	if h.Event != nil && mode&pmu.PERF_EF_UPDATE != 0 {
		if h.Event != ev {
			d.warn("etm_event_stop: handle->event != event")
			return
		}
		if d.cfg.Knobs.SnapshotSync == SyncIsActive && ed.overwrite && ev.CtxIsActive() == 0 {
			// "Only updates AUX ring buffer for snapshot, or for the perf
			// session which is not in snapshot mode."
			_ = rb.AuxOutputEnd(s, h, 0)
		} else {
			size := sk.updateBuffer(cpu, h, ed.snkConfig, ev)
			d.Stats.Updates++
			d.Stats.UpdateBytes += size
			// "Make sure the handle is still valid as the sink could have
			// closed it from an IRQ."
			if h.Event != nil {
				d.auxOutputEnd(cpu, s, h, size)
			} else if size != 0 {
				d.warn("etm_event_stop: size %d with a closed handle", size)
			}
		}
	}
	_ = sk.disable(cpu) // coresight_disable_path()
}

// pause is etm_event_pause(): pause the source; for a system sink also copy
// its trace into the AUX area and restart the transaction. A per-CPU sink is
// skipped (973f47a9886a) unless knob coresight-pause-percpu-update=update.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_pause()
func (d *Device) pause(cpu int, ev Event, ctxt *etmCtxt) {
	if ctxt.eventData == nil {
		return
	}
	d.etm[cpu].pause() // coresight_pause_source()
	if t := d.trbeOf(cpu); t != nil {
		t.rearm()
	}
	sk := d.sinkOf(cpu)
	if sk.percpu() && d.cfg.Knobs.PausePercpu != PauseUpdate {
		return
	}
	h := &ctxt.handle
	if h.Event != ev {
		d.warn("etm_event_pause: handle->event != event")
		return
	}
	s := d.host.Stepper(cpu)
	size := sk.updateBuffer(cpu, h, ctxt.eventData.snkConfig, ev)
	d.Stats.Updates++
	d.Stats.UpdateBytes += size
	if h.Event != nil {
		if size == 0 {
			return
		}
		d.auxOutputEnd(cpu, s, h, size)
		rb.AuxOutputBegin(s, h, ev.RB(), ev)
	} else if size != 0 {
		d.warn("etm_event_pause: size %d with a closed handle", size)
	}
}

// Add is etm_event_add(): start at once with PERF_EF_START.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_add()
func (d *Device) Add(cpu int, ev Event, mode int) error {
	if mode&pmu.PERF_EF_START != 0 {
		d.Start(cpu, ev, 0)
		if ev.HWState()&hesStopped != 0 {
			return uapi.EINVAL
		}
		return nil
	}
	ev.SetHWState(hesStopped)
	return nil
}

// Del is etm_event_del(): etm_event_stop(PERF_EF_UPDATE).
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_del()
func (d *Device) Del(cpu int, ev Event) { d.Stop(cpu, ev, pmu.PERF_EF_UPDATE) }

// configEvent is an Event that has attr.config (a pmu.Event).
type configEvent interface{ AttrConfig() uint64 }

// The cs_etm format bits etm4_parse_event_config() reads (ETM_OPT_*).
// include/linux/coresight-pmu.h: ETM_OPT_CTXTID, ETM_OPT_TS
const (
	etmOptCtxtID = 14
	etmOptTS     = 28
)

// etmConfigOf is the part of etm4_parse_event_config() the trace content
// follows: timestamps with ETM_OPT_TS, context ids with ETM_OPT_CTXTID. An
// event that does not say is a per-CPU perf session's (perf sets both).
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_parse_event_config()
func etmConfigOf(ev Event) etmConfig {
	c, ok := ev.(configEvent)
	if !ok {
		return etmConfig{ts: true, ctxt: true}
	}
	cfg := c.AttrConfig()
	return etmConfig{ts: cfg>>etmOptTS&1 != 0, ctxt: cfg>>etmOptCtxtID&1 != 0}
}
