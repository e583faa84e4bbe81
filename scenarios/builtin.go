package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// The built-in scenarios, embedded so `simrun run NAME` works from any directory.
// Each builtin/NAME.sim is run by TestBuiltins and must meet its outcomes.
//
// The perf built-ins (rb-*, pmu-*, seed-close-benchmark) run on DefaultPerf:
// a built-in must check against NewRegistry(f, DefaultPerf). TestBuiltins
// runs each in every knob variant its outcomes name.
//
//go:embed builtin/*.sim
var builtinFS embed.FS

// Builtin is one built-in scenario.
type Builtin struct {
	Name  string // the file name without .sim, which is also its scenario name
	Title string
	Src   []byte
}

// Builtins returns the built-in scenarios sorted by name.
func Builtins() []Builtin {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var out []Builtin
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sim") {
			continue
		}
		src, err := builtinFS.ReadFile("builtin/" + e.Name())
		if err != nil {
			continue
		}
		b := Builtin{Name: strings.TrimSuffix(e.Name(), ".sim"), Src: src}
		if f, _ := Parse(e.Name(), src); f != nil && f.Title != nil {
			b.Title = f.Title.Text
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupBuiltin returns the built-in scenario called name.
func LookupBuiltin(name string) (Builtin, bool) {
	for _, b := range Builtins() {
		if b.Name == name {
			return b, true
		}
	}
	return Builtin{}, false
}

// Source is a scenario's text and the name its errors use.
type Source struct {
	Name    string // "path/x.sim", or "builtin/NAME.sim"
	Src     []byte
	Builtin bool
}

// Open finds a scenario: an existing file at arg, else a built-in called arg
// (with or without .sim).
func Open(arg string) (*Source, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		src, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		return &Source{Name: arg, Src: src}, nil
	}
	if b, ok := LookupBuiltin(strings.TrimSuffix(path.Base(arg), ".sim")); ok && !strings.ContainsAny(arg, `/\`) {
		return &Source{Name: "builtin/" + b.Name + ".sim", Src: b.Src, Builtin: true}, nil
	}
	names := make([]string, 0)
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	if hint := didYouMean(strings.TrimSuffix(path.Base(arg), ".sim"), names); hint != "" && !strings.ContainsAny(arg, `/\`) {
		return nil, fmt.Errorf("%s: no such file, and no built-in scenario of that name%s", arg, hint)
	}
	return nil, fmt.Errorf("%s: no such file, and no built-in scenario of that name (built-ins: %s)", arg, strings.Join(names, ", "))
}

// Load parses and checks a scenario against the registry newRegistry makes for
// it (the runner's, which knows the simulator's names). Parse and check errors
// come back as an ErrorList (each *Error has its Snippet).
func (s *Source) Load(newRegistry func(*File) Registry) (*File, error) {
	f, err := Parse(s.Name, s.Src)
	if err != nil {
		return nil, err
	}
	var list ErrorList
	for _, e := range Check(f, newRegistry(f)) {
		var ce *Error
		if errors.As(e, &ce) {
			list = append(list, ce)
		}
	}
	if len(list) > 0 {
		return nil, list
	}
	return f, nil
}
