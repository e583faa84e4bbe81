package perftool

// validateTarget models tools/perf/util/target.c: target__validate(): a -p
// target is a -t target of the process's threads ("if (target->pid)
// target->tid = target->pid;"); a task target overrides -C and -a, and -a/-C
// override --per-thread. cmd_record() warns with the first override only
// (ui__warning() of target__strerror(ret)).
func validateTarget(r *Record) {
	t := &r.Target
	if t.PID != nil {
		t.TID = t.PID
	}
	option, msg := "", ""
	first := func(o, m string) {
		if msg == "" {
			option, msg = o, m
		}
	}
	if t.TID != nil && t.CPUList != nil { // CPU and PID are mutually exclusive
		t.CPUList = nil
		first("-C", "PID/TID switch overriding CPU")
	}
	if t.TID != nil && t.SystemWide { // PID and SYSTEM are mutually exclusive
		t.SystemWide = false
		first("-a", "PID/TID switch overriding SYSTEM")
	}
	if t.PerThread && t.HasCPU() { // THREAD and SYSTEM/CPU are mutually exclusive
		t.PerThread = false
		first("--per-thread", "SYSTEM/CPU switch overriding PER-THREAD")
	}
	if msg != "" {
		r.warn(option, "Warning:\n"+msg) // ui__warning("%s\n", errbuf): "Warning:" on a line of its own
	}
}
