package scenarios

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"5us", 5 * time.Microsecond, ""},
		{"250ns", 250, ""},
		{"2ms", 2 * time.Millisecond, ""},
		{"1s", time.Second, ""},
		{"1_000us", time.Millisecond, ""},
		{"5", 0, `expected a duration like 5us or 2ms, found "5"`},
		{"5x", 0, `expected a duration like 5us or 2ms, found "5x"`},
		{"4K", 0, `expected a duration like 5us or 2ms, found "4K"`},
		{"1.5ms", 0, `expected a duration like 5us or 2ms, found "1.5ms"`},
		{"us", 0, `expected a duration like 5us or 2ms, found "us"`},
		{"10000000000s", 0, `duration "10000000000s" is too long`},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
			t.Errorf("ParseDuration(%q) error (-want +got):\n%s", tt.in, diff)
		}
		if got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"4096", 4096, ""},
		{"4K", 4096, ""},
		{"1M", 1 << 20, ""},
		{"2G", 2 << 30, ""},
		{"0x1000", 4096, ""},
		{"1k", 0, `expected a size like 4096, 4K or 1M, found "1k"`},
		{"5us", 0, `expected a size like 4096, 4K or 1M, found "5us"`},
		{"_1", 0, `expected a size like 4096, 4K or 1M, found "_1"`},
		{"1__0", 0, `expected a size like 4096, 4K or 1M, found "1__0"`},
		{"99999999999999G", 0, `size "99999999999999G" is too large`},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
			t.Errorf("ParseSize(%q) error (-want +got):\n%s", tt.in, diff)
		}
		if got != tt.want {
			t.Errorf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"0-3,5", []int{0, 1, 2, 3, 5}, true},
		{"5,1,1", []int{1, 5}, true},
		{"2", []int{2}, true},
		{"3-1", nil, false},
		{"cpu1", nil, false},
		{"1,", nil, false},
		{"0-4096", nil, false},
	}
	for _, tt := range tests {
		got, ok := parseCPUList(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.ok {
			t.Errorf("parseCPUList(%q) ok=%v want %v (-want +got):\n%s", tt.in, ok, tt.ok, diff)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
