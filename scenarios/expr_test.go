package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseOutcome parses one outcome line and returns its condition, its time
// ("end" or a duration) and the first error message.
func parseOutcome(line string) (cond, at, errMsg string) {
	f, err := Parse("e.sim", []byte(line+"\n"))
	if err != nil {
		e := err.(ErrorList)[0]
		return "", "", e.Error()
	}
	o := f.Outcomes[0]
	at = "end"
	if o.At != nil {
		at = FormatDuration(*o.At)
	}
	return o.Cond.String(), at, ""
}

func TestExprGrammar(t *testing.T) {
	tests := []struct {
		line string
		cond string
		at   string
	}{
		{"always a.b == 0", "(a.b == 0)", "end"},
		{"always inv-name", "inv-name", "end"},
		{"always a - b == c-d", "((a - b) == c-d)", "end"},
		{"always a-1 > 0", "(a-1 > 0)", "end"},
		{"always 4K-1 == x", "((4K - 1) == x)", "end"},
		{"always a + b * c - d / e > 0", "(((a + (b * c)) - (d / e)) > 0)", "end"},
		{"always a || b && c", "(a || (b && c))", "end"},
		{"always !a && -x < 0", "(!a && (-x < 0))", "end"},
		{"always !(a || b)", "!(a || b)", "end"},
		{"always (a)", "a", "end"},
		{"always a>=1&&b!=2", "((a >= 1) && (b != 2))", "end"},
		{"always x == 3_000_000 at end", "(x == 3_000_000)", "end"},
		{"sometimes aux.paused == 1 at 50ms", "(aux.paused == 1)", "50ms"},
		{"never x > 0x10 # comment", "(x > 0x10)", "end"},
		{"always a.b- c", "(a.b - c)", "end"},
		{"always cpu0.nmis <= 5us", "(cpu0.nmis <= 5us)", "end"},
		{"always r.perf.samples[syscalls:sys_enter_close]-1 > 0", "((r.perf.samples[syscalls:sys_enter_close] - 1) > 0)", "end"},
		{"always (perf.samples[cpu-clock/period=1000/]) == r.perf.samples[cs]*2", "(perf.samples[cpu-clock/period=1000/] == (r.perf.samples[cs] * 2))", "end"},
		{"always perf.samples[cycles:u]>=x.y # a comment", "(perf.samples[cycles:u] >= x.y)", "end"},
	}
	for _, tt := range tests {
		cond, at, errMsg := parseOutcome(tt.line)
		if errMsg != "" {
			t.Errorf("%q: %s", tt.line, errMsg)
			continue
		}
		if diff := cmp.Diff(tt.cond+" at "+tt.at, cond+" at "+at); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestExprLiteralValues(t *testing.T) {
	f, err := Parse("e.sim", []byte("always x == 4K + 5us + 0x10 + 1_000\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Lit:
			got = append(got, e.Value)
		case *Binary:
			walk(e.X)
			walk(e.Y)
		}
	}
	walk(f.Outcomes[0].Cond)
	if diff := cmp.Diff([]int64{4096, 5000, 16, 1000}, got); diff != "" {
		t.Errorf("literal values (-want +got):\n%s", diff)
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{"always a = 0", `e.sim:1:10: unexpected "="; did you mean ==?`},
		{"always a | b", `e.sim:1:10: unexpected "|"; did you mean ||?`},
		{"always (a", `e.sim:1:10: expected ) to close the ( at column 8, found end of line`},
		{"always a)", `e.sim:1:9: unbalanced ): no ( before it`},
		{"always a < b < c", `e.sim:1:14: comparisons do not chain: write a < b && b < c`},
		{"always", `e.sim:1:7: expected a condition like aux.paused == 0 or an invariant name`},
		{"always a b", `e.sim:1:10: expected an operator, at end or the end of the line, found "b"`},
		{"always a +", `e.sim:1:11: expected a number, a name like aux.paused or no-lost-records, or (, found end of line`},
		{"always a at", `e.sim:1:12: expected end or a time like 50ms after at, found end of line`},
		{"always a at end now", `e.sim:1:17: unexpected "now" after the outcome's time`},
		{"always a at 5", `e.sim:1:13: expected a duration like 5us or 2ms, found "5"`},
		{"always 5q", `e.sim:1:8: expected a number like 42, 4K or 5us, found "5q"`},
		{"always 99999999999999999999", `e.sim:1:8: number "99999999999999999999" is too large`},
		{"always a $ b", `e.sim:1:10: expected an operator, at end or the end of the line, found "$"`},
		{"always at end", `e.sim:1:8: expected a number, a name like aux.paused or no-lost-records, or (, found "at"`},
		{"always é", `e.sim:1:8: expected a number, a name like aux.paused or no-lost-records, or (, found non-ASCII character`},
	}
	for _, tt := range tests {
		_, _, got := parseOutcome(tt.line)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
}
