package pmu

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
)

// TestFakeIPFootprint: a name's address is annotated as a claim of its own
// slot (an add: two contexts naming one frame commute) and reads of the
// slots its probe passed (another name's: in the other order the two would
// swap), per slot; a full image makes a name read every slot.
func TestFakeIPFootprint(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	c := m.CPUs[0]
	var got []string
	m.OnFootprint(func(_ *cpu.CPU, f cpu.Footprint) {
		key, ok := cpu.FootprintKey(f.Obj)
		if !ok {
			t.Fatalf("no stable key: %#v", f.Obj)
		}
		got = append(got, fmt.Sprintf("%s %s %v", key, f.Field, f.Op == cpu.AtomicAdd))
	})
	k := &Kernel{}
	annotate := func(name string, kernel bool) uint64 {
		got = got[:0]
		p := k.fakeIPSlow(name, kernel) // as fakeIP's lookups: placed once, then found
		k.annotateIP(c, name, p, kernel)
		return p.ip
	}
	slot := func(ip uint64) string { return "fakeIP@" + fmt.Sprintf("%x", ip) }

	// Two names with one hash slot in the user image (256 slots): the
	// second probes the first's.
	_, n, _ := k.images.geometry(false)
	a, b := "main", ""
	for i := 0; b == ""; i++ {
		if x := fmt.Sprintf("f%d", i); imageHash(x)%n == imageHash(a)%n {
			b = x
		}
	}
	ipA := annotate(a, false)
	if d := cmp.Diff([]string{slot(ipA) + " occupant true"}, got); d != "" {
		t.Errorf("%s, placed in its hash slot (-want +got):\n%s", a, d)
	}
	annotate(a, false)
	if d := cmp.Diff([]string{slot(ipA) + " occupant true"}, got); d != "" {
		t.Errorf("%s, found again (-want +got):\n%s", a, d)
	}
	ipB := annotate(b, false)
	if ipB != ipA+ImageSlotSize && !(ipA == UserText+UserTextSize-ImageSlotSize && ipB == UserText) {
		t.Fatalf("%s at %#x, %s at %#x: want the next slot", a, ipA, b, ipB)
	}
	if d := cmp.Diff([]string{slot(ipA) + " occupant false", slot(ipB) + " occupant true"}, got); d != "" {
		t.Errorf("%s, probed past %s (-want +got):\n%s", b, a, d)
	}

	// A full image: every slot taken, a new name shares its hash slot and
	// reads them all.
	for i := 0; len(k.images.user) < int(n); i++ {
		k.fakeIPSlow(fmt.Sprintf("fill%d", i), false)
	}
	ipF := annotate("one-too-many", false)
	if want := UserText + imageHash("one-too-many")%n*ImageSlotSize; ipF != want {
		t.Errorf("full image: at %#x, want its hash slot %#x", ipF, want)
	}
	if len(got) != int(n) {
		t.Errorf("full image: %d accesses, want a read of each of %d slots", len(got), n)
	}
	for _, g := range got {
		if g[len(g)-5:] != "false" {
			t.Errorf("full image: %s: want reads only", g)
		}
	}
}
