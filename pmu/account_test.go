package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAccountEvent: account_event() counts an original event's side-band
// wishes and unaccount_event() drops them; an inherited copy changes
// nothing ("if (event->parent) return;"), so the counts fall to 0 when the
// original is freed even while a child still exists.
func TestAccountEvent(t *testing.T) {
	k := &Kernel{}
	counts := func() [3]int { return [3]int{k.nrSwitchEvents, k.nrMmapEvents, k.nrCgroupEvents} }
	orig := &Event{Attr: Attr{ContextSwitch: true, Mmap: true, Cgroup: true}}
	child := &Event{Attr: orig.Attr, parent: orig}
	other := &Event{Attr: Attr{MmapData: true}}
	steps := []struct {
		name string
		do   func()
		want [3]int
	}{
		{"open original", func() { k.accountEvent(orig) }, [3]int{1, 1, 1}},
		{"inherit at fork", func() { k.accountEvent(child) }, [3]int{1, 1, 1}},
		{"open mmap_data event", func() { k.accountEvent(other) }, [3]int{1, 2, 1}},
		{"free original", func() { k.unaccountEvent(orig) }, [3]int{0, 1, 0}},
		{"free child", func() { k.unaccountEvent(child) }, [3]int{0, 1, 0}},
		{"free mmap_data event", func() { k.unaccountEvent(other) }, [3]int{0, 0, 0}},
	}
	for _, s := range steps {
		s.do()
		if diff := cmp.Diff(s.want, counts()); diff != "" {
			t.Errorf("after %s: {switch, mmap, cgroup} (-want +got):\n%s", s.name, diff)
		}
	}
}
