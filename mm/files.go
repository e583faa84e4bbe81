package mm

import (
	"crypto/sha1"
	"strings"

	"perfsim/sim"
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
	// Size is i_size in bytes; -1 for a file nobody sized (the model's
	// files exist with whatever size a scenario maps): ftruncate(2) and
	// O_TRUNC set it.
	Size int64
	// folios is the page cache (pagecache.go): the folio holding each
	// cached page.
	folios map[uint64]*folio
	fs     *FS // the file system it is on (its device's ra_pages)
}

// FS is the machine's files: a path names one inode, shared by every
// process (so a page one process read is in the page cache for the next).
type FS struct {
	files   map[string]*File
	nextIno uint64
	// RAPages is the device's bdi->ra_pages (read_ahead_kb / 4), what each
	// file opened on it reads ahead (ReadAhead): VM_READAHEAD_PAGES (32,
	// 128 KB) for a disk that reports no optimal I/O size.
	RAPages uint64
	// IOPages is the device's bdi->io_pages (max_sectors_kb / 4): a
	// forced readahead (WILLNEED) reads up to it when it is more than
	// ra_pages.
	IOPages uint64
	// ReadLatency and ReadPerPage are the disk's (the cost model's): a
	// read submitted at t is served after ReadLatency, reads overlapping in
	// that, but the disk transfers one read at a time, ReadPerPage a page:
	// diskFree is when it has transferred the last one submitted. Zero: a
	// read takes no time.
	ReadLatency, ReadPerPage sim.Duration
	// WriteLatency and WritePerPage are the disk's for a writeback (the
	// cost model's DiskWrite), in the same queue.
	WriteLatency, WritePerPage sim.Duration
	diskFree                   sim.Time
	reading                    bool     // a read is being made up (File.read)
	batch                      []*folio // its folios
}

// NewFS is an empty file system on device 8:1; every path exists.
func NewFS() *FS {
	return &FS{files: map[string]*File{}, nextIno: 1000, RAPages: DefaultRAPages, IOPages: DefaultIOPages}
}

// DefaultRAPages is VM_READAHEAD_PAGES: 128 KB.
const DefaultRAPages = 128 * 1024 / PageSize

// DefaultIOPages is the io_pages of this machine's virtio disk: its
// max_sectors_kb is 4096 (the kernel has no one default: it is the
// device's limit).
const DefaultIOPages = 4096 * 1024 / PageSize

// Lookup returns the inode of path, made on first use, with its page cache
// empty (the first access of each page is a major fault).
func (fs *FS) Lookup(path string) *File {
	if f := fs.files[path]; f != nil {
		return f
	}
	fs.nextIno++
	f := &File{Path: path, Maj: 8, Min: 1, Ino: fs.nextIno, Size: -1, folios: map[uint64]*folio{}, fs: fs}
	if !f.noopBDI() {
		// Every regular file is an ELF object with a GNU build-id note
		// (what build_id_parse_nofault() reads): the SHA-1 of its path.
		id := sha1.Sum([]byte(path))
		f.BuildID = id[:]
	}
	fs.files[path] = f
	return f
}

// noopBDI reports whether f is on a file system with no device behind it
// (noop_backing_dev_info: its page cache is not read from a disk and
// fadvise() ignores advice): the model's /dev files, such as a tty.
func (f *File) noopBDI() bool { return strings.HasPrefix(f.Path, "/dev/") }

// Cached reports whether path has an inode already (Lookup finds it, makes
// none): the exec's annotation of its lookup (sched/footprint_exec.go).
func (fs *FS) Cached(path string) bool { return fs.files[path] != nil }

// OpenFile is a struct file, what an fd points at: a regular file opened
// by path (Inode), or an anon inode file another subsystem made (Anon:
// perf's event, anon_inode_getfile("[perf_event]", &perf_fops, event)).
type OpenFile struct {
	Inode *File
	Anon  AnonFile
	ra    *ReadAhead
	// Flags are the open's flags (O_RDONLY, O_WRONLY or O_RDWR: f_mode's
	// FMODE_READ and FMODE_WRITE; O_APPEND), Pos is f_pos (fileio.go).
	Flags uint64
	Pos   int64
}

// Regular reports whether of is a regular file on a disk (not a tty or an
// anon inode): its reads and writes go through the page cache.
func (of *OpenFile) Regular() bool { return of.Inode != nil && !of.Inode.noopBDI() }

// ReadAhead is the file's f_ra, made as the open's file_ra_state_init()
// makes it (with fs's ra_pages) on first use: what every mapping of this
// open file shares.
func (of *OpenFile) ReadAhead(fs *FS) *ReadAhead {
	if of.ra == nil {
		of.ra = NewReadAhead(fs)
	}
	return of.ra
}

// AnonFile is the object behind an anon inode file. GetFile is get_file():
// one more reference to the file (a copied fd, dup_fd()); the references are
// dropped by the file's owner when the fd it holds is closed (fput()), which
// it hears of through the scheduler's FileHook.
type AnonFile interface {
	GetFile()
}

// reserved is the slot of an fd get_unused_fd_flags() took and fd_install()
// has not filled yet: in open_fds, so no other open takes it, but fget()
// finds nothing there.
var reserved = &OpenFile{}

// RlimitNofile is RLIMIT_NOFILE's default soft limit (the model has no
// setrlimit): alloc_fd() fails with EMFILE at this fd.
const RlimitNofile = 1024

// Files is a struct files_struct: the fd table of a process, shared by the
// threads cloned with CLONE_FILES (Users is its count), copied by dup_fd()
// for a child without it. 0, 1 and 2 start open on the terminal.
type Files struct {
	fds     []*OpenFile
	cloexec map[int]bool // the close_on_exec bitmap (files_cloexec.go)
	Users   int          // files_struct->count
	key     string       // its footprint key (footprint_key.go)
}

// NewFiles is the fd table of a task the machine starts with.
func NewFiles(fs *FS) *Files {
	tty := &OpenFile{Inode: fs.Lookup("/dev/pts/0"), Flags: uapi.O_RDWR}
	return &Files{fds: []*OpenFile{tty, tty, tty}, Users: 1}
}

// Share is a thread cloned with CLONE_FILES: atomic_inc(&oldf->count).
// kernel/fork.c: copy_files()
func (fl *Files) Share() *Files {
	fl.Users++
	return fl
}

// Dup is dup_fd() for a child without CLONE_FILES: every open fd is copied
// (get_file() for each), the close_on_exec bitmap with them; a reserved fd
// is not (it is not yet a file).
// fs/file.c: dup_fd()
func (fl *Files) Dup() *Files {
	c := &Files{fds: make([]*OpenFile, len(fl.fds)), Users: 1}
	for fd, f := range fl.fds {
		if f == nil || f == reserved {
			continue
		}
		c.fds[fd] = f
		if f.Anon != nil {
			f.Anon.GetFile()
		}
		if fl.cloexec[fd] {
			c.SetCloexec(fd, true)
		}
	}
	return c
}

// GetUnusedFd is get_unused_fd_flags(): the lowest free fd, reserved (and
// marked close-on-exec with O_CLOEXEC), or EMFILE at RLIMIT_NOFILE.
// fs/file.c: alloc_fd()
func (fl *Files) GetUnusedFd(cloexec bool) (int, uapi.Errno) {
	fd := len(fl.fds)
	for i, x := range fl.fds {
		if x == nil {
			fd = i
			break
		}
	}
	if fd >= RlimitNofile {
		return -1, uapi.EMFILE
	}
	if fd == len(fl.fds) {
		fl.fds = append(fl.fds, nil)
	}
	fl.fds[fd] = reserved
	fl.SetCloexec(fd, cloexec)
	return fd, 0
}

// PutUnusedFd is put_unused_fd(): a reserved fd given back unfilled.
func (fl *Files) PutUnusedFd(fd int) {
	if fd >= 0 && fd < len(fl.fds) && fl.fds[fd] == reserved {
		fl.fds[fd] = nil
		fl.SetCloexec(fd, false)
	}
}

// FdInstall is fd_install(): the reserved fd now points at f.
func (fl *Files) FdInstall(fd int, f *OpenFile) {
	if fd < 0 || fd >= len(fl.fds) || fl.fds[fd] != reserved {
		panic("mm: fd_install() of an fd get_unused_fd_flags() did not reserve")
	}
	fl.fds[fd] = f
}

// Install opens f with the open's flags at the lowest free fd
// (get_unused_fd_flags() then fd_install(), as do_sys_openat2() does), or
// fails with EMFILE.
func (fl *Files) Install(f *File, flags uint64) (int, uapi.Errno) {
	fd, err := fl.GetUnusedFd(flags&uapi.O_CLOEXEC != 0) // get_unused_fd_flags(O_CLOEXEC): __set_close_on_exec()
	if err != 0 {
		return fd, err
	}
	fl.FdInstall(fd, &OpenFile{Inode: f, Flags: flags &^ uapi.O_CLOEXEC})
	return fd, 0
}

// Fget is fget(): the file of fd, or nil (a closed or reserved fd).
func (fl *Files) Fget(fd int64) *OpenFile {
	if fd < 0 || fd >= int64(len(fl.fds)) || fl.fds[fd] == reserved {
		return nil
	}
	return fl.fds[fd]
}

// Get is the inode of fd when it is a regular file, or nil.
func (fl *Files) Get(fd int64) *File {
	if f := fl.Fget(fd); f != nil {
		return f.Inode
	}
	return nil
}

// Close is file_close_fd(): fd leaves the table; the caller drops the
// reference it held (filp_close() -> fput()). EBADF when fd is not open.
// fs/file.c: file_close_fd() -> fs/open.c: SYSCALL_DEFINE1(close)
func (fl *Files) Close(fd int64) (*OpenFile, uapi.Errno) {
	f := fl.Fget(fd)
	if f == nil {
		return nil, uapi.EBADF
	}
	fl.fds[fd] = nil
	fl.SetCloexec(int(fd), false)
	return f, 0
}

// CloseAll is close_files(): every open fd of a table whose last user let it
// go is closed; it returns the files, whose references the caller drops.
// fs/file.c: close_files()
func (fl *Files) CloseAll() []*OpenFile {
	var closed []*OpenFile
	for fd, f := range fl.fds {
		if f != nil && f != reserved {
			closed = append(closed, f)
		}
		fl.fds[fd] = nil
	}
	fl.cloexec = nil
	return closed
}

// TTY reports whether f is a terminal (the model's /dev/pts/N and
// /dev/tty*), whose writes copy the caller's buffer.
func (f *File) TTY() bool {
	return strings.HasPrefix(f.Path, "/dev/pts/") || strings.HasPrefix(f.Path, "/dev/tty")
}
