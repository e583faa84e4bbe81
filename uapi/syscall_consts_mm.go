package uapi

// madvise() advice and mremap() flags, x86_64 values.
// include/uapi/asm-generic/mman-common.h; include/uapi/linux/mman.h
const (
	MADV_NORMAL     = 0
	MADV_RANDOM     = 1
	MADV_SEQUENTIAL = 2
	MADV_WILLNEED   = 3
	MADV_DONTNEED   = 4
	MADV_FREE       = 8

	MREMAP_MAYMOVE   = 1
	MREMAP_FIXED     = 2
	MREMAP_DONTUNMAP = 4
)

func init() {
	for k, v := range map[string]int64{
		"MADV_NORMAL": MADV_NORMAL, "MADV_RANDOM": MADV_RANDOM, "MADV_SEQUENTIAL": MADV_SEQUENTIAL,
		"MADV_WILLNEED": MADV_WILLNEED, "MADV_DONTNEED": MADV_DONTNEED, "MADV_FREE": MADV_FREE,
		"MREMAP_MAYMOVE": MREMAP_MAYMOVE, "MREMAP_FIXED": MREMAP_FIXED, "MREMAP_DONTUNMAP": MREMAP_DONTUNMAP,
	} {
		SyscallConsts[k] = v
	}
}

// posix_fadvise() advice, x86_64 values.
// include/uapi/linux/fadvise.h
const (
	POSIX_FADV_NORMAL     = 0
	POSIX_FADV_RANDOM     = 1
	POSIX_FADV_SEQUENTIAL = 2
	POSIX_FADV_WILLNEED   = 3
	POSIX_FADV_DONTNEED   = 4
	POSIX_FADV_NOREUSE    = 5
)

func init() {
	for k, v := range map[string]int64{
		"POSIX_FADV_NORMAL": POSIX_FADV_NORMAL, "POSIX_FADV_RANDOM": POSIX_FADV_RANDOM,
		"POSIX_FADV_SEQUENTIAL": POSIX_FADV_SEQUENTIAL, "POSIX_FADV_WILLNEED": POSIX_FADV_WILLNEED,
		"POSIX_FADV_DONTNEED": POSIX_FADV_DONTNEED, "POSIX_FADV_NOREUSE": POSIX_FADV_NOREUSE,
	} {
		SyscallConsts[k] = v
	}
}

// lseek() whence, include/uapi/linux/fs.h.
const (
	SEEK_SET  = 0
	SEEK_CUR  = 1
	SEEK_END  = 2
	SEEK_DATA = 3
	SEEK_HOLE = 4
	SEEK_MAX  = SEEK_HOLE
)

func init() {
	for k, v := range map[string]int64{"SEEK_SET": SEEK_SET, "SEEK_CUR": SEEK_CUR, "SEEK_END": SEEK_END, "SEEK_DATA": SEEK_DATA, "SEEK_HOLE": SEEK_HOLE} {
		SyscallConsts[k] = v
	}
}
