package cpu

import "strconv"

// Stable keys (FootprintKey) of the objects cpu owns and of the sync
// objects other packages embed. A key names an object the same way in every
// replay of a run: by the scenario's names (a thread's name, a CPU's
// number) or by its creation order within the run (an event's perf_event_id),
// never by its address. Two distinct objects of one run never share a key.
//
// A key taken from a creation counter is as stable as the order of the
// creations: where two CPUs' code can create such objects, the code that
// takes the next number annotates a write of the counter (CPU.Access), so
// that a search trusting the keys sees the two CPUs' creations conflict.

// KeyName is a FootprintKeyer for a global object, a name of its own: a
// static lock (event_mutex), a counter (perf_event_id).
type KeyName string

// FootprintKey implements FootprintKeyer.
func (n KeyName) FootprintKey() string { return string(n) }

// syncKey is a SyncClock's name: its owner's key and the field it is (for
// a global, no owner and the global's name).
type syncKey struct {
	owner FootprintKeyer
	field string
}

// SetKey names the sync object s is the clock of: the field (as the kernel
// spells it, "ctx->lock") of owner, or, with a nil owner, a global's name
// ("event_mutex"). Its key is then owner's key, "/", and field. A SyncClock
// with no name has no stable key: FootprintKey refuses it.
func (s *SyncClock) SetKey(owner FootprintKeyer, field string) {
	s.key = syncKey{owner: owner, field: field}
}

// FootprintKey implements FootprintKeyer for a named SyncClock; "" when
// SetKey was never called.
func (s *SyncClock) FootprintKey() string {
	switch {
	case s.key.owner != nil:
		return s.key.owner.FootprintKey() + "/" + s.key.field
	default:
		return s.key.field
	}
}

// FootprintKey implements FootprintKeyer: a thread is named by its name,
// which the scheduler makes unique ("uname0-101", "swapper/1").
func (th *Thread) FootprintKey() string {
	if th.key == "" { // a thread not made by InitAuditedThread (nothing renames one)
		return "thread:" + th.Name
	}
	return th.key
}

// footprintKeyOf is FootprintKey's answer for cpu's own types.
func footprintKeyOf(obj any) (string, bool) {
	switch o := obj.(type) {
	case *SyncClock:
		k := o.FootprintKey()
		return k, k != ""
	case *CPU:
		if o.ID >= 0 && o.ID < len(cpuKeys) {
			return cpuKeys[o.ID], true
		}
		return "cpu" + strconv.Itoa(o.ID), true
	case *ipiKey:
		return "ipi@cpu" + strconv.Itoa(o.cpu), true
	}
	return "", false
}

// cpuKeys are the keys of the first CPUs, made once: the walks ask for a
// key at every access, and every fragment touches its CPU's.
var cpuKeys = func() (keys [256]string) {
	for i := range keys {
		keys[i] = "cpu" + strconv.Itoa(i)
	}
	return keys
}()
