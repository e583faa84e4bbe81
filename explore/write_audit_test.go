package explore

import (
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"perfsim/cpu"
)

// writeAudit checks cpu.DeclareComplete declarations against the code, in
// tests: a cpu.SegmentListener that, at every fragment boundary, snapshots
// the model state reachable from its roots by reflection (every leaf value
// by its address: an object is where it lives, never what it equals;
// pointers are followed once each, by a visited set; funcs, chans and
// unsafe pointers are skipped; strings and byte slices are hashed), and at
// the next boundary finds every leaf whose value changed. For a fragment
// whose start is declared complete, each changed leaf must lie inside an
// object the fragment annotated a write or an add of (CPU.Access with a
// writing op, or a sync's Release/Acquire): otherwise it is a violation,
// named by the leaf's path from the roots.
//
// It sees writes only. A read leaves nothing to compare, so the reads a
// declaration vouches for stay a matter of reading the code; and a write
// that puts back the value a leaf had at the fragment's start is invisible
// too. Objects made in the fragment are seen through the pointer to them
// that changed; leaves that only the new object has are not compared.
type writeAudit struct {
	roots []any
	// skip: leaves on these paths are not model state another context can
	// see (the model's own observation counters, the engine's clock); each
	// entry a path prefix, with why in the caller's comment.
	skip []string

	task map[*cpu.Thread]string
	irq  map[porAgent]string

	start  string // the open fragment's start ("": none yet)
	writes []span // what the open fragment annotated writing: object extents
	prev   map[leafKey]uint64
	seed   maphash.Seed

	// Violations: "fragment START: PATH changed with no write annotated".
	Violations []string
	// Checked counts, per declared fragment start, the fragments checked.
	Checked map[string]int
	// Changed counts, per undeclared fragment start, the leaves that
	// changed in it (what a declaration would have to annotate).
	Changed map[string]map[string]int
}

// span is the memory of one annotated object.
type span struct{ lo, hi uintptr }

// leafKey is a leaf's place: its address, or for a value with none (a
// map's entry) the address of the map and the entry's path.
type leafKey struct {
	addr uintptr
	path string
}

func newWriteAudit(roots []any, skip ...string) *writeAudit {
	return &writeAudit{roots: roots, skip: skip, task: map[*cpu.Thread]string{}, irq: map[porAgent]string{},
		seed: maphash.MakeSeed(), Checked: map[string]int{}, Changed: map[string]map[string]int{}}
}

// Boundary implements cpu.SegmentListener: the open fragment ends here.
func (a *writeAudit) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	a.close()
	a.start = fragmentStart(a.task, a.irq, kind, porAgent{c.ID, ctx}, th, label)
	if a.start == "" {
		a.start = fmt.Sprintf("(a %s fragment with no start)", ctx)
	}
}

// Touch implements cpu.SegmentListener.
func (a *writeAudit) Touch(obj any, _ string, write bool) {
	if write {
		a.note(obj)
	}
}

// TouchAdd implements cpu.AddListener.
func (a *writeAudit) TouchAdd(obj any, _ string) { a.note(obj) }

// note records the extent of a written object (a pointer's target).
func (a *writeAudit) note(obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return // a global's name (cpu.KeyName): nothing of the roots'
	}
	lo := v.Pointer()
	a.writes = append(a.writes, span{lo, lo + max(v.Type().Elem().Size(), 1)})
}

// finish checks the last fragment: call it when the run ends.
func (a *writeAudit) finish() { a.close() }

// close compares the state with the open fragment's start and takes the
// next snapshot.
func (a *writeAudit) close() {
	now := map[leafKey]uint64{}
	w := auditWalk{a: a, now: now, seen: map[visitKey]bool{}}
	for i, r := range a.roots {
		w.path = []string{fmt.Sprintf("root%d", i)}
		w.value(reflect.ValueOf(r), 0)
	}
	if a.prev != nil && a.start != "" {
		declared := cpu.IsComplete(a.start)
		if declared {
			a.Checked[a.start]++
		}
		for _, ch := range w.changed {
			if a.covered(ch.addr) {
				continue
			}
			if declared {
				a.Violations = append(a.Violations, fmt.Sprintf("fragment %s: %s changed with no write annotated", a.start, ch.path))
				continue
			}
			if a.Changed[a.start] == nil {
				a.Changed[a.start] = map[string]int{}
			}
			a.Changed[a.start][ch.path]++
		}
	}
	a.prev, a.writes = now, a.writes[:0]
}

// covered reports whether addr lies in an object the fragment wrote.
func (a *writeAudit) covered(addr uintptr) bool {
	for _, s := range a.writes {
		if addr >= s.lo && addr < s.hi {
			return true
		}
	}
	return false
}

type visitKey struct {
	addr uintptr
	typ  reflect.Type
}

// auditWalk is one snapshot.
type auditWalk struct {
	a       *writeAudit
	now     map[leafKey]uint64
	seen    map[visitKey]bool
	path    []string
	changed []changedLeaf
}

type changedLeaf struct {
	addr uintptr
	path string
}

func (w *auditWalk) pathString() string { return strings.Join(w.path, "") }

func (w *auditWalk) skipped() bool {
	if len(w.a.skip) == 0 {
		return false
	}
	p := w.pathString()
	for _, s := range w.a.skip {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// leaf records one value: at its address, or (none) under base and path.
func (w *auditWalk) leaf(v reflect.Value, base uintptr, h uint64) {
	k := leafKey{addr: base, path: w.pathString()}
	if v.CanAddr() {
		k = leafKey{addr: v.UnsafeAddr()}
	}
	w.now[k] = h
	if w.a.prev == nil {
		return
	}
	if old, ok := w.a.prev[k]; ok && old != h && !w.skipped() {
		addr := k.addr
		w.changed = append(w.changed, changedLeaf{addr: addr, path: w.pathString()})
	}
}

// value walks v; base is the address of the nearest addressable container
// (for the leaves that have none of their own).
func (w *auditWalk) value(v reflect.Value, base uintptr) {
	if v.CanAddr() {
		base = v.UnsafeAddr()
	}
	switch v.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Invalid:
		return
	case reflect.Bool:
		w.leaf(v, base, b2u(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.leaf(v, base, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.leaf(v, base, v.Uint())
	case reflect.Float32, reflect.Float64:
		w.leaf(v, base, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		w.leaf(v, base, math.Float64bits(real(c))^math.Float64bits(imag(c))*31)
	case reflect.String:
		w.leaf(v, base, maphash.String(w.a.seed, v.String()))
	case reflect.Pointer:
		if v.IsNil() {
			w.leaf(v, base, 0)
			return
		}
		w.leaf(v, base, uint64(v.Pointer()))
		k := visitKey{v.Pointer(), v.Type()}
		if w.seen[k] {
			return
		}
		w.seen[k] = true
		w.path = append(w.path, "->")
		w.value(v.Elem(), base)
		w.path = w.path[:len(w.path)-1]
	case reflect.Interface:
		if v.IsNil() {
			w.leaf(v, base, 0)
			return
		}
		e := v.Elem()
		w.path = append(w.path, "("+e.Type().String()+")")
		w.leaf(reflect.Value{}, base, maphash.String(w.a.seed, e.Type().String()))
		w.value(e, base)
		w.path = w.path[:len(w.path)-1]
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			w.path = append(w.path, "."+t.Field(i).Name)
			w.value(v.Field(i), base)
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Array:
		for i := range v.Len() {
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			w.value(v.Index(i), base)
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Slice:
		w.path = append(w.path, ".len")
		w.leaf(reflect.Value{}, base, uint64(v.Len()))
		w.path = w.path[:len(w.path)-1]
		if v.IsNil() || v.Len() == 0 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// A byte slice is one leaf at its first byte: its hash.
			w.leaf(v.Index(0), base, maphash.Bytes(w.a.seed, v.Bytes()))
			return
		}
		for i := range v.Len() {
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			w.value(v.Index(i), base)
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Map:
		if v.IsNil() {
			w.leaf(reflect.Value{}, base, 0)
			return
		}
		// A map's entries have no address: they are leaves of the map's
		// holder, by their key's name (sorted: map order is random).
		w.path = append(w.path, ".len")
		w.leaf(reflect.Value{}, base, uint64(v.Len()))
		w.path = w.path[:len(w.path)-1]
		type entry struct {
			name string
			val  reflect.Value
		}
		var es []entry
		for it := v.MapRange(); it.Next(); {
			es = append(es, entry{keyName(it.Key()), it.Value()})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
		for _, e := range es {
			w.path = append(w.path, "["+e.name+"]")
			w.value(e.val, base)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// keyName names a map key: a pointer by its address, anything else by
// its value.
func keyName(k reflect.Value) string {
	switch k.Kind() {
	case reflect.Pointer, reflect.UnsafePointer:
		return fmt.Sprintf("%#x", k.Pointer())
	case reflect.String:
		return strconv.Quote(k.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10)
	case reflect.Bool:
		return strconv.FormatBool(k.Bool())
	case reflect.Interface:
		if k.IsNil() {
			return "nil"
		}
		return k.Elem().Type().String() + ":" + keyName(k.Elem())
	case reflect.Struct:
		var parts []string
		for i := range k.NumField() {
			parts = append(parts, keyName(k.Field(i)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case reflect.Array:
		var parts []string
		for i := range k.Len() {
			parts = append(parts, keyName(k.Index(i)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return k.Type().String()
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
