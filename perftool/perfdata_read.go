package perftool

import (
	"encoding/binary"
	"fmt"

	"perfsim/rb"
	"perfsim/uapi"
)

// DataFile is a perf.data file as ReadDataFile parsed it: what perf's
// perf_session__open() reads before it processes the events.
type DataFile struct {
	AttrSize uint64          // the header's attr_size: an attr and its ids section
	Attrs    []ReadAttr      // the attrs section
	Data     []byte          // the data section
	Records  [][]byte        // the data section cut at each perf_event_header.size (and an AUXTRACE's data)
	Features uint64          // adds_features[0]
	Sections map[uint][]byte // the feature sections by bit
}

// ReadAttr is one perf_file_attr as read back: the attr bytes (attr_size - 16 of them)
// and the ids its section lists.
type ReadAttr struct {
	Attr []byte
	IDs  []uint64
}

// ReadDataFile parses b as perf.data: the header, the attrs and their ids,
// the data section record by record, and the feature sections. Every offset
// and size is checked against the file; an error says which and where.
// tools/perf/util/header.c: perf_session__read_header(), perf_header__process_sections()
func ReadDataFile(b []byte) (*DataFile, error) {
	le := binary.LittleEndian
	if len(b) < perfFileHeaderSize {
		return nil, fmt.Errorf("perf.data: %d bytes, shorter than the %d-byte header", len(b), perfFileHeaderSize)
	}
	attrSize, err := DataFileAttrSize(b)
	if err != nil {
		return nil, err
	}
	slice := func(name string, o, n uint64) ([]byte, error) {
		if o > uint64(len(b)) || n > uint64(len(b))-o {
			return nil, fmt.Errorf("perf.data: %s [%d, +%d) lies outside the %d-byte file", name, o, n, len(b))
		}
		return b[o : o+n], nil
	}
	f := &DataFile{AttrSize: attrSize + 16, Sections: map[uint][]byte{}}
	if f.AttrSize < 16+uapi.PERF_ATTR_SIZE_VER0 || f.AttrSize > 16+rb.PageSize {
		return nil, fmt.Errorf("perf.data: attr_size %d is not the size of a perf_file_attr", f.AttrSize)
	}
	attrs, err := slice("the attrs section", le.Uint64(b[24:]), le.Uint64(b[32:]))
	if err != nil {
		return nil, err
	}
	if uint64(len(attrs))%f.AttrSize != 0 {
		return nil, fmt.Errorf("perf.data: the attrs section (%d bytes) is not a whole number of %d-byte attrs", len(attrs), f.AttrSize)
	}
	for a := attrs; len(a) > 0; a = a[f.AttrSize:] {
		fa := ReadAttr{Attr: a[:f.AttrSize-16]}
		ids, err := slice(fmt.Sprintf("the ids of attr %d", len(f.Attrs)), le.Uint64(a[f.AttrSize-16:]), le.Uint64(a[f.AttrSize-8:]))
		if err != nil {
			return nil, err
		}
		if len(ids)%8 != 0 {
			return nil, fmt.Errorf("perf.data: the ids of attr %d are %d bytes, not a whole number of u64", len(f.Attrs), len(ids))
		}
		for ; len(ids) > 0; ids = ids[8:] {
			fa.IDs = append(fa.IDs, le.Uint64(ids))
		}
		f.Attrs = append(f.Attrs, fa)
	}
	dataOff, dataSize := le.Uint64(b[40:]), le.Uint64(b[48:])
	if f.Data, err = slice("the data section", dataOff, dataSize); err != nil {
		return nil, err
	}
	for d := f.Data; len(d) > 0; {
		if len(d) < rb.HeaderSize {
			return nil, fmt.Errorf("perf.data: %d bytes left at the end of the data section, less than a record header", len(d))
		}
		n := int(le.Uint16(d[6:]))
		if n < rb.HeaderSize || n > len(d) {
			return nil, fmt.Errorf("perf.data: record %d (type %d) at data offset %d has size %d, %d bytes left",
				len(f.Records), le.Uint32(d), len(f.Data)-len(d), n, len(d))
		}
		f.Records = append(f.Records, d[:n])
		skip := 0
		if le.Uint32(d) == RecordAuxtrace && n >= auxtraceRecordSize {
			// perf_session__process_user_event(): the AUX data follows
			if sz := le.Uint64(d[8:]); sz > uint64(len(d)-n) {
				return nil, fmt.Errorf("perf.data: PERF_RECORD_AUXTRACE %d at data offset %d carries %d bytes, %d left",
					len(f.Records)-1, len(f.Data)-len(d), sz, len(d)-n)
			} else {
				skip = int(sz)
			}
		}
		d = d[n+skip:]
	}
	// The feature sections follow the data: a perf_file_section per bit set,
	// in bit order (perf_header__process_sections()).
	f.Features = le.Uint64(b[72:])
	table := dataOff + dataSize
	for bit := uint(0); bit < 64; bit++ {
		if f.Features&(1<<bit) == 0 {
			continue
		}
		entry, err := slice(fmt.Sprintf("the section entry of feature %d", bit), table, 16)
		if err != nil {
			return nil, err
		}
		table += 16
		if f.Sections[bit], err = slice(fmt.Sprintf("feature %d", bit), le.Uint64(entry), le.Uint64(entry[8:])); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// DataFileAttrSize reads a perf.data header (its first 24 bytes are enough:
// magic, size, attr_size) and returns the size of the file's
// perf_event_attrs, attr_size less the ids section each perf_file_attr
// ends with. A perf whose struct perf_event_attr is smaller refuses the file.
// tools/perf/util/header.c: perf_file_header__read()
func DataFileAttrSize(head []byte) (uint64, error) {
	le := binary.LittleEndian
	if len(head) < 24 {
		return 0, fmt.Errorf("perf.data: %d bytes, shorter than the header's first 24", len(head))
	}
	if m := le.Uint64(head); m != perfFileMagic {
		return 0, fmt.Errorf("perf.data: magic %#x, want PERFILE2", m)
	}
	if hs := le.Uint64(head[8:]); hs != perfFileHeaderSize {
		return 0, fmt.Errorf("perf.data: header size %d, want %d", hs, perfFileHeaderSize)
	}
	n := le.Uint64(head[16:])
	if n < 16 {
		return 0, fmt.Errorf("perf.data: attr_size %d is not the size of a perf_file_attr", n)
	}
	return n - 16, nil
}
