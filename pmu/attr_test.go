package pmu

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/uapi"
)

// unhex joins hand-written little-endian rows ("offset: bytes") into bytes.
func unhex(t *testing.T, rows ...string) []byte {
	t.Helper()
	var s strings.Builder
	for _, r := range rows {
		if i := strings.Index(r, ":"); i >= 0 {
			r = r[i+1:]
		}
		s.WriteString(strings.ReplaceAll(r, " ", ""))
	}
	b, err := hex.DecodeString(s.String())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAttrMarshalHandComputed(t *testing.T) {
	tests := []struct {
		name string
		attr Attr
		want []byte
	}{{
		// What Debian perf 6.1 passed for `perf record -e cpu-clock -- true`
		// (perftool/testdata/default-cpu-clock.golden), with today's size.
		name: "perf record default cpu-clock",
		attr: Attr{
			Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, SamplePeriod: 4000,
			SampleType: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_PERIOD,
			ReadFormat: uapi.PERF_FORMAT_ID | uapi.PERF_FORMAT_LOST,
			Disabled:   true, Inherit: true, Mmap: true, Comm: true, Freq: true, EnableOnExec: true,
			Task: true, SampleIDAll: true, ExcludeGuest: true, Mmap2: true, CommExec: true,
			Ksymbol: true, BPFEvent: true,
		},
		want: unhex(t,
			"  0: 01000000 88000000",  // type 1, size 136
			"  8: 0000000000000000",   // config
			" 16: a00f000000000000",   // sample_freq 4000
			" 24: 0701000000000000",   // IP|TID|TIME|PERIOD
			" 32: 1400000000000000",   // ID|LOST
			" 40: 0337946100000000",   // bits 0,1,8,9,10,12,13,18,20,23,24,29,30
			" 48: 00000000 00000000",  // wakeup_events, bp_type
			" 56: 0000000000000000",   // config1
			" 64: 0000000000000000",   // config2
			" 72: 0000000000000000",   // branch_sample_type
			" 80: 0000000000000000",   // sample_regs_user
			" 88: 00000000 00000000",  // sample_stack_user, clockid
			" 96: 0000000000000000",   // sample_regs_intr
			"104: 00000000 0000 0000", // aux_watermark, sample_max_stack, __reserved_2
			"112: 00000000 00000000",  // aux_sample_size, aux_action
			"120: 0000000000000000",   // sig_data
			"128: 0000000000000000"),  // config3
	}, {
		name: "every field distinct",
		attr: Attr{
			Type: 8, Size: uapi.PERF_ATTR_SIZE_VER8, Config: 0x0102030405060708, SamplePeriod: 0x1000,
			SampleType: uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_AUX, ReadFormat: uapi.PERF_FORMAT_GROUP,
			PreciseIP: 2, Sigtrap: true, RemoveOnExec: true, DeferCallchain: true, DeferOutput: true,
			WakeupEvents: 3, BPType: 4, Config1: 5, Config2: 6, BranchSampleType: 7,
			SampleRegsUser: 8, SampleStackUser: 9, Clockid: -1, SampleRegsIntr: 10,
			AuxWatermark: 11, SampleMaxStack: 12, AuxSampleSize: 13,
			AuxStartPaused: true, AuxResume: true, SigData: 14, Config3: 0x1122334455667788,
		},
		want: unhex(t,
			"  0: 08000000 88000000",
			"  8: 0807060504030201",
			" 16: 0010000000000000",
			" 24: 2000100000000000", // CALLCHAIN (1<<5) | AUX (1<<20)
			" 32: 0800000000000000",
			" 40: 000001 00 f0 000000", // precise_ip=2 (bit 16); bits 36,37,38,39
			" 48: 03000000 04000000",
			" 56: 0500000000000000",
			" 64: 0600000000000000",
			" 72: 0700000000000000",
			" 80: 0800000000000000",
			" 88: 09000000 ffffffff",
			" 96: 0a00000000000000",
			"104: 0b000000 0c00 0000",
			"112: 0d000000 05000000", // aux_start_paused | aux_resume
			"120: 0e00000000000000",
			"128: 8877665544332211"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.attr.Marshal()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Marshal() bytes (-want +got):\n%s", diff)
			}
			back, err := UnmarshalAttr(tt.want)
			if err != nil {
				t.Fatalf("UnmarshalAttr: %v", err)
			}
			if diff := cmp.Diff(tt.attr, back); diff != "" {
				t.Errorf("UnmarshalAttr (-want +got):\n%s", diff)
			}
		})
	}
}

func withSize(size uint32, n int, tail byte) []byte {
	a := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: size, Config: uapi.PERF_COUNT_SW_DUMMY, Config3: 0x33}
	b := make([]byte, n)
	copy(b, a.Marshal())
	for i := uapi.AttrSize; i < n; i++ {
		b[i] = tail
	}
	return b
}

func TestUnmarshalAttrSizeRules(t *testing.T) {
	// kernel/events/core.c: perf_copy_attr(); lib/usercopy.c: copy_struct_from_user().
	tests := []struct {
		name    string
		in      []byte
		want    Attr
		wantErr error
	}{
		{"too short to read size: get_user fails", make([]byte, 7), Attr{}, uapi.EFAULT},
		{"size 0 means VER0 (ABI compatibility quirk)", withSize(0, 64, 0),
			Attr{Type: 1, Size: uapi.PERF_ATTR_SIZE_VER0, Config: 9}, nil},
		{"size < VER0", withSize(63, 136, 0), Attr{}, uapi.E2BIG},
		{"size > PAGE_SIZE", withSize(PageSize+1, PageSize+1, 0), Attr{}, uapi.E2BIG},
		{"size VER1: config3 beyond size is not read", withSize(uapi.PERF_ATTR_SIZE_VER1, 136, 0),
			Attr{Type: 1, Size: uapi.PERF_ATTR_SIZE_VER1, Config: 9}, nil},
		{"size VER8", withSize(uapi.PERF_ATTR_SIZE_VER8, 136, 0),
			Attr{Type: 1, Size: 136, Config: 9, Config3: 0x33}, nil},
		{"size beyond buffer: copy fails", withSize(uapi.PERF_ATTR_SIZE_VER8, 100, 0), Attr{}, uapi.EFAULT},
		{"bigger than known, zero tail", withSize(144, 144, 0),
			Attr{Type: 1, Size: 144, Config: 9, Config3: 0x33}, nil},
		{"bigger than known, non-zero tail: check_zeroed_user", withSize(144, 144, 1), Attr{}, uapi.E2BIG},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UnmarshalAttr(tt.in)
			if err != tt.wantErr {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttrRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), uapi.AttrSize, uapi.AttrSize).Draw(t, "bytes")
		b[4], b[5], b[6], b[7] = uapi.AttrSize, 0, 0, 0
		a, err := UnmarshalAttr(b)
		if err != nil {
			t.Fatalf("UnmarshalAttr: %v", err)
		}
		if diff := cmp.Diff(b, a.Marshal()); diff != "" {
			t.Fatalf("bytes -> Attr -> bytes changed (-in +out):\n%s", diff)
		}
	})
}
