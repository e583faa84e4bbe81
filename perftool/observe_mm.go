package perftool

func init() {
	RegisterSessionObservable("perf.mmap", "PERF_RECORD_MMAP/MMAP2 records from the kernel (an exec's image, ld.so and vdso; mmap of a file, or of data with -d)",
		func(ss *Session) int64 {
			return ss.Data.Stats().Mmap
		})
}
