package perftool

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"perfsim/pmu"
)

// BuildIDCacheEntry is one file perf record adds to its build-id cache
// (~/.debug): the dso's copy at NAME/SBUILD_ID/BASENAME and the link
// .build-id/XX/REST -> ../../NAME/SBUILD_ID.
type BuildIDCacheEntry struct {
	Dir  string // NAME/SBUILD_ID, relative to the cache
	File string // Dir/elf, or Dir/kallsyms for the kernel
	// Probes is Dir/probes, the dso's SDT note cache (an ELF's; empty: the
	// images have no SDT notes), "" for the kernel.
	// tools/perf/util/build-id.c: build_id_cache__add_sdt_cache()
	Probes string
	Link   string // .build-id/XX/REST (the id's first two hex digits, the rest)
	To     string // the link's target: ../../NAME/SBUILD_ID
	// Kernel: the file is a copy of /proc/kallsyms (the simulated
	// kernel's symbols), else of the user image.
	Kernel  bool
	Name    string // the dso's name, as HEADER_BUILD_ID has it
	BuildID []byte // its build id, as HEADER_BUILD_ID has it
}

// BuildIDCache lists what perf record's cache holds after this recording:
// an entry for each dso of HEADER_BUILD_ID (the dsos hit, every one with
// --buildid-all), none with -N/--no-buildid-cache or when perf writes no
// HEADER_BUILD_ID (-B, --buildid-mmap: rec->no_buildid). The kernel's
// entry is under "[kernel.kallsyms]" with a copy of /proc/kallsyms; a
// user dso's under its path with a copy (a hard link) of the file.
// tools/perf/util/header.c: write_build_id() -> build-id.c: perf_session__cache_build_ids(), build_id_cache__add_s(), build_id_cache__cachedir(), build_id_cache__linkname()
func (d *PerfData) BuildIDCache() []BuildIDCacheEntry {
	if d.NoBuildIDCache {
		return nil
	}
	var out []BuildIDCacheEntry
	for _, e := range d.buildIDTable() {
		sbuild := hex.EncodeToString(e.BuildID)
		name := strings.TrimPrefix(e.Name, "/")
		base := "elf"
		if e.Kernel {
			base = "kallsyms"
		}
		dir := name + "/" + sbuild
		probes := ""
		if !e.Kernel {
			probes = dir + "/probes"
		}
		out = append(out, BuildIDCacheEntry{Dir: dir, File: dir + "/" + base, Probes: probes, Link: ".build-id/" + sbuild[:2] + "/" + sbuild[2:],
			To: "../../" + dir, Kernel: e.Kernel, Name: e.Name, BuildID: e.BuildID})
	}
	return out
}

// Kallsyms is the simulated kernel's /proc/kallsyms: _text at the start of
// its text, then each function of the kernel image (pmu.KernelText), in
// address order, as "ADDR t NAME" lines.
// kernel/kallsyms.c: s_show()
func (ss *Session) Kallsyms() []byte {
	fs := append([]pmu.Frame(nil), ss.K.ImageFrames(true)...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Addr < fs[j].Addr })
	var b strings.Builder
	fmt.Fprintf(&b, "%016x T _text\n", uint64(pmu.KernelText))
	for _, f := range fs {
		if f.Addr < pmu.KernelText || f.Addr+pmu.ImageSlotSize > pmu.KernelText+pmu.KernelTextSize {
			continue
		}
		fmt.Fprintf(&b, "%016x t %s\n", f.Addr, f.Name)
	}
	return []byte(b.String())
}

// WriteBuildIDCache writes the session's build-id cache (BuildIDCache) into
// dir, a directory perf reads with perf --buildid-dir DIR: the same images
// WriteImages writes for --symfs, found by the build ids of the perf.data's
// HEADER_BUILD_ID. It returns the files written.
func (ss *Session) WriteBuildIDCache(dir string) ([]string, error) {
	var out []string
	arch, frames := ss.ImageArch(), ss.K.ImageFrames(false)
	for _, e := range ss.Data.BuildIDCache() {
		var b []byte
		if e.Kernel {
			b = ss.Kallsyms()
		} else {
			b = arch.ELF(false, frames, e.BuildID)
		}
		full := filepath.Join(dir, filepath.FromSlash(e.File))
		link := filepath.Join(dir, filepath.FromSlash(e.Link))
		for _, p := range []string{full, link} {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return out, err
			}
		}
		if err := os.WriteFile(full, b, 0o755); err != nil {
			return out, fmt.Errorf("build-id cache %s: %w", e.File, err)
		}
		out = append(out, full)
		if e.Probes != "" {
			p := filepath.Join(dir, filepath.FromSlash(e.Probes))
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return out, fmt.Errorf("build-id cache %s: %w", e.Probes, err)
			}
			out = append(out, p)
		}
		if err := os.Remove(link); err != nil && !os.IsNotExist(err) {
			return out, err
		}
		if err := os.Symlink(filepath.FromSlash(e.To), link); err != nil {
			return out, fmt.Errorf("build-id cache %s: %w", e.Link, err)
		}
	}
	return out, nil
}
