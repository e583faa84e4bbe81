package perftool

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/mm"
	"perfsim/pmu"
)

// TestImageELF: the images parse as ELF (debug/elf): the machine (x86-64,
// or AArch64 for a cs_etm session's), the type, a
// symbol per frame at its address (the user image's relative to where
// exec maps it), the loop's code there, the build-id note, and the user
// image's PT_LOADs laid out as mm.LoadELF maps them.
func TestImageELF(t *testing.T) {
	id := bytes.Repeat([]byte{0xab}, 20)
	for _, tc := range []struct {
		arch    ImageArch
		machine elf.Machine
		kernel  bool
		typ     elf.Type
		base    uint64
		frames  []pmu.Frame
		syms    []string
	}{
		{ImageX8664, elf.EM_X86_64, false, elf.ET_DYN, mm.ImageBase, []pmu.Frame{{Name: "main", Addr: pmu.UserText + 0xc80}, {Name: "work", Addr: pmu.UserText}}, []string{"work", "main"}},
		{ImageX8664, elf.EM_X86_64, true, elf.ET_EXEC, 0, []pmu.Frame{{Name: "nanosleep", Addr: pmu.KernelText + 0x3f20}}, []string{"_text", "nanosleep"}},
		{ImageAArch64, elf.EM_AARCH64, false, elf.ET_DYN, mm.ImageBase, []pmu.Frame{{Name: "memcpy", Addr: pmu.UserText + 0x240}}, []string{"memcpy"}},
		{ImageAArch64, elf.EM_AARCH64, true, elf.ET_EXEC, 0, []pmu.Frame{{Name: "exit_to_user_mode", Addr: pmu.KernelText + 0xddb0}}, []string{"_text", "exit_to_user_mode"}},
	} {
		f, err := elf.NewFile(bytes.NewReader(tc.arch.ELF(tc.kernel, tc.frames, id)))
		if err != nil {
			t.Fatalf("kernel %v: %v", tc.kernel, err)
		}
		if f.Machine != tc.machine || f.Type != tc.typ {
			t.Errorf("kernel %v: machine %v type %v", tc.kernel, f.Machine, f.Type)
		}
		syms, err := f.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		text := f.Section(".text")
		for _, s := range syms {
			names = append(names, s.Name)
			if s.Name == "_text" {
				continue
			}
			code := make([]byte, pmu.ImageSlotSize)
			if _, err := text.ReadAt(code, int64(s.Value-text.Addr)); err != nil || !bytes.Equal(code, tc.arch.Code[:]) {
				t.Errorf("%s at %#x: code % x (%v)", s.Name, s.Value, code, err)
			}
		}
		if d := cmp.Diff(tc.syms, names); d != "" {
			t.Errorf("kernel %v: symbols (-want +got):\n%s", tc.kernel, d)
		}
		at := map[string]uint64{}
		for _, s := range syms {
			at[s.Name] = s.Value
		}
		for _, fr := range tc.frames {
			if at[fr.Name] != fr.Addr-tc.base {
				t.Errorf("%s at %#x, want %#x", fr.Name, at[fr.Name], fr.Addr-tc.base)
			}
		}
		note, err := f.Section(".note.gnu.build-id").Data()
		if err != nil || !bytes.Equal(note[16:], id) || string(note[12:15]) != "GNU" {
			t.Errorf("kernel %v: build-id note % x (%v)", tc.kernel, note, err)
		}
		if tc.kernel {
			continue
		}
		type load struct {
			Off, Vaddr, Filesz uint64
			Flags              elf.ProgFlag
		}
		var got []load
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				got = append(got, load{p.Off, p.Vaddr, p.Filesz, p.Flags})
			}
		}
		want := []load{{0, 0, mm.PageSize, elf.PF_R}, {mm.PageSize, pmu.UserText - mm.ImageBase, mm.PageSize, elf.PF_R | elf.PF_X},
			{2 * mm.PageSize, 2 * mm.PageSize, mm.PageSize, elf.PF_R},
			// the data segment as /usr/bin/true's: its file part ends 0x1e0 into its second page (padzero())
			{0x2d70, 0x3d70, 0x470, elf.PF_R | elf.PF_W}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PT_LOADs (-want +got):\n%s", d)
		}
	}
}
