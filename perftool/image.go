package perftool

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/pmu/coresight"
	"perfsim/rb"
)

// The synthetic executable images behind the model's addresses
// (pmu/image.go), written as ELF files the real perf reads: perf script
// --symfs DIR resolves user IPs through the MMAP2 of the exec'd image to
// DIR/PATH (dso__load() joins the symfs to the map's file name) and the
// kernel's through DIR/vmlinux (the first of vmlinux_path), and its
// intel_pt decoder reads the loops' code there (dso__data_read_offset() at
// the map's file offset).

// ELF constants (include/uapi/linux/elf.h).
const (
	elfETExec       = 2
	elfETDyn        = 3
	elfEMX8664      = 62
	elfEMAArch64    = 183
	elfPTLoad       = 1
	elfPTNote       = 4
	elfPFX          = 1
	elfPFW          = 2
	elfPFR          = 4
	elfSHTProg      = 1
	elfSHTSymtab    = 2
	elfSHTStrtab    = 3
	elfSHTNote      = 7
	elfSHFWrite     = 1
	elfSHFAlloc     = 2
	elfSHFExec      = 4
	elfSTBGlobal    = 1
	elfSTTFunc      = 2
	elfSTTNotype    = 0
	elfNTGNUBuildID = 3
	elfEhdrSize     = 64
	elfPhdrSize     = 56
	elfShdrSize     = 64
	elfSymSize      = 24
)

// ImageArch is the instruction set of a machine's synthetic images: the
// ELF e_machine, the code of every function (pmu.ImageSlotSize bytes) and
// what fills the text between them.
type ImageArch struct {
	Machine uint16
	Code    [pmu.ImageSlotSize]byte
	Fill    []byte
}

var (
	// ImageX8664 is the images of the x86-64 machine: pmu.ImageFuncCode,
	// int3 between (Intel PT follows them).
	ImageX8664 = ImageArch{elfEMX8664, pmu.ImageFuncCode, []byte{0xcc}}
	// ImageAArch64 is the images of the Arm machine a cs_etm session runs
	// on: coresight.LoopCode, brk #0 between (OpenCSD follows them).
	ImageAArch64 = ImageArch{elfEMAArch64, coresight.LoopCode, coresight.LoopFill}
)

// ImageELF is the x86-64 image: ImageX8664.ELF.
func ImageELF(kernel bool, frames []pmu.Frame, buildID []byte) []byte {
	return ImageX8664.ELF(kernel, frames, buildID)
}

// ELF is the ELF file of a synthetic image of the architecture: a .text of
// the image's function slots (a.Code at each of frames, a.Fill
// elsewhere), a .symtab naming them (STT_FUNC, pmu.ImageSlotSize long), a
// GNU build-id note holding buildID. The user image (kernel false) is a PIE
// laid out as mm.LoadELF maps it (a read-only page, the text page at
// 0x1000, read-only data, two pages of data and bss): its text at
// pmu.UserText when mapped at mm.ImageBase. The kernel's is an ET_EXEC
// vmlinux with its text at pmu.KernelText and an _text symbol there (perf
// relocates the kernel map by it: the MMAP's "[kernel.kallsyms]_text").
func (a ImageArch) ELF(kernel bool, frames []pmu.Frame, buildID []byte) []byte {
	const page = mm.PageSize
	textVA, textSize, base := uint64(0x1000), uint64(pmu.UserTextSize), uint64(mm.ImageBase)
	typ := uint16(elfETDyn)
	if kernel {
		textVA, textSize, base, typ = pmu.KernelText, pmu.KernelTextSize, 0, elfETExec
	}
	const textOff = 0x1000
	type seg struct {
		typ, flags         uint32
		off, va, file, mem uint64
	}
	var segs []seg
	if kernel {
		segs = []seg{{elfPTLoad, elfPFR | elfPFX, textOff, textVA, textSize, textSize}}
	} else { // mm: elfSegments
		segs = []seg{
			{elfPTLoad, elfPFR, 0, 0, page, page},
			{elfPTLoad, elfPFR | elfPFX, textOff, textVA, textSize, textSize},
			{elfPTLoad, elfPFR, 2 * page, 2 * page, page, page},
			{elfPTLoad, elfPFR | elfPFW, 2*page + mm.ELFDataVaddrOff, 3*page + mm.ELFDataVaddrOff, mm.ELFDataFilesz, mm.ELFDataMemsz},
		}
	}
	// The note: namesz, descsz, type, "GNU\0", the id (padded to 4).
	noteOff := uint64(elfEhdrSize + elfPhdrSize*(len(segs)+1))
	noteOff = (noteOff + 3) &^ 3
	note := binary.LittleEndian.AppendUint32(nil, 4)
	note = binary.LittleEndian.AppendUint32(note, uint32(len(buildID)))
	note = binary.LittleEndian.AppendUint32(note, elfNTGNUBuildID)
	note = append(note, "GNU\x00"...)
	note = append(note, buildID...)
	for len(note)%4 != 0 {
		note = append(note, 0)
	}
	noteVA := noteOff // in the first PT_LOAD (the user image's)
	if kernel {
		noteVA = 0
	}
	segs = append(segs, seg{elfPTNote, elfPFR, noteOff, noteVA, uint64(len(note)), uint64(len(note))})

	text := make([]byte, textSize)
	for i := range text {
		text[i] = a.Fill[i%len(a.Fill)]
	}
	syms := [][2]any{} // name, address in the file's address space
	if kernel {
		syms = append(syms, [2]any{"_text", textVA})
	}
	fs := append([]pmu.Frame(nil), frames...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Addr < fs[j].Addr })
	for _, f := range fs {
		va := f.Addr - base
		if va < textVA || va+pmu.ImageSlotSize > textVA+textSize {
			continue
		}
		copy(text[va-textVA:], a.Code[:])
		syms = append(syms, [2]any{f.Name, va})
	}

	// After the loaded pages: .symtab, .strtab, .shstrtab, section headers.
	fileEnd := uint64(textOff) + textSize
	if !kernel {
		fileEnd = 2*page + mm.ELFDataVaddrOff + mm.ELFDataFilesz // the data segment's file part
	}
	strtab := []byte{0}
	symtab := make([]byte, elfSymSize) // the null symbol
	for _, s := range syms {
		name, va := s[0].(string), s[1].(uint64)
		typ, size := byte(elfSTTFunc), uint64(pmu.ImageSlotSize)
		if name == "_text" {
			typ, size = elfSTTNotype, 0
		}
		e := binary.LittleEndian.AppendUint32(nil, uint32(len(strtab)))
		e = append(e, elfSTBGlobal<<4|typ, 0)
		e = binary.LittleEndian.AppendUint16(e, 2) // .text
		e = binary.LittleEndian.AppendUint64(e, va)
		e = binary.LittleEndian.AppendUint64(e, size)
		symtab = append(symtab, e...)
		strtab = append(append(strtab, name...), 0)
	}
	shnames := []string{"", ".note.gnu.build-id", ".text", ".symtab", ".strtab", ".shstrtab"}
	shstr := []byte{}
	shname := make([]uint32, len(shnames))
	for i, n := range shnames {
		shname[i] = uint32(len(shstr))
		shstr = append(append(shstr, n...), 0)
	}
	symOff := fileEnd
	strOff := symOff + uint64(len(symtab))
	shstrOff := strOff + uint64(len(strtab))
	shOff := (shstrOff + uint64(len(shstr)) + 7) &^ 7

	out := make([]byte, shOff, shOff+uint64(len(shnames))*elfShdrSize)
	le := binary.LittleEndian
	copy(out, "\x7fELF\x02\x01\x01") // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	le.PutUint16(out[16:], typ)
	le.PutUint16(out[18:], a.Machine)
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[24:], textVA) // e_entry
	le.PutUint64(out[32:], elfEhdrSize)
	le.PutUint64(out[40:], shOff)
	le.PutUint16(out[52:], elfEhdrSize)
	le.PutUint16(out[54:], elfPhdrSize)
	le.PutUint16(out[56:], uint16(len(segs)))
	le.PutUint16(out[58:], elfShdrSize)
	le.PutUint16(out[60:], uint16(len(shnames)))
	le.PutUint16(out[62:], uint16(len(shnames)-1))
	for i, s := range segs {
		p := out[elfEhdrSize+i*elfPhdrSize:]
		le.PutUint32(p[0:], s.typ)
		le.PutUint32(p[4:], s.flags)
		le.PutUint64(p[8:], s.off)
		le.PutUint64(p[16:], s.va)
		le.PutUint64(p[24:], s.va)
		le.PutUint64(p[32:], s.file)
		le.PutUint64(p[40:], s.mem)
		align := uint64(page)
		if s.typ == elfPTNote {
			align = 4
		}
		le.PutUint64(p[48:], align)
	}
	copy(out[noteOff:], note)
	copy(out[textOff:], text)
	copy(out[symOff:], symtab)
	copy(out[strOff:], strtab)
	copy(out[shstrOff:], shstr)
	shdr := func(name uint32, typ uint32, flags, addr, off, size uint64, link, info uint32, align, entsize uint64) {
		h := le.AppendUint32(nil, name)
		h = le.AppendUint32(h, typ)
		h = le.AppendUint64(h, flags)
		h = le.AppendUint64(h, addr)
		h = le.AppendUint64(h, off)
		h = le.AppendUint64(h, size)
		h = le.AppendUint32(h, link)
		h = le.AppendUint32(h, info)
		h = le.AppendUint64(h, align)
		h = le.AppendUint64(h, entsize)
		out = append(out, h...)
	}
	noteFlags := uint64(elfSHFAlloc)
	if kernel {
		noteFlags = 0
	}
	shdr(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	shdr(shname[1], elfSHTNote, noteFlags, noteVA, noteOff, uint64(len(note)), 0, 0, 4, 0)
	shdr(shname[2], elfSHTProg, elfSHFAlloc|elfSHFExec, textVA, textOff, textSize, 0, 0, 16, 0)
	shdr(shname[3], elfSHTSymtab, 0, 0, symOff, uint64(len(symtab)), 4, 1, 8, elfSymSize) // info: the first global
	shdr(shname[4], elfSHTStrtab, 0, 0, strOff, uint64(len(strtab)), 0, 0, 1, 0)
	shdr(shname[5], elfSHTStrtab, 0, 0, shstrOff, uint64(len(shstr)), 0, 0, 1, 0)
	return out
}

// KernelBuildID is the simulated kernel's build id (its vmlinux's note).
var KernelBuildID = func() []byte { id := sha1.Sum([]byte("vmlinux 6.19.0-perfsim")); return id[:] }()

// ImagePaths are the files of the synthetic user image the perf.data maps:
// each PERF_RECORD_MMAP2 of an executable file mapping at pmu.UserText (an
// exec's text), and the workload's image.
func (ss *Session) ImagePaths() []string {
	seen := map[string]bool{}
	if ss.Workload != nil {
		seen[WorkloadPath(ss.Workload.Comm)] = true
	}
	if !ss.Data.Dropped && !ss.Data.Discard {
		ss.process()
		for i := range ss.Data.Records {
			if m, ok := decodedSideband[*rb.Mmap](&ss.Data.Records[i]); ok && m.Start == pmu.UserText && m.Prot&4 != 0 && strings.HasPrefix(m.Filename, "/") {
				seen[m.Filename] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// ImageArch is the instruction set of the images of the session's machine:
// AArch64 where perf records cs_etm (the Arm machine HEADER_ARCH names),
// x86-64 elsewhere.
func (ss *Session) ImageArch() ImageArch {
	if ss.R != nil && armMachine(ss.R) {
		return ImageAArch64
	}
	return ImageX8664
}

// WriteImages writes the synthetic images of the session into dir as perf
// script --symfs dir finds them: each user image at dir/PATH (with the
// build id mm gives the file: the SHA-1 of its path), the kernel's at
// dir/vmlinux, in the instruction set of the machine (ImageArch); it
// returns the paths written.
func (ss *Session) WriteImages(dir string) ([]string, error) {
	var out []string
	write := func(path string, b []byte) error {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o755); err != nil {
			return fmt.Errorf("image %s: %w", path, err)
		}
		out = append(out, full)
		return nil
	}
	arch := ss.ImageArch()
	user := ss.K.ImageFrames(false)
	for _, p := range ss.ImagePaths() {
		if err := write(p, arch.ELF(false, user, ss.S.FS.Lookup(p).BuildID)); err != nil {
			return out, err
		}
	}
	if err := write("vmlinux", arch.ELF(true, ss.K.ImageFrames(true), KernelBuildID)); err != nil {
		return out, err
	}
	return out, nil
}
