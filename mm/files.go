package mm

import (
	"crypto/sha1"
	"strings"

	"perfsim/uapi"
)

// File is an inode the model maps or opens: its path, device and inode
// numbers (PERF_RECORD_MMAP2's maj/min/ino/ino_generation), an optional
// build id, and which of its pages are in the page cache.
type File struct {
	Path     string
	Maj, Min uint32
	Ino, Gen uint64
	BuildID  []byte
	pages    map[uint64]bool
}

// cache puts page pgoff in the page cache and reports whether it had to be
// read (it was not there).
func (f *File) cache(pgoff uint64) bool {
	if f.pages[pgoff] {
		return false
	}
	f.pages[pgoff] = true
	return true
}

// FS is the machine's files: a path names one inode, shared by every
// process (so a page one process read is in the page cache for the next).
type FS struct {
	files   map[string]*File
	nextIno uint64
}

// NewFS is an empty file system on device 8:1; every path exists.
func NewFS() *FS { return &FS{files: map[string]*File{}, nextIno: 1000} }

// Lookup returns the inode of path, made on first use, with its page cache
// empty (the first access of each page is a major fault).
func (fs *FS) Lookup(path string) *File {
	if f := fs.files[path]; f != nil {
		return f
	}
	fs.nextIno++
	f := &File{Path: path, Maj: 8, Min: 1, Ino: fs.nextIno, pages: map[uint64]bool{}}
	if !strings.HasPrefix(path, "/dev/") {
		// Every regular file is an ELF object with a GNU build-id note
		// (what build_id_parse_nofault() reads): the SHA-1 of its path.
		id := sha1.Sum([]byte(path))
		f.BuildID = id[:]
	}
	fs.files[path] = f
	return f
}

// Files is a struct files_struct: the fd table. 0, 1 and 2 start open on
// the terminal.
type Files struct {
	fds     []*File
	cloexec map[int]bool // the close_on_exec bitmap (files_cloexec.go)
}

// NewFiles is the fd table of a task the machine starts with.
func NewFiles(fs *FS) *Files {
	tty := fs.Lookup("/dev/pts/0")
	return &Files{fds: []*File{tty, tty, tty}}
}

// Dup is dup_fd() for a child without CLONE_FILES.
func (fl *Files) Dup() *Files {
	c := &Files{fds: append([]*File(nil), fl.fds...)}
	for fd := range fl.cloexec {
		c.SetCloexec(fd, true) // dup_fd() copies the close_on_exec bitmap
	}
	return c
}

// Install is fd_install() at the lowest free fd (get_unused_fd_flags()).
func (fl *Files) Install(f *File) int {
	for i, x := range fl.fds {
		if x == nil {
			fl.fds[i] = f
			return i
		}
	}
	fl.fds = append(fl.fds, f)
	return len(fl.fds) - 1
}

// Get is fget(): the file of fd, or nil.
func (fl *Files) Get(fd int64) *File {
	if fd < 0 || fd >= int64(len(fl.fds)) {
		return nil
	}
	return fl.fds[fd]
}

// Close is close_fd(): EBADF when fd is not open.
// fs/file.c: file_close_fd() -> fs/open.c: SYSCALL_DEFINE1(close)
func (fl *Files) Close(fd int64) uapi.Errno {
	if fl.Get(fd) == nil {
		return uapi.EBADF
	}
	fl.fds[fd] = nil
	fl.SetCloexec(int(fd), false)
	return 0
}
