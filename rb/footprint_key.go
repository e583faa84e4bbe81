package rb

// SetKey names b for partial-order reduction: a name that stays the same in
// every replay of a run (cpu.FootprintKeyer), given by whoever allocates it
// (perf's mmap: the event and the buffer's number in the run).
func (b *Buffer) SetKey(key string) { b.key = key }

// FootprintKey implements cpu.FootprintKeyer: the name SetKey gave; "rb?"
// for a buffer nobody named, which no run of the kernel model makes.
func (b *Buffer) FootprintKey() string {
	if b.key == "" {
		return "rb?"
	}
	return b.key
}
