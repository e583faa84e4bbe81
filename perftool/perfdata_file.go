package perftool

import (
	"bytes"
	"encoding/binary"
	"fmt"
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
// then the data section, then the feature sections perf record writes
// (features: the simulated machine's).
// tools/perf/util/header.c: perf_session__write_header()
//
// The data section comes from Spool when the session spooled it (the whole
// of it, however large), else from Data; a data section that was dropped
// (over the keep budget) without a spool is an error.
func (d *PerfData) WriteFile(w io.Writer) error {
	le := binary.LittleEndian
	d.materialize() // the payloads' bytes (perfdata_lazy.go)
	data := io.Reader(bytes.NewReader(d.Data))
	dataSize := uint64(len(d.Data))
	switch {
	case d.Spool != nil:
		if d.spoolErr != nil {
			return fmt.Errorf("perf.data spool: %w", d.spoolErr)
		}
		if _, err := d.Spool.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("perf.data spool: %w", err)
		}
		data, dataSize = io.LimitReader(d.Spool, d.Written), uint64(d.Written)
	case d.Dropped:
		return fmt.Errorf("the data section (%d bytes) went over the %s of perf.data the simulator keeps in memory and was not kept: "+
			"ask for the perf.data before the run (simrun run --perf-data DIR writes it as it is recorded)", d.Written, d.keepLimit())
	}
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
	h = le.AppendUint64(h, dataSize)
	h = append(h, make([]byte, 16)...) // event_types (unused)
	// Feature sections after the data: a perf_file_section per feature bit
	// set, in bit order, then their contents (perf_header__adds_write()).
	fs := d.features(dataOff)
	var features uint64
	featOff := dataOff + dataSize
	next := featOff + uint64(16*len(fs))
	var table, blobs []byte
	for _, f := range fs {
		features |= 1 << f.bit
		table = le.AppendUint64(table, next)
		table = le.AppendUint64(table, uint64(len(f.data)))
		blobs = append(blobs, f.data...)
		next += uint64(len(f.data))
	}
	feats := append(table, blobs...)
	h = le.AppendUint64(h, features) // adds_features[0]
	h = append(h, make([]byte, 24)...)
	for _, b := range [][]byte{h, ids, attrs} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if n, err := io.Copy(w, data); err != nil {
		return err
	} else if uint64(n) != dataSize {
		return fmt.Errorf("perf.data spool: %d bytes of %d", n, dataSize)
	}
	_, err := w.Write(feats)
	return err
}

// headerFeatEventDesc is HEADER_EVENT_DESC, bit 12 of adds_features.
const headerFeatEventDesc = 12

// eventDesc is the HEADER_EVENT_DESC feature: {u32 nr, u32 attr size, then
// per evsel: the attr, u32 nr_ids, the name as a u32-length string padded to
// 64 bytes, the ids}.
// tools/perf/util/header.c: write_event_desc(), do_write_string()
func (d *PerfData) eventDesc() []byte {
	le := binary.LittleEndian
	sz := 64 // PERF_ATTR_SIZE_VER0
	for i := range d.Attrs {
		sz = max(sz, int(d.Attrs[i].Attr.Size))
	}
	b := le.AppendUint32(nil, uint32(len(d.Attrs)))
	b = le.AppendUint32(b, uint32(sz))
	for i := range d.Attrs {
		fa := &d.Attrs[i]
		a := fa.Attr.Marshal()
		if len(a) > sz {
			a = a[:sz]
		}
		b = append(b, a...)
		b = append(b, make([]byte, sz-len(a))...)
		b = le.AppendUint32(b, uint32(len(fa.IDs)))
		n := (len(fa.Name) + 1 + 63) &^ 63 // PERF_ALIGN(strlen + 1, NAME_ALIGN)
		b = le.AppendUint32(b, uint32(n))
		b = append(b, fa.Name...)
		b = append(b, make([]byte, n-len(fa.Name))...)
		for _, id := range fa.IDs {
			b = le.AppendUint64(b, id)
		}
	}
	return b
}
