package pmu

import "perfsim/cpu"

// sys_perf_event_open()'s move_group as the model runs it
// (epc_life.go: moveGroupPMUContext): a hardware event joining a group of
// software events (their pmu_ctx the software PMU's) moves the group to
// the new event's pmu_ctx. The model moves the pmu_ctx references only:
// each member's put_pmu_ctx() of its old one (the last put, under
// ctx->lock, unlinks it from ctx->pmu_ctx_list and queues its free), then
// event->pmu_ctx set and get_pmu_ctx() of the new one, all under
// ctx->mutex (which every other writer and reader of event->pmu_ctx
// holds: list_add_event(), list_del_event(), _free_event() after the
// release's ctx->mutex), with no step point but ctx->lock's spin
// (raw_spin_lock:ctx->lock, whose fragment is not declared). Upstream
// also takes each member out of the context and installs it again
// (perf_remove_from_context(), perf_install_in_context()), which the model
// does not do; the old-put path of pmu-ctx-serialize (its own step point)
// is marked.

// accessMoveGroup annotates moveGroupPMUContext(leader, epc) on c (the
// open's CPU: nil when the open is not annotated), before it runs.
// kernel/events/core.c: sys_perf_event_open(): if (move_group) { ... put_pmu_ctx(sibling->pmu_ctx); ... sibling->pmu_ctx = pmu_ctx; get_pmu_ctx(pmu_ctx); ... }
func (k *Kernel) accessMoveGroup(c *cpu.CPU, leader *Event, epc *PMUContext) {
	if c == nil {
		return
	}
	if k.pmuCtxSerializeOld() {
		c.Unaudited("move_group") // put_pmu_ctx() before 4f64a6c9f6f1: its step point
		return
	}
	members := append([]*Event{leader}, leader.siblings...)
	left := map[*PMUContext]int32{} // each old epc's refcount as the puts drop it
	for _, m := range members {
		old := m.pmuCtx
		if old == nil {
			continue
		}
		if _, ok := left[old]; !ok {
			left[old] = old.refcount
		}
		if old.owner == nil {
			c.Unaudited("put_pmu_ctx") // an epc with no context to key it by
			continue
		}
		key := epcKey{k, old.owner, old.pmu}
		c.AccessMarkedOnly(key, "epc->refcount", cpu.MarkedWrite, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): atomic_dec_and_raw_lock_irqsave(&epc->refcount, &ctx->lock)
		left[old]--
		if left[old] == 0 && old.ctx != nil {
			// the last reference: ctx->lock (ctxLock annotates itself), the
			// epc unlinked from the context's list, its free queued
			c.AccessMarkedOnly(old.ctx, "ctx->event_list", cpu.MarkedWrite, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): list_del_init(&epc->pmu_ctx_entry); epc->ctx = NULL
			if !old.embedded {
				c.AccessMarkedOnly(key, "epc (freed)", cpu.MarkedWrite, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): call_rcu(&epc->rcu_head, free_epc_rcu)
			}
		}
	}
	for _, m := range members {
		c.AccessMarkedOnly(m, "event->pmu_ctx", cpu.PlainWrite, "perf_event_open") // kernel/events/core.c: sys_perf_event_open(): sibling->pmu_ctx = pmu_ctx; group_leader->pmu_ctx = pmu_ctx (ctx->mutex held)
		if epc != nil && epc.owner != nil {
			c.AccessMarkedOnly(epcKey{k, epc.owner, epc.pmu}, "epc->refcount", cpu.MarkedWrite, "get_pmu_ctx") // kernel/events/core.c: get_pmu_ctx(): WARN_ON_ONCE(!atomic_inc_not_zero(&epc->refcount))
		} else {
			c.Unaudited("get_pmu_ctx") // an epc with no context to key it by
		}
	}
}
