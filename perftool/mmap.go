package perftool

import (
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
// parse_pages_arg(): a bare number is pages, a B/K/M/G suffix is bytes; a
// count that is not a power of two is rounded up (with a warning).
func parsePages(s string) (pages int, warn string, err error) {
	if s == "" {
		return 0, "", nil
	}
	mult := uint64(0)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "B":
		mult = 1
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	num := s
	if mult != 0 {
		num = s[:len(s)-1]
	}
	v, perr := strconv.ParseUint(num, 10, 64)
	if perr != nil || v > 1<<40 {
		return 0, "", errf("-m", "invalid number of mmap pages '%s'", s)
	}
	n := v
	if mult != 0 {
		n = (v*mult + pmu.PageSize - 1) / pmu.PageSize
	}
	if n == 0 {
		return 0, "", errf("-m", "invalid number of mmap pages '%s'", s)
	}
	if n&(n-1) != 0 {
		n = 1 << bits.Len64(n)
		warn = "rounding mmap pages size to " + humanBytes(n*pmu.PageSize) + " (" + strconv.FormatUint(n, 10) + " pages)"
	}
	if n > 1<<30 {
		return 0, "", errf("-m", "invalid number of mmap pages '%s'", s)
	}
	return int(n), warn, nil
}

func humanBytes(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return strconv.FormatUint(b>>30, 10) + "G"
	case b >= 1<<20 && b%(1<<20) == 0:
		return strconv.FormatUint(b>>20, 10) + "M"
	case b >= 1<<10 && b%(1<<10) == 0:
		return strconv.FormatUint(b>>10, 10) + "K"
	}
	return strconv.FormatUint(b, 10) + "B"
}
