package uapi

import "strconv"

// Errno is a Linux errno as the perf syscalls return it negated (-EINVAL).
// Error() prints what glibc's strerror() prints, so a simulated failure reads
// like perf's own messages ("Invalid argument").
type Errno int

// include/uapi/asm-generic/errno-base.h and errno.h (x86/arm64 numbering).
const (
	EPERM      Errno = 1
	ENOENT     Errno = 2
	ESRCH      Errno = 3
	EINTR      Errno = 4
	EIO        Errno = 5
	ENXIO      Errno = 6
	E2BIG      Errno = 7
	EBADF      Errno = 9
	ECHILD     Errno = 10
	EAGAIN     Errno = 11
	ENOMEM     Errno = 12
	EACCES     Errno = 13
	EFAULT     Errno = 14
	EBUSY      Errno = 16
	EEXIST     Errno = 17
	ENODEV     Errno = 19
	EINVAL     Errno = 22
	EMFILE     Errno = 24
	ENOTTY     Errno = 25
	EFBIG      Errno = 27
	ENOSPC     Errno = 28
	ESPIPE     Errno = 29
	ERANGE     Errno = 34
	ENOSYS     Errno = 38
	EOVERFLOW  Errno = 75
	EOPNOTSUPP Errno = 95
)

// The kernel's own codes for a syscall a signal interrupted, which user
// space never sees (glibc's strerror() has no text for them): the signal
// delivery on the way out turns them into -EINTR or runs the syscall
// again (arch_do_signal_or_restart()).
// include/linux/errno.h
const (
	ERESTARTSYS    Errno = 512 // restart if the handler has SA_RESTART (or there is none)
	ERESTARTNOINTR Errno = 513 // always restart
	ERESTARTNOHAND Errno = 514 // restart if there is no handler
)

var errnoText = map[Errno][2]string{
	EPERM:      {"EPERM", "Operation not permitted"},
	ENOENT:     {"ENOENT", "No such file or directory"},
	ESRCH:      {"ESRCH", "No such process"},
	EINTR:      {"EINTR", "Interrupted system call"},
	EIO:        {"EIO", "Input/output error"},
	ENXIO:      {"ENXIO", "No such device or address"},
	E2BIG:      {"E2BIG", "Argument list too long"},
	EBADF:      {"EBADF", "Bad file descriptor"},
	ECHILD:     {"ECHILD", "No child processes"},
	EAGAIN:     {"EAGAIN", "Resource temporarily unavailable"},
	ENOMEM:     {"ENOMEM", "Cannot allocate memory"},
	EACCES:     {"EACCES", "Permission denied"},
	EFAULT:     {"EFAULT", "Bad address"},
	EBUSY:      {"EBUSY", "Device or resource busy"},
	EEXIST:     {"EEXIST", "File exists"},
	ENODEV:     {"ENODEV", "No such device"},
	EINVAL:     {"EINVAL", "Invalid argument"},
	EMFILE:     {"EMFILE", "Too many open files"},
	ENOTTY:     {"ENOTTY", "Inappropriate ioctl for device"},
	EFBIG:      {"EFBIG", "File too large"},
	ENOSPC:     {"ENOSPC", "No space left on device"},
	ESPIPE:     {"ESPIPE", "Illegal seek"},
	ERANGE:     {"ERANGE", "Numerical result out of range"},
	ENOSYS:     {"ENOSYS", "Function not implemented"},
	EOVERFLOW:  {"EOVERFLOW", "Value too large for defined data type"},
	EOPNOTSUPP: {"EOPNOTSUPP", "Operation not supported"},
}

// Error returns strerror(e), e.g. "Invalid argument".
func (e Errno) Error() string {
	if t, ok := errnoText[e]; ok {
		return t[1]
	}
	return "Unknown error " + strconv.Itoa(int(e))
}

// Name returns the symbolic name, e.g. "EINVAL".
func (e Errno) Name() string {
	if t, ok := errnoText[e]; ok {
		return t[0]
	}
	return "E" + strconv.Itoa(int(e))
}

// Neg returns the value a syscall returns for this error (-22 for EINVAL),
// as perf -vv prints it ("sys_perf_event_open failed, error -22").
func (e Errno) Neg() int { return -int(e) }
