package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCPUMask(t *testing.T) {
	tests := []struct {
		name  string
		m     CPUMask
		list  []int
		first int
		has   []int
		not   []int
	}{
		{"empty", CPUMask{}, nil, -1, nil, []int{0, 63, 64, 4095, -1}},
		{"low", MaskOf(0, 5, 63), []int{0, 5, 63}, 0, []int{0, 5, 63}, []int{1, 64}},
		{"cpu64 alone", MaskOf(64), []int{64}, 64, []int{64}, []int{0, 63, 65, 72}},
		{"wide", MaskOf(4095, 3, 100, 64), []int{3, 64, 100, 4095}, 3, []int{3, 64, 100, 4095}, []int{4094, 99, 4096}},
		{"all 65", AllCPUs(65), seq(65), 0, []int{0, 63, 64}, []int{65}},
		{"all 64", AllCPUs(64), seq(64), 0, []int{63}, []int{64}},
		{"all 72", AllCPUs(72), seq(72), 0, []int{71}, []int{72}},
		{"and", MaskOf(1, 70, 200).And(AllCPUs(100)), []int{1, 70}, 1, []int{70}, []int{200}},
		{"bits", MaskBits(0b101), []int{0, 2}, 0, []int{2}, []int{1}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.list, tt.m.List()); diff != "" {
			t.Errorf("%s: List (-want +got):\n%s", tt.name, diff)
		}
		if got := tt.m.First(); got != tt.first {
			t.Errorf("%s: First = %d, want %d", tt.name, got, tt.first)
		}
		for _, c := range tt.has {
			if !tt.m.Has(c) {
				t.Errorf("%s: Has(%d) = false", tt.name, c)
			}
		}
		for _, c := range tt.not {
			if tt.m.Has(c) {
				t.Errorf("%s: Has(%d) = true", tt.name, c)
			}
		}
		if tt.m.Empty() != (len(tt.list) == 0) {
			t.Errorf("%s: Empty = %v", tt.name, tt.m.Empty())
		}
	}
	// Masks of the same CPUs are equal however they were made.
	if MaskOf(64, 70).And(AllCPUs(65)) != MaskOf(64) || MaskOf(200).And(AllCPUs(65)) != (CPUMask{}) {
		t.Errorf("masks of the same CPUs differ: %#v %#v", MaskOf(64, 70).And(AllCPUs(65)), MaskOf(200).And(AllCPUs(65)))
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
