package explore

import "testing"

// uaccessSrc writes to the tty from a fresh buffer (its pages fault in from
// the kernel: devWrite's copy) and reads and writes a file through
// another, beside a second task on the other CPU.
const uaccessSrc = `scenario uaccess-audit
cpus 2
task w cpu0
  syscall mmap 0 16384 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as b
  syscall write 1 b 8192
  syscall write 1 0 100
  syscall openat AT_FDCWD "/var/tmp/a" O_RDWR|O_CREAT 0600 as fd
  syscall write fd b 16384
  syscall lseek fd 0 SEEK_SET
  syscall read fd b 16384
task other cpu1
  compute 30us
record -e page-faults -c 1 -- w
`

// TestWriteAuditUserCopies: the write audit on the user side of read(2)
// and write(2) (sched/uaccess.go): a tty write's faults run in the write's
// annotated body, so what they write must be annotated or marked.
func TestWriteAuditUserCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary")
	}
	t.Parallel()
	a := auditRun(t, "uaccess", uaccessSrc, 4)
	if len(a.Violations) > 0 {
		t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
	}
	// the page-faults samples, each written by an audited fragment: the tty
	// write's 2 pages and its NULL (1), the file write's last 2 pages (the
	// first 2 the tty write mapped), the read's 4 write faults on the zero
	// page, and the exec's 2 (elf_load()'s padzero(): sched/footprint_exec.go
	// accessPadzero)
	if got := a.Checked["perf_output_sample:header"]; got != 11 {
		t.Errorf("%d page-faults samples audited, want 11", got)
	}
}
