package explore

import (
	"slices"
	"testing"

	"perfsim/sim"
)

// sparseRun asks s q questions of n options each and returns the answers.
func sparseRun(s sim.Chooser, q, n int) []int {
	d := make([]int, q)
	for i := range d {
		d[i] = s.Choose(n, "x")
	}
	return d
}

func TestSparseDeterministic(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1 << 63} {
		a := sparseRun(NewSparse(seed, 50, 4), 80, 3)
		b := sparseRun(NewSparse(seed, 50, 4), 80, 3)
		if !slices.Equal(a, b) {
			t.Errorf("seed %d: %v then %v", seed, a, b)
		}
	}
}

func TestSparsePlans(t *testing.T) {
	for _, tc := range []struct {
		name         string
		horizon, max int
		n            int // options of every question
		wantMax      int // the most disturbances a schedule may have
	}{
		{"one decision", 1, 4, 2, 4}, // index 0, then clustered ones past it
		{"short", 17, 3, 2, 3},
		{"long", 2000, 8, 5, 8},
		{"max 1", 100, 1, 3, 1},
		{"defaults", 0, 0, 2, 4}, // horizon 1, max 4: index 0 and clustered ones
		{"default max", 500, 0, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const seeds = 4000
			horizon := max(tc.horizon, 1)
			perK := map[int]int{}
			hit := make([]bool, horizon)
			for seed := uint64(1); seed <= seeds; seed++ {
				// Questions past the horizon are asked too: all undisturbed.
				// A clustered disturbance may land up to ClusterSpan past the
				// one before it, so past the horizon too.
				d := sparseRun(NewSparse(seed, tc.horizon, tc.max), horizon+tc.wantMax*ClusterSpan+10, tc.n)
				k, last := 0, -1
				for i, x := range d {
					if x == 0 {
						continue
					}
					k++
					if (i >= horizon && (last < 0 || i-last > ClusterSpan)) || x >= tc.n {
						t.Fatalf("seed %d: option %d at %d (horizon %d, n %d): %v", seed, x, i, horizon, tc.n, d)
					}
					if i < horizon {
						hit[i] = true
					}
					last = i
				}
				if k < 1 || k > tc.wantMax {
					t.Fatalf("seed %d: %d disturbances, want 1..%d: %v", seed, k, tc.wantMax, d)
				}
				perK[k]++
			}
			// Small numbers of disturbances are likelier.
			for k := 2; k <= tc.wantMax; k++ {
				if perK[k] > perK[k-1] {
					t.Errorf("%d schedules with %d disturbances, %d with %d", perK[k], k, perK[k-1], k-1)
				}
			}
			// Uniform over the horizon: the first and the last index are reached.
			if horizon <= seeds/10 && (!hit[0] || !hit[horizon-1]) {
				t.Errorf("index 0 reached %v, index %d reached %v", hit[0], horizon-1, hit[horizon-1])
			}
		})
	}
}

// TestSparseOptions: the non-zero option is drawn over [1, n), whatever n the
// question has.
func TestSparseOptions(t *testing.T) {
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 500; seed++ {
		for _, x := range sparseRun(NewSparse(seed, 1, 1), 1, 4) {
			seen[x] = true
		}
	}
	if !seen[1] || !seen[2] || !seen[3] || seen[0] || len(seen) != 3 {
		t.Errorf("options seen: %v, want 1, 2 and 3", seen)
	}
}

// TestSparseClusters: half of the disturbances after the first land within
// ClusterSpan of the one drawn before, so over a long horizon far more plans
// hold such a close pair than uniform placement alone would give (about 1 in
// 4 here).
func TestSparseClusters(t *testing.T) {
	const horizon, seeds = 2000, 4000
	multi, close := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		d := sparseRun(NewSparse(seed, horizon, 4), horizon+4*ClusterSpan, 2)
		var at []int
		for i, x := range d {
			if x != 0 {
				at = append(at, i)
			}
		}
		if len(at) < 2 {
			continue
		}
		multi++
		for i := 1; i < len(at); i++ {
			if at[i]-at[i-1] <= ClusterSpan {
				close++
				break
			}
		}
	}
	if multi == 0 || float64(close) < 0.5*float64(multi) {
		t.Errorf("%d of %d plans with several disturbances have two within %d decisions, want at least half", close, multi, ClusterSpan)
	}
}
