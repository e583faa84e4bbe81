package sched

import (
	"math/bits"
	"strconv"
	"strings"
)

// CPUMask is a set of CPUs of any number (cpumask_t): a value, compared with
// ==, whose zero value is the empty set. CPUs 0 to 63 are one word; higher
// ones are a string of bytes, 8 CPUs a byte, with no zero byte at its end,
// so a mask of up to 64 CPUs costs a word and two masks of the same CPUs are
// equal.
type CPUMask struct {
	lo uint64 // CPUs 0-63
	hi string // CPUs 64 and up: byte i holds CPUs 64+8i to 64+8i+7
}

// MaskOf returns the mask holding the given CPUs (negative ones are left out).
func MaskOf(cpus ...int) CPUMask {
	var m CPUMask
	var hi []byte
	for _, c := range cpus {
		switch {
		case c < 0:
		case c < 64:
			m.lo |= 1 << uint(c)
		default:
			i := (c - 64) / 8
			for len(hi) <= i {
				hi = append(hi, 0)
			}
			hi[i] |= 1 << uint((c-64)%8)
		}
	}
	m.hi = string(hi)
	return m
}

// MaskBits returns the mask of CPUs 0-63 whose bits are set in b.
func MaskBits(b uint64) CPUMask { return CPUMask{lo: b} }

// AllCPUs returns the mask of CPUs 0..n-1.
func AllCPUs(n int) CPUMask {
	switch {
	case n <= 0:
		return CPUMask{}
	case n < 64:
		return CPUMask{lo: 1<<uint(n) - 1}
	}
	m := CPUMask{lo: ^uint64(0)}
	rest := n - 64
	hi := []byte(strings.Repeat("\xff", rest/8))
	if rest%8 != 0 {
		hi = append(hi, byte(1<<uint(rest%8)-1))
	}
	m.hi = string(hi)
	return m
}

// Empty reports whether m holds no CPU.
func (m CPUMask) Empty() bool { return m.lo == 0 && m.hi == "" }

// Has reports whether cpu is in m.
func (m CPUMask) Has(cpu int) bool {
	switch {
	case cpu < 0:
		return false
	case cpu < 64:
		return m.lo&(1<<uint(cpu)) != 0
	}
	i := (cpu - 64) / 8
	return i < len(m.hi) && m.hi[i]&(1<<uint((cpu-64)%8)) != 0
}

// And returns the CPUs in both m and o.
func (m CPUMask) And(o CPUMask) CPUMask {
	r := CPUMask{lo: m.lo & o.lo}
	n := min(len(m.hi), len(o.hi))
	hi := make([]byte, n)
	for i := range n {
		hi[i] = m.hi[i] & o.hi[i]
	}
	for len(hi) > 0 && hi[len(hi)-1] == 0 {
		hi = hi[:len(hi)-1]
	}
	r.hi = string(hi)
	return r
}

// First returns the lowest CPU in m, or -1.
func (m CPUMask) First() int {
	if m.lo != 0 {
		return bits.TrailingZeros64(m.lo)
	}
	for i := 0; i < len(m.hi); i++ {
		if b := m.hi[i]; b != 0 {
			return 64 + 8*i + bits.TrailingZeros8(b)
		}
	}
	return -1
}

// List returns the CPUs in m in order.
func (m CPUMask) List() []int {
	var out []int
	m.each(func(c int) { out = append(out, c) })
	return out
}

// each calls f with each CPU of the mask, in increasing order.
func (m CPUMask) each(f func(cpu int)) {
	for x := m.lo; x != 0; x &= x - 1 {
		f(bits.TrailingZeros64(x))
	}
	for i := 0; i < len(m.hi); i++ {
		for b := m.hi[i]; b != 0; b &= b - 1 {
			f(64 + 8*i + bits.TrailingZeros8(b))
		}
	}
}

func (m CPUMask) String() string {
	var s []string
	for _, c := range m.List() {
		s = append(s, strconv.Itoa(c))
	}
	return strings.Join(s, ",")
}
