package perftool

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"perfsim/pmu"
)

// defaultMmapPages models tools/perf/util/evlist.c: perf_event_mlock_kb_in_pages():
// (perf_event_mlock_kb - PAGE_SIZE/1024) / (PAGE_SIZE/1024), i.e. 128 pages
// (512 KiB) with the default 516 KiB limit; a power of two.
func defaultMmapPages(sys pmu.Sysctl) int {
	kb := sys.MlockKB
	if kb <= 0 {
		kb = 512 + pmu.PageSize/1024
	}
	pages := (kb - pmu.PageSize/1024) / (pmu.PageSize / 1024)
	if pages < 1 {
		return 1
	}
	return 1 << (bits.Len(uint(pages)) - 1)
}

// parsePages models tools/perf/util/evlist.c: __evlist__parse_mmap_pages() /
// parse_pages_arg(): a number with a B, K, M or G tag is bytes (rounded up
// to pages), else strtoul() pages; a count that is not a power of two is
// rounded up with a message (0 and counts past 2^63 round to 1 page, as
// roundup_pow_of_two() does on x86), and more than UINT_MAX pages is
// "Invalid argument for --mmap_pages/-m" (after the rounding message).
func parsePages(s string) (pages int, warn string, err error) {
	invalid := errf("-m", "Invalid argument for --mmap_pages/-m")
	var n uint64
	if v, ok := parseTagValue(s); ok {
		n = (v + pmu.PageSize - 1) &^ (pmu.PageSize - 1) / pmu.PageSize // PERF_ALIGN(), in unsigned long
	} else {
		v, rest := strtoull(s) // strtoul() on LP64
		if rest != "" {
			return 0, "", invalid
		}
		n = v
	}
	if n&(n-1) != 0 || n == 0 {
		if n == 0 || n > 1<<63 {
			n = 1 // 1UL << fls_long(n - 1): a shift by 64 is a shift by 0
		} else {
			n = 1 << bits.Len64(n-1)
		}
		warn = "rounding mmap pages size to " + unitNumber(n*pmu.PageSize) + " (" + strconv.FormatUint(n, 10) + " pages)"
	}
	if n > math.MaxUint32 { // max = min(UINT_MAX, SIZE_MAX / page_size)
		return 0, warn, invalid
	}
	if n > 1<<20 {
		// The simulator's ring buffers stop at 2^20 pages (rb.NewBuffer); the
		// kernel would fail the mmap of a bigger one for lack of memory.
		return 0, warn, errf("-m", "%d pages is more than the simulator's ring buffers hold (at most 1048576 pages, 4G)", n)
	}
	return int(n), warn, nil
}

// parseTagValue is tools/perf/util/util.c: parse_tag_value() with the tags
// B, K, M and G: the first tag found anywhere in s must end the number.
func parseTagValue(s string) (uint64, bool) {
	for _, t := range []struct {
		tag  byte
		mult uint64
	}{{'B', 1}, {'K', 1 << 10}, {'M', 1 << 20}, {'G', 1 << 30}} {
		at := strings.IndexByte(s, t.tag)
		if at < 0 {
			continue
		}
		v, rest := strtoull(s)
		if len(s)-len(rest) != at || v > math.MaxUint64/t.mult {
			return 0, false
		}
		return v * t.mult, true
	}
	return 0, false
}

// unitNumber is tools/perf/util/units.c: unit_number__scnprintf(): divide by
// 1024 while the quotient is above 1, up to G.
func unitNumber(n uint64) string {
	units := "BKMG"
	i := 0
	for n/1024 > 1 && i < 3 {
		n /= 1024
		i++
	}
	return strconv.FormatUint(n, 10) + string(units[i])
}
