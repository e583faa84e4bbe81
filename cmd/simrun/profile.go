package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
)

// profileFlags are simrun's global --cpuprofile FILE and --memprofile FILE,
// given before the command or among its flags (simrun --cpuprofile cpu.out
// explore NAME ..., or simrun explore NAME --cpuprofile cpu.out ...): pprof
// files of where the command spent its time and what it allocated (go tool
// pprof FILE).
type profileFlags struct {
	cpu, mem string
	cpuFile  *os.File
}

// cutProfileFlags takes the --cpuprofile/--memprofile flags (as --flag FILE
// or --flag=FILE, one or two dashes) off args, wherever they are before a
// "--" (after it every argument is the command's).
func cutProfileFlags(args []string) (profileFlags, []string, error) {
	var p profileFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		var dst *string
		var val string
		has := false
		for _, name := range []string{"cpuprofile", "memprofile"} {
			for _, pre := range []string{"-", "--"} {
				switch {
				case a == pre+name:
					dst = p.field(name)
				case strings.HasPrefix(a, pre+name+"=") && len(a) > len(pre+name+"="):
					dst, val, has = p.field(name), a[len(pre+name+"="):], true
				}
			}
		}
		if dst == nil {
			rest = append(rest, a)
			continue
		}
		if !has {
			if i+1 >= len(args) {
				return p, nil, fmt.Errorf("%s: expected a FILE after it", a)
			}
			i++
			val = args[i]
		}
		*dst = val
	}
	return p, rest, nil
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
