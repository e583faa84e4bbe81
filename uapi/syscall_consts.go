package uapi

// Constants the system calls of a task program take by name, with their
// x86_64 values.
// include/uapi/linux/prctl.h; include/uapi/asm-generic/mman-common.h, mman.h;
// include/uapi/asm-generic/fcntl.h; include/uapi/linux/fcntl.h
const (
	PR_SET_NAME = 15
	PR_GET_NAME = 16

	PROT_NONE  = 0x0
	PROT_READ  = 0x1
	PROT_WRITE = 0x2
	PROT_EXEC  = 0x4

	MAP_SHARED          = 0x01
	MAP_PRIVATE         = 0x02
	MAP_SHARED_VALIDATE = 0x03
	MAP_TYPE            = 0x0f
	MAP_FIXED           = 0x10
	MAP_ANONYMOUS       = 0x20
	MAP_GROWSDOWN       = 0x0100
	MAP_DENYWRITE       = 0x0800
	MAP_EXECUTABLE      = 0x1000
	MAP_LOCKED          = 0x2000
	MAP_NORESERVE       = 0x4000
	MAP_POPULATE        = 0x8000
	MAP_NONBLOCK        = 0x10000
	MAP_STACK           = 0x20000
	MAP_HUGETLB         = 0x40000
	MAP_FIXED_NOREPLACE = 0x100000

	O_RDONLY    = 0
	O_WRONLY    = 01
	O_RDWR      = 02
	O_CREAT     = 0100
	O_EXCL      = 0200
	O_TRUNC     = 01000
	O_APPEND    = 02000
	O_NONBLOCK  = 04000
	O_DIRECTORY = 0200000
	O_CLOEXEC   = 02000000

	AT_FDCWD = -100
)

// SyscallConsts are the names a task program may write for a system call
// argument (syscall prctl PR_SET_NAME "worker"); flags combine with |.
var SyscallConsts = map[string]int64{
	"PR_SET_NAME": PR_SET_NAME, "PR_GET_NAME": PR_GET_NAME,
	"PROT_NONE": PROT_NONE, "PROT_READ": PROT_READ, "PROT_WRITE": PROT_WRITE, "PROT_EXEC": PROT_EXEC,
	"MAP_SHARED": MAP_SHARED, "MAP_PRIVATE": MAP_PRIVATE, "MAP_SHARED_VALIDATE": MAP_SHARED_VALIDATE,
	"MAP_FIXED": MAP_FIXED, "MAP_ANONYMOUS": MAP_ANONYMOUS, "MAP_ANON": MAP_ANONYMOUS,
	"MAP_GROWSDOWN": MAP_GROWSDOWN, "MAP_DENYWRITE": MAP_DENYWRITE, "MAP_EXECUTABLE": MAP_EXECUTABLE,
	"MAP_LOCKED": MAP_LOCKED, "MAP_NORESERVE": MAP_NORESERVE, "MAP_POPULATE": MAP_POPULATE,
	"MAP_NONBLOCK": MAP_NONBLOCK, "MAP_STACK": MAP_STACK, "MAP_HUGETLB": MAP_HUGETLB,
	"MAP_FIXED_NOREPLACE": MAP_FIXED_NOREPLACE,
	"O_RDONLY":            O_RDONLY, "O_WRONLY": O_WRONLY, "O_RDWR": O_RDWR, "O_CREAT": O_CREAT, "O_EXCL": O_EXCL,
	"O_TRUNC": O_TRUNC, "O_APPEND": O_APPEND, "O_NONBLOCK": O_NONBLOCK, "O_DIRECTORY": O_DIRECTORY,
	"O_CLOEXEC": O_CLOEXEC, "AT_FDCWD": AT_FDCWD,
}
