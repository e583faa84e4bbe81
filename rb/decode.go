package rb

import (
	"encoding/binary"
	"fmt"
)

// ParseError is a record that does not parse: what a reader gets from torn or
// overwritten bytes.
type ParseError struct{ What string }

func (e *ParseError) Error() string { return "bad record: " + e.What }

func errTruncated(field string) error { return &ParseError{What: field + " runs past the record"} }
func errTrailing(n int) error {
	return &ParseError{What: fmt.Sprintf("%d bytes left after the last field", n)}
}
func errType(got, want uint32) error {
	return &ParseError{What: fmt.Sprintf("type %d, want %d", got, want)}
}
func errUnsupported(bits uint64) error {
	return fmt.Errorf("sample_type bits %#x are not modelled", bits)
}

// checkRecord validates the header against the bytes.
func checkRecord(rec []byte) (Header, error) {
	hdr, ok := ParseHeader(rec)
	if !ok {
		return hdr, errTruncated("header")
	}
	if int(hdr.Size) != len(rec) {
		return hdr, &ParseError{What: fmt.Sprintf("header.size %d but %d bytes", hdr.Size, len(rec))}
	}
	return hdr, nil
}

// decoder reads little-endian fields and remembers the first overrun.
type decoder struct {
	b   []byte
	err error
	// alias: bytes returns the record's own bytes, not a copy (a scratch
	// arena's decode, dropped before the record changes)
	alias bool
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) u32() uint32 {
	if len(d.b) < 4 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) bytes(n int) []byte {
	if n < 0 || len(d.b) < n {
		d.fail()
		return nil
	}
	var v []byte
	if d.alias {
		v = d.b[:n:n]
	} else {
		v = append([]byte(nil), d.b[:n]...)
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errTruncated("field")
	}
	d.b = nil
}
