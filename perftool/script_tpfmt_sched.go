package perftool

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// schedTpPrint renders the sched:* tracepoints as libtraceevent renders
// their print fmt (schedPrintFmts): %s of a char[16] field or of
// __get_str() (a __data_loc string), sched_switch's prev_state through its
// __print_flags() and "+" for a preemption, group_dead as true/false. It
// reports false for any other tracepoint.
// tools/lib/traceevent/event-parse.c: pretty_print(), print_str_arg() (PRINT_FLAGS, PRINT_STRING)
func schedTpPrint(tp *Tracepoint, raw []byte) (string, bool) {
	if tp.System != "sched" {
		return "", false
	}
	le := binary.LittleEndian
	i32 := func(off int) int32 {
		if off+4 > len(raw) {
			return 0
		}
		return int32(le.Uint32(raw[off:]))
	}
	arr := func(off int) string {
		if off+16 > len(raw) {
			return ""
		}
		b := raw[off : off+16]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	loc := func(off int) string { // __get_str(): offset | len << 16
		if off+4 > len(raw) {
			return ""
		}
		v := le.Uint32(raw[off:])
		o, n := int(v&0xffff), int(v>>16)
		if o+n > len(raw) || n == 0 {
			return ""
		}
		b := raw[o : o+n]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	switch tp.Name {
	case "sched_switch":
		var state uint64
		if len(raw) >= 40 {
			state = le.Uint64(raw[32:])
		}
		return fmt.Sprintf("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d",
			arr(8), i32(24), i32(28), switchState(state), map[bool]string{true: "+", false: ""}[state&0x100 != 0],
			arr(40), i32(56), i32(60)), true
	case "sched_wakeup", "sched_wakeup_new":
		return fmt.Sprintf("comm=%s pid=%d prio=%d target_cpu=%03d", arr(8), i32(24), i32(28), i32(32)), true
	case "sched_migrate_task":
		return fmt.Sprintf("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", loc(8), i32(12), i32(16), i32(20), i32(24)), true
	case "sched_process_fork":
		return fmt.Sprintf("comm=%s pid=%d child_comm=%s child_pid=%d", loc(8), i32(12), loc(16), i32(20)), true
	case "sched_process_exec":
		return fmt.Sprintf("filename=%s pid=%d old_pid=%d", loc(8), i32(12), i32(16)), true
	case "sched_process_exit":
		dead := "false"
		if len(raw) > 32 && raw[32] != 0 {
			dead = "true"
		}
		return fmt.Sprintf("comm=%s pid=%d prio=%d group_dead=%s", arr(8), i32(24), i32(28), dead), true
	case "sched_stat_runtime":
		var rt uint64
		if len(raw) >= 24 {
			rt = le.Uint64(raw[16:])
		}
		return fmt.Sprintf("comm=%s pid=%d runtime=%d [ns]", loc(8), i32(12), rt), true
	}
	return "", false
}

// switchState is sched_switch's prev_state as its print fmt shows it:
// __print_flags(state & 0xff, "|", {1,"S"},...,{0x80,"I"}), or "R".
func switchState(state uint64) string {
	s := state & 0xff
	if s == 0 {
		return "R"
	}
	names := []string{"S", "D", "T", "t", "X", "Z", "P", "I"}
	var out []string
	for i, n := range names {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "|")
}
