package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPopulateFaults: MAP_POPULATE's faults are GUP's: the task's min_flt
// counts one a page of anon memory (as getrusage() does on this machine,
// mm/testdata/populate), and perf's page-faults event hears none of them
// (mm_account_fault() with NULL regs); a touch of the populated pages
// faults no more.
func TestPopulateFaults(t *testing.T) {
	run := func(flags string) (minor int64, samples int64) {
		src := fmt.Sprintf(`scenario populate
cpus 2
task w cpu1
  syscall mmap 0 409600 PROT_READ|PROT_WRITE %s -1 0 as p
  touch p 100 write
record -e page-faults -c 1 -- w
sometimes samples >= 0
`, flags)
		r, _ := runQuiet(t, "populate.sim", src)
		s, _ := r.Observe("samples")
		return int64(r.Tasks["w"].MinFlt), s
	}
	plainMinor, plainSamples := run("MAP_PRIVATE|MAP_ANONYMOUS")
	popMinor, popSamples := run("MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE")
	type counts struct{ Minor, Samples int64 }
	// the plain run faults the 100 pages on its touches, each a sample;
	// the populated one faults them in mmap(): counted, no sample, and the
	// touches fault no more
	want := counts{plainMinor, plainSamples - 100}
	if d := cmp.Diff(want, counts{popMinor, popSamples}); d != "" {
		t.Errorf("min_flt and page-faults samples with MAP_POPULATE (-want +got):\n%s", d)
	}
	// MAP_NONBLOCK: do_mmap() populates nothing, the touches fault as the
	// plain run's
	nbMinor, nbSamples := run("MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE|MAP_NONBLOCK")
	if d := cmp.Diff(counts{plainMinor, plainSamples}, counts{nbMinor, nbSamples}); d != "" {
		t.Errorf("min_flt and page-faults samples with MAP_POPULATE|MAP_NONBLOCK (-want +got):\n%s", d)
	}
	if plainSamples < 100 {
		t.Errorf("the plain run has %d page-faults samples, want at least the 100 touches'", plainSamples)
	}
}
