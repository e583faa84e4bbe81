package perftool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAuxSampleMmapSize: with AUX sampling and no -m ,N perf maps an AUX area
// of the largest sample size rounded up to a power-of-two number of pages
// (intel_pt_recording_options(), "Set default sizes for sample mode"), read
// only; -m ,N wins but must hold the largest sample.
func TestAuxSampleMmapSize(t *testing.T) {
	type view struct {
		AuxPages  int
		AuxSz     []uint32 // attr.aux_sample_size per evsel
		PSBPeriod uint64   // intel_pt config bits 24-27
		Err       string
	}
	tests := []struct {
		args string
		want view
	}{
		{"--aux-sample -e {intel_pt//u,cycles:u} -- true", view{AuxPages: 1, AuxSz: []uint32{0, 4096, 0}}},
		{"--aux-sample=8192 -e {intel_pt//u,branch-misses:u} -- true", view{AuxPages: 2, AuxSz: []uint32{0, 8192, 0}}},
		{"--aux-sample=5000 -e {intel_pt//u,cycles:u} -- true", view{AuxPages: 2, AuxSz: []uint32{0, 5000, 0}}},
		{"--aux-sample=9000 -e {intel_pt//u,cycles:u} -- true", view{AuxPages: 4, AuxSz: []uint32{0, 9000, 0}}},
		// the aux-sample-size term alone is sample mode too
		{"-e {intel_pt//u,cycles/aux-sample-size=12288/u} -- true", view{AuxPages: 4, AuxSz: []uint32{0, 12288, 0}}},
		// a term overrides --aux-sample for its event; the largest one sizes the area
		{"--aux-sample=4096 -e {intel_pt//u,cycles/aux-sample-size=16384/u,instructions:u} -- true",
			view{AuxPages: 4, AuxSz: []uint32{0, 16384, 4096, 0}}},
		{"--aux-sample=8192 -m ,16 -e {intel_pt//u,cycles:u} -- true", view{AuxPages: 16, AuxSz: []uint32{0, 8192, 0}}},
		{"--aux-sample=8192 -e {intel_pt/psb_period=2/u,cycles:u} -- true", view{AuxPages: 2, AuxSz: []uint32{0, 8192, 0}, PSBPeriod: 2}},
		{"--aux-sample=8192 -m ,1 -e {intel_pt//u,cycles:u} -- true",
			view{Err: "perf record: --aux-sample: Sample size 8192 must not be greater than AUX area tracing mmap size 4096"}},
	}
	for _, tt := range tests {
		r, err := Parse(strings.Fields(tt.args), DefaultOptions())
		var got view
		if err != nil {
			got.Err = err.Error()
		} else {
			got.AuxPages = r.AuxPages
			got.PSBPeriod = r.Evsels[0].Attr.Config >> 24 & 0xf
			for _, e := range r.Evsels {
				got.AuxSz = append(got.AuxSz, e.Attr.AuxSampleSize)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, d)
		}
	}
}

// TestAuxSampleMmapReadOnly: the AUX area of a sample-mode record is mapped
// PROT_READ (aux_overwrite: the kernel's snapshot mode, which
// pt_buffer_setup_aux() requires for aux_sample_size) and never read as full trace.
func TestAuxSampleMmapReadOnly(t *testing.T) {
	r, err := Parse(strings.Fields("--aux-sample -e {intel_pt//u,cycles:u} -- true"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]any{true, uint64(4096)}, []any{r.auxSampleMode(), uint64(r.AuxPages) * 4096}); d != "" {
		t.Errorf("sample mode, AUX bytes (-want +got):\n%s", d)
	}
}
