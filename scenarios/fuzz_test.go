package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse, Check and Dump never panic and that every error
// points inside the file. Seeds: the examples and the broken files.
//
//	go test -run=NONE -fuzz=FuzzParse ./scenarios/
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/examples/*.sim", "testdata/errors/*.sim"} {
		files, _ := filepath.Glob(pattern)
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Add([]byte("record -e 'a b' \"c\\\"d\" e\\ f \\\n  -- t\ntask t\n"))
	f.Add([]byte("when a=b\n  when c=d\n    never !(x-y - 3 * -z) || 0x10 >= 4K at 5us\n"))
	f.Add([]byte("task t\n  syscall mmap 0 4K PROT_READ MAP_PRIVATE|MAP_ANONYMOUS -1 0 as b\n  touch b 2 write\n  syscall prctl PR_SET_NAME \"w\" 0 0 0 2us\n"))
	f.Add([]byte("task t\n  syscall prctl PR_SET_NAME \"a b # c \\\"d\\\" \\q\" 0 0 0\n  syscall close \"x\"y\nrecord -p t,u -t v -e cpu-clock\n"))
	f.Add([]byte("always r.perf.samples[syscalls:sys_enter_close] - perf.samples[cpu-clock/period=1000/] > 0\nnever perf.samples[a[b] || x[]\n"))
	reg := testRegistry()
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.sim", src)
		if file == nil {
			t.Fatal("Parse returned a nil File")
		}
		nlines := len(splitLines(string(src)))
		inFile := func(what string, line, col int) {
			if line < 1 || line > nlines || col < 1 {
				t.Fatalf("%s at %d:%d is outside the %d-line file", what, line, col, nlines)
			}
		}
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 || len(list) > maxErrors+1 {
				t.Fatalf("Parse error %T with %d errors", err, len(list))
			}
			for _, e := range list {
				inFile("error "+e.Msg, e.Line, e.Col)
				if !strings.Contains(e.Snippet(), "^") {
					t.Fatalf("snippet without caret: %q", e.Snippet())
				}
			}
		}
		for _, r := range file.Records {
			for _, w := range r.Args {
				for i := 0; i <= len(w.Text); i++ {
					p := w.PosAt(i)
					inFile("record word", p.Line, p.Col)
				}
			}
		}
		_ = Dump(file)
		Check(file, nil)
		for _, e := range Check(file, reg) {
			ee := e.(*Error)
			inFile("check error "+ee.Msg, ee.Line, ee.Col)
		}
	})
}
