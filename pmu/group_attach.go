package pmu

import "perfsim/cpu"

// perfEventHeaderSize caches the size of the event's PERF_SAMPLE_READ part
// (and so of its samples) for the group as it is now.
// kernel/events/core.c: perf_event__header_size() -> __perf_event_read_size()
func perfEventHeaderSize(e *Event) {
	e.readSize = ReadSize(e.Attr.ReadFormat, e.leader.nrSiblings)
}

// perfGroupAttach adds a sibling to its leader's group: the list first, then
// nr_siblings, then the cached sizes of the leader and of every sibling. It
// runs under ctx->lock with interrupts off, on the CPU where the context is
// active, and the PMU stays enabled (ctx_resched() comes after): a PMI of an
// ACTIVE member can land between any two of these, and
// perf_output_read_group() walks the list and writes nr_siblings as they are
// while the record was sized with the read_size of before.
// kernel/events/core.c: perf_group_attach()
func perfGroupAttach(c *cpu.CPU, e *Event) {
	l := e.leader
	l.siblings = append(l.siblings, e) // list_add_tail(&event->sibling_list, ...): annotated by the caller's accessAddEventToCtx
	stepGroup(c, "perf_group_attach:list_add_tail")
	accessGroupAttachNr(c, l) // footprint_group.go, as the rest
	l.nrSiblings++
	stepGroup(c, "perf_group_attach:nr_siblings")
	accessGroupGeneration(c, l)
	accessHeaderSize(c, l)
	perfEventHeaderSize(l)
	accessSiblingWalk(c, l)
	for _, s := range l.siblings {
		stepGroup(c, "perf_group_attach:header_size")
		accessHeaderSize(c, s)
		perfEventHeaderSize(s)
		accessSiblingWalk(c, l)
	}
	markGroupAttachReturn(c, e)
}

// perfGroupDetach takes the event out of its group. A sibling leaves its
// leader's list, then nr_siblings drops, then the sizes of the leader and the
// siblings left are recomputed. A leader's siblings become singleton groups.
// What their cached sizes then are is the knob group-detach-read-size: the
// kernel measured here recomputes them (and the leader's, with nr_siblings
// 0); in the source copy the loop at the end that recomputes "the siblings'
// sizes" finds none left, so each promoted sibling keeps the read_size of
// the group it was in (1 + the old nr_siblings entries) while
// perf_output_read_group() now writes one: its samples are shorter than
// their reservation, whose tail keeps stale ring bytes.
// kernel/events/core.c: perf_group_detach()
func perfGroupDetach(c *cpu.CPU, ctx *Context, e *Event) {
	l := e.leader
	if l != e {
		l.siblings = remove(l.siblings, e) // list_del_init(&event->sibling_list): annotated by the caller's accessListDel
		stepGroup(c, "perf_group_detach:list_del")
		accessGroupDetachNr(c, l) // footprint_group.go, as the rest
		l.nrSiblings--
		stepGroup(c, "perf_group_detach:nr_siblings")
		accessGroupDetachOut(c, ctx, e, l)
		e.leader = e
	} else {
		stale := ctx.k != nil && ctx.k.groupDetachStale()
		for _, s := range e.siblings {
			s.leader = s // sibling->group_leader = sibling; list_del_init()
			gs := ctx.groups(s)
			*gs = append(*gs, s)
			if !stale {
				perfEventHeaderSize(s)
			}
		}
		e.siblings = nil
		if !stale {
			e.nrSiblings = 0
		}
	}
	// out: for_each_sibling_event(tmp, leader) perf_event__header_size(tmp);
	for _, s := range l.siblings {
		perfEventHeaderSize(s)
	}
	perfEventHeaderSize(l)
}

// stepGroup is a step point of a group change where an interrupt can see
// it: only on a CPU (an inherited group is built before anything runs it).
func stepGroup(c *cpu.CPU, label string) {
	if c != nil {
		c.Step(label)
	}
}

func init() {
	RegisterStepHelp(map[string]string{
		"perf_group_attach:list_add_tail": "kernel/events/core.c: perf_group_attach(): the new sibling is on the leader's sibling_list, nr_siblings not yet incremented (ctx->lock held, irqs off, PMU enabled: a member's PMI writes nr_siblings+1 entries but walks one more)",
		"perf_group_attach:nr_siblings":   "kernel/events/core.c: perf_group_attach(): nr_siblings incremented, the leader's read_size not yet recomputed (a PMI's PERF_SAMPLE_READ group is longer than the record it sized)",
		"perf_group_attach:header_size":   "kernel/events/core.c: perf_group_attach(): for_each_sibling_event() perf_event__header_size(): the next sibling's read_size still of the old group",
		"perf_group_detach:list_del":      "kernel/events/core.c: perf_group_detach(): the sibling is off the leader's list, nr_siblings not yet decremented (a PMI's group read writes nr with one entry missing)",
		"perf_group_detach:nr_siblings":   "kernel/events/core.c: perf_group_detach(): nr_siblings decremented, read_size of the leader not yet recomputed (a PMI's group read is shorter than the record it sized)",
	})
}
