package simrapid

// This is the one production file of the project that imports testing, and
// only for testing.Init(): rapid.Check asks testing.Short(), which panics
// until the test flags are registered and parsed, and simrun, which runs
// rapid for explore --strategy rapid, is not a test binary.

import (
	"flag"
	"sync"
	"testing"
)

var flagsOnce sync.Once

// initFlags registers and parses the test flags outside a test binary: rapid
// asks testing.Short(), which panics until they are (simrun is not a test).
// This is the one place outside a test that touches package testing.
func initFlags() {
	flagsOnce.Do(func() {
		if flag.Lookup("test.short") == nil {
			testing.Init()
			if !flag.Parsed() {
				_ = flag.CommandLine.Parse(nil)
			}
		}
	})
}
