package perftool

// auxtraceInfoRecord is the session's PERF_RECORD_AUXTRACE_INFO, or nil
// without an AUX area.
func (ss *Session) auxtraceInfoRecord() []byte { return nil }
