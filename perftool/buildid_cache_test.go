package perftool

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildIDCache: what perf record adds to its build-id cache for the spin
// workload: for each dso of HEADER_BUILD_ID the copy under its name and build
// id (the kernel's a kallsyms, a user file's an elf and an empty probes) and
// the .build-id link to it; nothing with -N, nor without the table (-B).
// The files WriteBuildIDCache writes are these, the elf the image with the
// dso's build id, the kallsyms the kernel image's functions.
func TestBuildIDCache(t *testing.T) {
	kid, sid, lid := hex.EncodeToString(KernelBuildID), "", ""
	for _, c := range []struct {
		args []string
		want func() []string
	}{
		{[]string{"-e", "cpu-clock", "-c", "10000"}, func() []string {
			return []string{
				".build-id/" + kid[:2] + "/" + kid[2:] + " -> ../../[kernel.kallsyms]/" + kid,
				"[kernel.kallsyms]/" + kid + "/kallsyms",
				".build-id/" + sid[:2] + "/" + sid[2:] + " -> ../../usr/local/bin/spin/" + sid,
				"usr/local/bin/spin/" + sid + "/elf",
				"usr/local/bin/spin/" + sid + "/probes",
			}
		}},
		{[]string{"--buildid-all", "-e", "syscalls:sys_enter_getpid"}, func() []string {
			return []string{
				".build-id/" + kid[:2] + "/" + kid[2:] + " -> ../../[kernel.kallsyms]/" + kid,
				"[kernel.kallsyms]/" + kid + "/kallsyms",
				".build-id/" + sid[:2] + "/" + sid[2:] + " -> ../../usr/local/bin/spin/" + sid,
				"usr/local/bin/spin/" + sid + "/elf",
				"usr/local/bin/spin/" + sid + "/probes",
				".build-id/" + lid[:2] + "/" + lid[2:] + " -> ../../usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2/" + lid,
				"usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2/" + lid + "/elf",
				"usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2/" + lid + "/probes",
			}
		}},
		{[]string{"-N", "-e", "cpu-clock", "-c", "10000"}, func() []string { return nil }},
		{[]string{"--no-buildid-cache", "-e", "cpu-clock", "-c", "10000"}, func() []string { return nil }},
		{[]string{"-B", "-e", "cpu-clock", "-c", "10000"}, func() []string { return nil }},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ss := perf61Session(t, c.args)
			sid = hex.EncodeToString(ss.fileBuildID("/usr/local/bin/spin"))
			lid = hex.EncodeToString(ss.fileBuildID("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"))
			dir := t.TempDir()
			files, err := ss.WriteBuildIDCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ss.Data.BuildIDCache() {
				to, err := os.Readlink(filepath.Join(dir, e.Link))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e.Link+" -> "+to, e.File)
				if e.Probes != "" {
					got = append(got, e.Probes)
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Link, filepath.Base(e.File))) // through the link, as perf opens it
				if err != nil {
					t.Fatal(err)
				}
				want := ss.Kallsyms()
				if !e.Kernel {
					id, _ := hex.DecodeString(e.Dir[strings.LastIndexByte(e.Dir, '/')+1:])
					want = ss.ImageArch().ELF(false, ss.K.ImageFrames(false), id)
				}
				if !bytes.Equal(b, want) {
					t.Errorf("%s: not the %s", e.File, map[bool]string{true: "kernel's kallsyms", false: "image"}[e.Kernel])
				}
			}
			if d := cmp.Diff(c.want(), got); d != "" {
				t.Errorf("cache (-want +got):\n%s", d)
			}
			var rel []string
			for _, f := range files {
				r, _ := filepath.Rel(dir, f)
				rel = append(rel, filepath.ToSlash(r))
			}
			var wantFiles []string
			for _, g := range got {
				if !strings.Contains(g, " -> ") {
					wantFiles = append(wantFiles, g)
				}
			}
			if d := cmp.Diff(wantFiles, rel); d != "" {
				t.Errorf("files written (-want +got):\n%s", d)
			}
		})
	}
}

// TestBuildIDCacheRealPerf: the real perf 6.1 reads the simulated build-id
// cache (perf --buildid-dir DIR): perf buildid-cache -M finds no build id
// of the perf.data missing and says of the kernel's kallsyms what it says of
// the one its own perf record caches here ("Problems with ... kallsyms file":
// a kallsyms has no build-id note to read back); perf script without
// --symfs resolves every sample through the cache as it does through the
// images of --symfs. Skipped without perf 6.1.
func TestBuildIDCacheRealPerf(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf on the PATH: the real perf is the judge of the build-id cache")
	}
	if v, err := exec.Command(perf, "version").Output(); err != nil || !strings.HasPrefix(string(v), "perf version 6.1.") {
		t.Skipf("perf here is %q, not 6.1", strings.TrimSpace(string(v)))
	}
	ss := perf61Session(t, []string{"-e", "cpu-clock", "-c", "10000"})
	dir := t.TempDir()
	cache := filepath.Join(dir, ".debug")
	if _, err := ss.WriteImages(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.WriteBuildIDCache(cache); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "perf.data")
	var b bytes.Buffer
	if err := ss.Data.WriteFile(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		out, err := exec.Command(perf, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	var kernelLink string
	for _, e := range ss.Data.BuildIDCache() {
		if e.Kernel {
			kernelLink = e.Link
		}
	}
	want := "Problems with " + filepath.Join(cache, kernelLink, "kallsyms") + " file, consider removing it from the cache\n"
	if d := cmp.Diff(want, run("--buildid-dir", cache, "buildid-cache", "-M", path)); d != "" || kernelLink == "" {
		t.Errorf("perf buildid-cache -M (-want +got):\n%s", d)
	}
	// Without the cache every build id of the table is missing.
	if d := cmp.Diff(buildIDList(ss.Data.buildIDTable()), run("--buildid-dir", t.TempDir(), "buildid-cache", "-M", path)); d != "" {
		t.Errorf("perf buildid-cache -M, empty cache (-want +got):\n%s", d)
	}
	symfs := run("script", "-f", "-i", path, "--symfs", dir, "-F", "ip,sym,dso")
	cached := run("--buildid-dir", cache, "script", "-f", "-i", path, "-F", "ip,sym,dso")
	if d := cmp.Diff(symfs, cached); d != "" || strings.Contains(cached, "[unknown]") || !strings.Contains(cached, "[kernel.kallsyms]") || !strings.Contains(cached, "/usr/local/bin/spin") {
		t.Errorf("perf script through the cache (-symfs +cache):\n%s\n%s", d, cached)
	}
}
