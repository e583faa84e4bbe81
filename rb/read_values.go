package rb

import (
	"encoding/binary"
	"fmt"

	"perfsim/uapi"
)

// ReadValue is one value of a PERF_SAMPLE_READ part (or of read(2) on an
// event): the count, its PERF_FORMAT_ID (0 without) and PERF_FORMAT_LOST.
type ReadValue struct{ Value, ID, Lost uint64 }

// ReadValues splits a PERF_SAMPLE_READ part laid out for read_format rf,
// {value, [enabled], [running], [id], [lost]} or, with PERF_FORMAT_GROUP,
// {nr, [enabled], [running], nr x {value, [id], [lost]}}; a part whose length
// is not the one rf and nr give is refused.
// kernel/events/core.c: perf_output_read_one(), perf_output_read_group()
func ReadValues(b []byte, rf uint64) ([]ReadValue, error) {
	le := binary.LittleEndian
	words := len(b) / 8
	head := 0 // the words before the first value's: nr, enabled, running
	for _, f := range []uint64{uapi.PERF_FORMAT_TOTAL_TIME_ENABLED, uapi.PERF_FORMAT_TOTAL_TIME_RUNNING} {
		if rf&f != 0 {
			head++
		}
	}
	per := 1 // value, [id], [lost]
	for _, f := range []uint64{uapi.PERF_FORMAT_ID, uapi.PERF_FORMAT_LOST} {
		if rf&f != 0 {
			per++
		}
	}
	group := rf&uapi.PERF_FORMAT_GROUP != 0
	nr := 1
	if group {
		if words < 1 {
			return nil, fmt.Errorf("read part of %d bytes: no nr (read_format %#x)", len(b), rf)
		}
		nr = int(min(le.Uint64(b), uint64(words)))
		head++
	}
	if len(b)%8 != 0 || words != head+nr*per {
		return nil, fmt.Errorf("read part of %d bytes for %d values (read_format %#x)", len(b), nr, rf)
	}
	out := make([]ReadValue, nr)
	for i := range out {
		// value, then (alone) enabled and running, then id and lost
		at, rest := head+i*per, head+i*per+1
		if !group {
			at, rest = 0, head+1
		}
		out[i].Value = le.Uint64(b[8*at:])
		if rf&uapi.PERF_FORMAT_ID != 0 {
			out[i].ID = le.Uint64(b[8*rest:])
			rest++
		}
		if rf&uapi.PERF_FORMAT_LOST != 0 {
			out[i].Lost = le.Uint64(b[8*rest:])
		}
	}
	return out, nil
}
