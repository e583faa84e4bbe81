package runner

import (
	"testing"
)

// TestPTFollowsStackFrames: a task that computes 10us in worker, then 5us
// in main (stack steps), three times, is traced as iterations of worker's
// loop and of main's (the stack step moves the trace: sched.StackHook), in
// the ratio of the compute times, and the walk through the images has no
// error.
func TestPTFollowsStackFrames(t *testing.T) {
	src := `scenario pt-stack
cpus 1
pmu intel_pt rate=1000 region=4K
task app cpu0
  repeat 3
    stack user main;worker
    compute 10us
    stack user main
    compute 5us
    syscall getpid 2us
record -e intel_pt//u -m ,16 -- app
`
	_, r := runSrc(t, src)
	p := r.Perf.(*pmuRun)
	name := map[uint64]string{}
	for _, fr := range p.k.ImageFrames(false) {
		name[fr.Addr] = fr.Name
	}
	bs, bad := p.sessions[0].Data.ItraceBranches()
	iters := map[string]uint64{}
	for _, b := range bs {
		if name[b.IP] == "" {
			t.Errorf("a trace start at %#x, no function of the user image", b.IP)
		}
		iters[name[b.IP]] += b.Iterations
	}
	w, m := float64(iters["worker"]), float64(iters["main"])
	if bad != 0 || m == 0 || w/m < 1.8 || w/m > 2.2 {
		t.Errorf("%d decoding errors; iterations %v: want worker's about twice main's (10us and 5us of compute)", bad, iters)
	}
}
