package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFlags are simrun's global --cpuprofile FILE and --memprofile FILE,
// given before the command (simrun --cpuprofile cpu.out explore NAME ...):
// pprof files of where the command spent its time and what it allocated
// (go tool pprof FILE).
type profileFlags struct {
	cpu, mem string
	cpuFile  *os.File
}

// cutProfileFlags takes the leading --cpuprofile/--memprofile flags off args
// (as --flag FILE or --flag=FILE, one or two dashes).
func cutProfileFlags(args []string) (profileFlags, []string, error) {
	var p profileFlags
	for len(args) > 0 {
		a := args[0]
		var dst *string
		var val string
		has := false
		for _, name := range []string{"cpuprofile", "memprofile"} {
			for _, pre := range []string{"-", "--"} {
				switch {
				case a == pre+name:
					dst = p.field(name)
				case len(a) > len(pre+name+"=") && a[:len(pre+name+"=")] == pre+name+"=":
					dst, val, has = p.field(name), a[len(pre+name+"="):], true
				}
			}
		}
		if dst == nil {
			break
		}
		if !has {
			if len(args) < 2 {
				return p, nil, fmt.Errorf("%s: expected a FILE after it", a)
			}
			val, args = args[1], args[1:]
		}
		*dst = val
		args = args[1:]
	}
	return p, args, nil
}

func (p *profileFlags) field(name string) *string {
	if name == "cpuprofile" {
		return &p.cpu
	}
	return &p.mem
}

// start begins the CPU profile.
func (p *profileFlags) start() error {
	if p.cpu == "" {
		return nil
	}
	fh, err := os.Create(p.cpu)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(fh); err != nil {
		fh.Close()
		return err
	}
	p.cpuFile = fh
	return nil
}

// stop ends the CPU profile and writes the heap profile (allocations since
// the start: go tool pprof -sample_index=alloc_space FILE).
func (p *profileFlags) stop(stderr io.Writer) {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			fmt.Fprintf(stderr, "simrun: --cpuprofile: %v\n", err)
		}
	}
	if p.mem == "" {
		return
	}
	fh, err := os.Create(p.mem)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: --memprofile: %v\n", err)
		return
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(fh, 0); err != nil {
		fmt.Fprintf(stderr, "simrun: --memprofile: %v\n", err)
	}
	fh.Close()
}
