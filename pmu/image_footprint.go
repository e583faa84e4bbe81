package pmu

import (
	"strconv"

	"perfsim/cpu"
)

// The footprint of a named frame's address (fakeIP). A name's address is
// its hash slot, or the first free slot after it, or, in a full image, its
// hash slot shared: it depends on the name and on the occupants of the
// slots its probe passed, nothing else. So fakeIP annotates, per slot (an
// ipSlot key, "fakeIP@ADDR"; the table is the model's, not kernel state, so
// only the footprint listeners hear it: the data-race oracle has nothing to
// report there):
//   - the slot the name holds: a claim, annotated as an add (cpu.AtomicAdd):
//     every context that names the frame makes the same claim, whichever
//     comes first, and looks at nobody else's, so two claims commute like
//     two adds whose sum nobody reads;
//   - each slot its probe passed, taken by another name: a read, which
//     conflicts with that name's claim (in the other order the two names
//     would have each other's slots);
//   - in a full image, every slot: whether it is full depends on them all.
//
// The whole table was one key before, written at every first use: two CPUs
// that each named a frame first shared an object (the component walk's most
// met refusal on the replicated AUX scenario), though a name's address is
// the same in either order unless two names collide.

// ipSlot is a slot of the images (its address): a footprint key.
type ipSlot uint64

// FootprintKey implements cpu.FootprintKeyer.
func (s ipSlot) FootprintKey() string { return "fakeIP@" + strconv.FormatUint(uint64(s), 16) }

// ipPlaced is where a name was placed: its address, its slot's key (boxed
// once: fakeIP annotates it at every call), and how it got there.
type ipPlaced struct {
	ip     uint64
	key    any  // ipSlot(ip); nil in a full image (the slot is another name's)
	probed bool // the name's hash slot was taken: it went on to a later one
}

// placed describes the placement of name at ip.
func (im *images) placed(name string, ip uint64, kernel bool) ipPlaced {
	base, n, used := im.geometry(kernel)
	if (*used)[ip] != name {
		return ipPlaced{ip: ip} // a full image: name shares its hash slot
	}
	return ipPlaced{ip: ip, key: ipSlot(ip), probed: ip != base+imageHash(name)%n*ImageSlotSize}
}

// annotateIP annotates what name's address p depends on, on c (the
// running CPU).
func (k *Kernel) annotateIP(c *cpu.CPU, name string, p ipPlaced, kernel bool) {
	if p.key == nil || p.probed {
		base, n, _ := k.images.geometry(kernel)
		h := imageHash(name)
		for i := uint64(0); i < n; i++ {
			ip := base + (h+i)%n*ImageSlotSize
			if p.key != nil && ip == p.ip {
				break
			}
			c.AccessMarkedOnly(ipSlot(ip), "occupant", cpu.DataRaceRead, "fakeIP") // probed: another name's
		}
	}
	if p.key != nil {
		c.AccessMarkedOnly(p.key, "occupant", cpu.AtomicAdd, "fakeIP") // the name's own: a claim every context makes alike
	}
}
