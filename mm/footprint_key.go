package mm

// SetKey names m for partial-order reduction: a name that stays the same
// in every replay of a run (cpu.FootprintKeyer), given by whoever makes it
// (the scheduler: its number and its task's TID).
func (m *MM) SetKey(key string) { m.key = key }

// FootprintKey implements cpu.FootprintKeyer: the name SetKey gave; "mm?"
// for an address space nobody named, which no run of the scheduler makes.
func (m *MM) FootprintKey() string {
	if m.key == "" {
		return "mm?"
	}
	return m.key
}

// mmMemory is an MM's own memory, without MM's methods: what the write
// audit notes of it.
type mmMemory MM

// FootprintExtent is the memory m's key names (explore's write audit): the
// address space and its VMAs, mm->mmap (the tree of VMAs and their page
// tables), which a mapping, an unmapping or a fault changes.
func (m *MM) FootprintExtent() []any {
	out := []any{(*mmMemory)(m)}
	for _, v := range m.VMAs {
		out = append(out, v)
	}
	return out
}

// SetKey names fl for partial-order reduction, as MM.SetKey names an
// address space (the scheduler: its number and its task's TID).
func (fl *Files) SetKey(key string) { fl.key = key }

// FootprintKey implements cpu.FootprintKeyer: the name SetKey gave; "files?"
// for a table nobody named, which no run of the scheduler makes (two such
// tables would share it: TestFootprintKeysStable reports the clash).
func (fl *Files) FootprintKey() string {
	if fl.key == "" {
		return "files?"
	}
	return fl.key
}
