package explore

import (
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
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
// whose start is declared complete (cpu.DeclareComplete, or
// cpu.DeclareCompleteUntil: wherever it ends), each changed leaf must lie inside an
// object the fragment annotated a write or an add of (CPU.Access with a
// writing op, or a sync's Release/Acquire): otherwise it is a violation,
// named by the leaf's path from the roots.
//
// It sees writes only. A read leaves nothing to compare, so the reads a
// declaration vouches for stay a matter of reading the code; and a write
// that puts back the value a leaf had at the fragment's start is invisible
// too. Objects made in the fragment are seen through the pointer to them
// that changed; leaves that only the new object has are not compared. And
// it checks objects, not fields: a write to one field of an object the
// fragment annotated writing another field of passes. The component walk
// needs no more (it compares keys), but the dpor walk takes two fields of
// one key as independent, so that a write lands in the field its
// annotation names is, like the reads, a matter of reading the code.
type writeAudit struct {
	roots []any
	// skip: fields ("pkg.Type.field", as reflect spells the type; or
	// "pkg.Type": every field of that type) that
	// are not model state another context can see (the model's own
	// observation counters and oracles, the engine): neither compared nor
	// walked into.
	skip map[string]bool
	// skipTypes: the fields of these struct types (up to the next pointer)
	// are not compared (a CPU's own interrupt and lane bookkeeping).
	skipTypes map[reflect.Type]bool
	fields    map[reflect.Type][]auditField // each struct type's fields, skips marked

	task map[*cpu.Thread]string
	irq  map[porAgent]string

	start string // the open fragment's start ("": none yet)
	// unaudited: the open fragment reached a path marked unaudited
	// (cpu.CPU.Unaudited): it vouches for nothing, as if undeclared.
	unaudited bool
	writes    []span // what the open fragment annotated writing: object extents
	// leaves holds the last snapshot (and the next, as the walk takes it:
	// write_audit_table_test.go). The last was taken where the open fragment
	// started iff fresh (declaredOnly may skip a boundary's).
	leaves leafTable
	fresh  bool
	seen   map[visitKey]bool // the walk's pointers followed, kept to be cleared
	seed   maphash.Seed
	// declaredOnly: snapshot only at the boundaries that start or end a
	// fragment the audit checks (a declared start's), the only ones its
	// Violations and Checked depend on; a boundary between two undeclared
	// fragments is skipped, and so Changed then counts only the undeclared
	// fragments next to declared ones. The real-model runs (auditRunFile)
	// set it: the snapshot is the audit's whole cost.
	declaredOnly bool
	// Skipped counts the boundaries declaredOnly took no snapshot at.
	Skipped int

	// Violations: "fragment START: PATH changed with no write annotated".
	Violations []string
	// EndedElsewhere: fragments declared with cpu.DeclareCompleteUntil
	// that ended at another step point ("START -> END"): the walks refuse
	// them; the audit checked their writes all the same.
	EndedElsewhere []string
	until          map[*cpu.Thread]string
	// Checked counts, per declared fragment start, the fragments checked.
	Checked map[string]int
	// Changed counts, per undeclared fragment start, the leaves that
	// changed in it (what a declaration would have to annotate).
	Changed map[string]map[string]int
	// Snapshots and Leaves: how many snapshots were taken, and the leaves
	// of the largest.
	Snapshots, Leaves int
	// trace, if set, hears the size of every snapshot (debugging the audit).
	trace func(leaves int)
}

// span is the memory of one annotated object.
type span struct{ lo, hi uintptr }

// leafKey is a leaf's place: its address and what it is there (0: the
// value; a slice's or map's length, an interface's type, a byte slice's
// contents); for a value with no address (a map's entry), the address of
// the map's holder and a hash of its path.
type leafKey struct {
	addr uintptr
	tag  uint64
}

// The tags of an address's other leaves.
const (
	tagLen uint64 = 1 + iota
	tagType
	tagBytes
)

// newWriteAudit audits the state reachable from roots; skip are the
// fields ("pkg.Type.field") of state no declaration need annotate.
func newWriteAudit(roots []any, skip ...string) *writeAudit {
	sk := map[string]bool{}
	for _, f := range skip {
		sk[f] = true
	}
	return &writeAudit{roots: roots, skip: sk, until: map[*cpu.Thread]string{}, skipTypes: map[reflect.Type]bool{}, fields: map[reflect.Type][]auditField{}, task: map[*cpu.Thread]string{}, irq: map[porAgent]string{},
		seed: maphash.MakeSeed(), Checked: map[string]int{}, Changed: map[string]map[string]int{}}
}

// Boundary implements cpu.SegmentListener: the open fragment ends here.
func (a *writeAudit) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	if kind == cpu.BoundaryStep && ctx == cpu.CtxTask && th != nil {
		if start, ok := a.until[th]; ok {
			delete(a.until, th)
			if ends, _ := cpu.CompleteUntil(start); !slices.Contains(ends, label) {
				a.EndedElsewhere = append(a.EndedElsewhere, start+" -> "+label)
			}
		}
		if _, ok := cpu.CompleteUntil(label); ok && !cpu.IsComplete(label) {
			a.until[th] = label
		}
	}
	next := fragmentStart(a.task, a.irq, kind, porAgent{c.ID, ctx}, th, label)
	if next == "" {
		next = fmt.Sprintf("(a %s fragment with no start)", ctx)
	}
	a.end(a.declared(next, false))
	a.start = next
}

// end ends the open fragment at a boundary: a snapshot when it or the next
// (nextDeclared) is one the audit checks, or when it checks every one.
func (a *writeAudit) end(nextDeclared bool) {
	if !a.declaredOnly || a.declared(a.start, a.unaudited) || nextDeclared {
		a.close()
	} else {
		a.skipBoundary()
	}
}

// Other implements cpu.OtherListener: a lane of no CPU (the outcome
// sampler) opens a fragment nobody declared: what it writes is its own.
func (a *writeAudit) Other(lane int, name string) {
	a.end(false)
	a.start = "other:" + name
}

// declared reports whether a fragment from start is one the audit checks:
// declared complete (or complete until some step points), and not having
// reached unaudited code.
func (a *writeAudit) declared(start string, unaudited bool) bool {
	if start == "" || unaudited {
		return false
	}
	_, until := cpu.CompleteUntil(start)
	return until || cpu.IsComplete(start)
}

// skipBoundary ends an undeclared fragment that an undeclared one follows
// (declaredOnly) with no snapshot: nothing compares either's state, so the
// next snapshot has no baseline to compare with (fresh false).
func (a *writeAudit) skipBoundary() {
	a.Skipped++
	a.fresh, a.writes, a.unaudited = false, a.writes[:0], false
}

// Touch implements cpu.SegmentListener.
func (a *writeAudit) Touch(obj any, _ string, write bool) {
	if _, ok := obj.(cpu.Unaudited); ok {
		a.unaudited = true
		return
	}
	if write {
		a.note(obj)
	}
}

// TouchAdd implements cpu.AddListener.
func (a *writeAudit) TouchAdd(obj any, _ string) { a.note(obj) }

// note records the extent of a written object (a pointer's target).
func (a *writeAudit) note(obj any) {
	if x, ok := obj.(interface{ FootprintExtent() []any }); ok {
		for _, o := range x.FootprintExtent() { // a key that names memory spread over the model (sched's rqKey)
			a.note(o)
		}
		return
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return // a global's name (cpu.KeyName): nothing of the roots'
	}
	lo := v.Pointer()
	a.writes = append(a.writes, span{lo, lo + max(v.Type().Elem().Size(), 1)})
	a.noteArrays(v.Elem(), 0)
}

// noteArrays adds the backing arrays of the slices a written object holds
// by value (in its fields, and their struct and array values: not behind a
// pointer), and of the slices those hold: an object's own arrays (the
// ring buffer's pages, rb->aux_pages[]) are the object's.
func (a *writeAudit) noteArrays(v reflect.Value, depth int) {
	if depth > 4 {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if k := v.Field(i).Kind(); k == reflect.Struct || k == reflect.Array || k == reflect.Slice {
				a.noteArrays(v.Field(i), depth+1)
			}
		}
	case reflect.Array:
		if k := v.Type().Elem().Kind(); k == reflect.Struct || k == reflect.Array || k == reflect.Slice {
			for i := range v.Len() {
				a.noteArrays(v.Index(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 {
			return
		}
		lo := v.Pointer()
		a.writes = append(a.writes, span{lo, lo + uintptr(v.Cap())*max(v.Type().Elem().Size(), 1)})
		if v.Type().Elem().Kind() == reflect.Slice {
			for i := range v.Len() {
				a.noteArrays(v.Index(i), depth+1)
			}
		}
	}
}

// finish ends the audit when the run ends. The last fragment is not
// compared: what ran after the last boundary includes the run's own end
// (the runner's outcome checks, perf's parse of its file, the threads
// unwound), which is no CPU's fragment.
func (a *writeAudit) finish() {
	a.start = ""
	if a.declaredOnly {
		a.skipBoundary() // a snapshot nothing would compare with
		return
	}
	a.close()
}

// close compares the state with the open fragment's start and takes the
// next snapshot.
func (a *writeAudit) close() {
	if a.seen == nil {
		a.seen = map[visitKey]bool{}
	}
	clear(a.seen)
	a.leaves.begin()
	w := auditWalk{a: a, seen: a.seen}
	for i, r := range a.roots {
		w.path = []pathElem{{name: fmt.Sprintf("root%d", i)}}
		w.hash = []uint64{uint64(i)}
		w.value(reflect.ValueOf(r), 0)
	}
	a.Snapshots++
	a.Leaves = max(a.Leaves, w.leaves)
	if a.trace != nil {
		a.trace(w.leaves)
	}
	if a.fresh && a.start != "" {
		declared := a.declared(a.start, a.unaudited)
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
	a.fresh = true
	a.writes, a.unaudited = a.writes[:0], false
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

var auditType = reflect.TypeFor[*writeAudit]()

type visitKey struct {
	addr uintptr
	typ  reflect.Type
}

// auditWalk is one snapshot.
type auditWalk struct {
	a       *writeAudit
	seen    map[visitKey]bool
	path    []pathElem
	hash    []uint64 // hash[i]: the hash of path[:i+1]
	changed []changedLeaf
	leaves  int
	skipped int // > 0: inside a skipped type's fields
}

// pathElem is one step of a leaf's path from the roots, made a string only
// when a report needs it.
type pathElem struct {
	kind byte // '.': a field (name), '[': an index (i) or a map key (key), '(': an interface's type, '>': a pointer
	name string
	i    int
	typ  reflect.Type
	key  reflect.Value
}

func (e pathElem) String() string {
	switch e.kind {
	case '.':
		return "." + e.name
	case '[':
		if e.key.IsValid() {
			return "[" + keyName(e.key) + "]"
		}
		return "[" + strconv.Itoa(e.i) + "]"
	case '(':
		return "(" + e.typ.String() + ")"
	case '>':
		return "->"
	}
	return e.name
}

// auditField is a struct field's name and whether the audit skips it.
type auditField struct {
	name string
	skip bool
}

// fieldsOf returns t's fields, cached.
func (a *writeAudit) fieldsOf(t reflect.Type) []auditField {
	if f, ok := a.fields[t]; ok {
		return f
	}
	f := make([]auditField, t.NumField())
	for i := range f {
		f[i].name = t.Field(i).Name
		f[i].skip = a.skip[t.String()+"."+f[i].name] || a.skip[t.Field(i).Type.String()]
	}
	a.fields[t] = f
	return f
}

type changedLeaf struct {
	addr uintptr
	path string
}

func (w *auditWalk) pathString() string {
	var b strings.Builder
	for _, e := range w.path {
		b.WriteString(e.String())
	}
	return b.String()
}

// push adds e to the path; h identifies e among its siblings.
func (w *auditWalk) push(e pathElem, h uint64) {
	w.path = append(w.path, e)
	w.hash = append(w.hash, (w.hash[len(w.hash)-1]^h)*0x100000001b3+uint64(e.kind))
}

func (w *auditWalk) pop() {
	w.path = w.path[:len(w.path)-1]
	w.hash = w.hash[:len(w.hash)-1]
}

// leaf records one value: at its address (tag tells a slice's or map's
// length, an interface's type, from its contents), or for a value with
// none (inside a map) under base and its path.
func (w *auditWalk) leaf(v reflect.Value, base uintptr, tag uint64, h uint64) {
	w.leaves++
	if w.skipped > 0 {
		return
	}
	var k leafKey
	if v.CanAddr() {
		k = leafKey{addr: v.UnsafeAddr(), tag: tag}
	} else {
		k = leafKey{addr: base, tag: w.hash[len(w.hash)-1]*31 + tag}
	}
	if old, ok := w.a.leaves.put(k, h); ok && w.a.fresh && old != h {
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
		w.leaf(v, base, 0, b2u(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.leaf(v, base, 0, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.leaf(v, base, 0, v.Uint())
	case reflect.Float32, reflect.Float64:
		w.leaf(v, base, 0, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		w.leaf(v, base, 0, math.Float64bits(real(c))^math.Float64bits(imag(c))*31)
	case reflect.String:
		w.leaf(v, base, 0, maphash.String(w.a.seed, v.String()))
	case reflect.Pointer:
		if v.Type() == auditType {
			return // the audit itself, installed on the machine
		}
		if v.IsNil() {
			w.leaf(v, base, 0, 0)
			return
		}
		w.leaf(v, base, 0, uint64(v.Pointer()))
		k := visitKey{v.Pointer(), v.Type()}
		if w.seen[k] {
			return
		}
		w.seen[k] = true
		w.push(pathElem{kind: '>'}, 0)
		skipped := w.skipped
		w.skipped = 0 // a skipped type's pointee is state of its own
		w.value(v.Elem(), base)
		w.skipped = skipped
		w.pop()
	case reflect.Interface:
		if v.IsNil() {
			w.leaf(v, base, tagType, 0)
			return
		}
		e := v.Elem()
		w.leaf(v, base, tagType, maphash.Comparable(w.a.seed, e.Type()))
		w.push(pathElem{kind: '(', typ: e.Type()}, 0)
		w.value(e, base)
		w.pop()
	case reflect.Struct:
		skip := w.a.skipTypes[v.Type()]
		if skip {
			w.skipped++
		}
		for i, f := range w.a.fieldsOf(v.Type()) {
			if f.skip {
				continue
			}
			w.push(pathElem{kind: '.', name: f.name}, uint64(i))
			w.value(v.Field(i), base)
			w.pop()
		}
		if skip {
			w.skipped--
		}
	case reflect.Array:
		for i := range v.Len() {
			w.push(pathElem{kind: '[', i: i}, uint64(i))
			w.value(v.Index(i), base)
			w.pop()
		}
	case reflect.Slice:
		w.leaf(v, base, tagLen, uint64(v.Len()))
		if v.IsNil() || v.Len() == 0 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// A byte slice is one leaf at its first byte: its hash.
			w.leaf(v.Index(0), base, tagBytes, maphash.Bytes(w.a.seed, v.Bytes()))
			return
		}
		for i := range v.Len() {
			w.push(pathElem{kind: '[', i: i}, uint64(i))
			w.value(v.Index(i), base)
			w.pop()
		}
	case reflect.Map:
		if v.IsNil() {
			w.leaf(v, base, tagLen, 0)
			return
		}
		// A map's entries have no address: they are leaves of the map's
		// holder, by their key's name (sorted: map order is random).
		w.leaf(v, base, tagLen, uint64(v.Len()))
		for it := v.MapRange(); it.Next(); {
			w.push(pathElem{kind: '[', key: it.Key()}, keyHash(w.a.seed, it.Key()))
			w.value(it.Value(), base)
			w.pop()
		}
	}
}

// keyHash identifies a map key: a pointer by its address, anything else
// by its value.
func keyHash(seed maphash.Seed, k reflect.Value) uint64 {
	switch k.Kind() {
	case reflect.Pointer, reflect.UnsafePointer:
		return uint64(k.Pointer())
	case reflect.String:
		return maphash.String(seed, k.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(k.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return k.Uint()
	case reflect.Bool:
		return b2u(k.Bool())
	}
	return maphash.String(seed, keyName(k))
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
