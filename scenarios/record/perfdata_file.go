package record

import (
	"encoding/binary"
	"io"
)

// perfFileMagic is "PERFILE2" read as a little-endian u64 (PERF_MAGIC).
const perfFileMagic = 0x32454c4946524550

// perfFileHeaderSize is sizeof(struct perf_file_header): magic, size,
// attr_size, three perf_file_sections and the 256-bit adds_features bitmap.
const perfFileHeaderSize = 8 + 8 + 8 + 3*16 + 32

// WriteFile writes d as a perf.data file the real perf script and perf
// report read: the header, each attr's ids, the attrs (perf_file_attr: the
// attr as perf passed it to perf_event_open(), at its size, then the section
// of its ids),
// then the data section, then the feature sections: HEADER_TRACING_DATA
// when there are tracepoints (their formats, for perf script to print their
// fields); no other (event names come from the attrs; no build ids).
// tools/perf/util/header.c: perf_session__write_header()
func (d *PerfData) WriteFile(w io.Writer) error {
	le := binary.LittleEndian
	attrSize := uint64(0)
	for i := range d.Attrs {
		attrSize = max(attrSize, uint64(d.Attrs[i].Attr.Size))
	}
	if attrSize == 0 {
		attrSize = 64 // PERF_ATTR_SIZE_VER0
	}
	fileAttrSize := attrSize + 16

	// [header][ids of every attr][attrs][data]
	off := uint64(perfFileHeaderSize)
	idOff := make([]uint64, len(d.Attrs))
	var ids []byte
	for i := range d.Attrs {
		idOff[i] = off + uint64(len(ids))
		for _, id := range d.Attrs[i].IDs {
			ids = le.AppendUint64(ids, id)
		}
	}
	attrsOff := off + uint64(len(ids))
	var attrs []byte
	for i := range d.Attrs {
		// read_attr() reads attr.size bytes, then the ids section: the
		// evsels of one perf share the size, so attrs.size / attr_size
		// counts them.
		a := d.Attrs[i].Attr
		b := a.Marshal()
		if n := int(a.Size); n > 0 && n < len(b) {
			b = b[:n]
		}
		attrs = append(attrs, b...)
		attrs = le.AppendUint64(attrs, idOff[i])
		attrs = le.AppendUint64(attrs, uint64(8*len(d.Attrs[i].IDs)))
	}
	dataOff := attrsOff + uint64(len(attrs))

	h := make([]byte, 0, perfFileHeaderSize)
	h = le.AppendUint64(h, perfFileMagic)
	h = le.AppendUint64(h, perfFileHeaderSize)
	h = le.AppendUint64(h, fileAttrSize)
	h = le.AppendUint64(h, attrsOff)
	h = le.AppendUint64(h, uint64(len(attrs)))
	h = le.AppendUint64(h, dataOff)
	h = le.AppendUint64(h, uint64(len(d.Data)))
	h = append(h, make([]byte, 16)...) // event_types (unused)
	// Feature sections after the data: a perf_file_section per feature bit
	// set, in bit order, then their contents (perf_header__adds_write()).
	var feats []byte
	var features uint64
	if tps := d.sessionTracepoints(); len(tps) > 0 {
		features |= 1 << headerFeatTracingData
		td := tracingData(tps)
		featOff := dataOff + uint64(len(d.Data))
		feats = le.AppendUint64(feats, featOff+16) // after the one-entry table
		feats = le.AppendUint64(feats, uint64(len(td)))
		feats = append(feats, td...)
	}
	h = le.AppendUint64(h, features) // adds_features[0]
	h = append(h, make([]byte, 24)...)
	for _, b := range [][]byte{h, ids, attrs, d.Data, feats} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
