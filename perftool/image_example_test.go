package perftool_test

import (
	"bytes"
	"debug/elf"
	"fmt"

	"perfsim/perftool"
	"perfsim/pmu"
)

// ExampleImageELF writes the user image of two frames and reads it back
// with debug/elf: a PIE whose symbols sit where exec maps them, less
// mm.ImageBase.
func ExampleImageELF() {
	frames := []pmu.Frame{{Name: "main", Addr: pmu.UserText + 0xc80}, {Name: "worker", Addr: pmu.UserText + 0x770}}
	f, err := elf.NewFile(bytes.NewReader(perftool.ImageELF(false, frames, make([]byte, 20))))
	if err != nil {
		fmt.Println(err)
		return
	}
	syms, _ := f.Symbols()
	fmt.Println(f.Type, f.Machine)
	for _, s := range syms {
		fmt.Printf("%#x %d %s\n", s.Value, s.Size, s.Name)
	}
	// Output:
	// ET_DYN EM_X86_64
	// 0x1770 16 worker
	// 0x1c80 16 main
}
