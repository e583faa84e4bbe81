package pmu

import "unsafe"

// The model names knobs, tracepoints and frames with string constants, so
// one name is one place in memory: the caches in front of their lookups
// (Knob, KnobIs, fakeIP, tpTable.attached) find a name by where its bytes
// are, without hashing or comparing them. Each cache keeps the strings it
// holds, so their bytes are never reused for another string.

// sameBytes reports whether a and b are the very same bytes (not only
// equal strings).
func sameBytes(a, b string) bool {
	return unsafe.StringData(a) == unsafe.StringData(b) && len(a) == len(b)
}

// bytesSlot is a slot among n (a power of 2) by where s's bytes are.
func bytesSlot(s string, n int) int {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return int((p>>3 ^ p>>9) & uintptr(n-1))
}
