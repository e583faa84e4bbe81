package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClassCache: a cache answers what ClassOf answers, per subclass, and
// looks a renamed lock up again.
func TestClassCache(t *testing.T) {
	var cc ClassCache
	asks := []LockClass{
		{Name: "test->cache_a"}, {Name: "test->cache_a", Subclass: 1}, {Name: "test->cache_a"},
		{Name: "test->cache_b"}, {Name: "test->cache_a", Subclass: 1}, {Name: "test->cache_b", Subclass: 2},
	}
	var got, want []ClassID
	for _, cl := range asks {
		got = append(got, cc.Of(cl))
		want = append(want, ClassOf(cl))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ClassCache.Of (-ClassOf +cache):\n%s", diff)
	}
	if got[0] == got[1] || got[0] == got[3] || got[0] != got[2] {
		t.Errorf("ids %v: want subclasses and names apart, one name's subclass 0 the same", got)
	}
	var nilCache *ClassCache
	if id := nilCache.Of(asks[3]); id != want[3] {
		t.Errorf("nil cache: %v, want %v", id, want[3])
	}
}

func ExampleClassCache() {
	var m struct {
		Name    string
		classes ClassCache // the lock's: looked up once
	}
	m.Name = "example->mutex"
	first := m.classes.Of(LockClass{Name: m.Name})
	again := m.classes.Of(LockClass{Name: m.Name})
	fmt.Println(first == again, first == ClassOf(LockClass{Name: m.Name}), again.Class())
	// Output: true true example->mutex
}
