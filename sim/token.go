package sim

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// The replay token is the decision list in a compact, copy-pasteable form:
//
//	"s2." base64url(uvarint(len) stream crc32)
//
// without padding. The stream is a uvarint stream: most decisions are zero, so
// runs of zeros are stored as a pair (0, count); any other decision d is stored
// as d+1 (so values never collide with the zero marker). len is the number of
// decisions and crc32 (IEEE, big-endian) covers len and the stream, so a token
// cut short or mistyped is an error, not another schedule.
//
// A token ends at its last non-zero decision: a replay answers every
// question past the list with 0, the default, so trailing zeros name no
// other schedule, and one schedule has one spelling whether it was written
// from a shrunk list or from the run that replayed it.
//
// "s1." tokens (the stream alone, written before the check was added) still
// decode; they carry no check, so a cut one may decode to a shorter list.
const (
	tokenPrefix   = "s2."
	tokenPrefixV1 = "s1."
)

// EncodeToken returns the replay token of decisions, without its trailing
// zeros.
func EncodeToken(decisions []int) string {
	for len(decisions) > 0 && decisions[len(decisions)-1] == 0 {
		decisions = decisions[:len(decisions)-1]
	}
	buf := binary.AppendUvarint(nil, uint64(len(decisions)))
	buf = appendStream(buf, decisions)
	buf = binary.BigEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

// EncodeSparseToken is EncodeToken of a list of decisions all zero but
// d[i] at index at[i] (at ascending, d non-zero), however long the list:
// the same token, without making the list (a long run's list is 8 bytes a
// decision), which ends at its last non-zero decision.
func EncodeSparseToken(at, d []int) string {
	n := 0
	if len(at) > 0 {
		n = at[len(at)-1] + 1
	}
	buf := binary.AppendUvarint(nil, uint64(n))
	pos := 0
	for i, a := range at {
		if a > pos {
			buf = binary.AppendUvarint(buf, 0)
			buf = binary.AppendUvarint(buf, uint64(a-pos))
		}
		buf = binary.AppendUvarint(buf, uint64(d[i])+1)
		pos = a + 1
	}
	if n > pos {
		buf = binary.AppendUvarint(buf, 0)
		buf = binary.AppendUvarint(buf, uint64(n-pos))
	}
	buf = binary.BigEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

func appendStream(buf []byte, decisions []int) []byte {
	for i := 0; i < len(decisions); {
		d := decisions[i]
		if d == 0 {
			j := i
			for j < len(decisions) && decisions[j] == 0 {
				j++
			}
			buf = binary.AppendUvarint(buf, 0)
			buf = binary.AppendUvarint(buf, uint64(j-i))
			i = j
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(d)+1)
		i++
	}
	return buf
}

// maxTokenDecisions bounds the decision list a token may hold.
const maxTokenDecisions = 1 << 24

// DecodeToken parses a replay token made by EncodeToken (or an "s1." token of
// an earlier version).
func DecodeToken(tok string) ([]int, error) {
	tok = strings.TrimSpace(tok)
	switch {
	case strings.HasPrefix(tok, tokenPrefix):
		// Strict: the unused bits of the last character must be zero, so
		// every token has one spelling and a changed last character is caught.
		raw, err := base64.RawURLEncoding.Strict().DecodeString(tok[len(tokenPrefix):])
		if err != nil {
			return nil, fmt.Errorf("replay token: %v", err)
		}
		if len(raw) < 5 {
			return nil, errors.New("replay token: too short: cut off, or not a token")
		}
		body, sum := raw[:len(raw)-4], binary.BigEndian.Uint32(raw[len(raw)-4:])
		if crc32.ChecksumIEEE(body) != sum {
			return nil, errors.New("replay token: checksum mismatch: the token was cut short or changed")
		}
		n, k := binary.Uvarint(body)
		if k <= 0 || n > maxTokenDecisions {
			return nil, errors.New("replay token: bad decision count")
		}
		out, err := decodeStream(body[k:], int(n))
		if err != nil {
			return nil, err
		}
		if len(out) != int(n) {
			return nil, fmt.Errorf("replay token: %d decisions, the token says %d", len(out), n)
		}
		return out, nil
	case strings.HasPrefix(tok, tokenPrefixV1):
		raw, err := base64.RawURLEncoding.DecodeString(tok[len(tokenPrefixV1):])
		if err != nil {
			return nil, fmt.Errorf("replay token: %v", err)
		}
		return decodeStream(raw, 0)
	}
	return nil, fmt.Errorf("replay token %q: expected it to start with %q", tok, tokenPrefix)
}

// decodeStream decodes the uvarint stream of a token; capHint sizes the list.
func decodeStream(raw []byte, capHint int) ([]int, error) {
	var out []int
	if capHint > 0 {
		out = make([]int, 0, min(capHint, 1<<16))
	}
	for len(raw) > 0 {
		v, n := binary.Uvarint(raw)
		if n <= 0 {
			return nil, errors.New("replay token: truncated value")
		}
		raw = raw[n:]
		if v != 0 {
			if v > 1<<31 {
				return nil, fmt.Errorf("replay token: decision %d out of range", v-1)
			}
			if len(out) >= maxTokenDecisions {
				return nil, errors.New("replay token: too many decisions")
			}
			out = append(out, int(v-1))
			continue
		}
		c, n := binary.Uvarint(raw)
		if n <= 0 {
			return nil, errors.New("replay token: zero run without a count")
		}
		raw = raw[n:]
		// 16M decisions is far more than a run makes; a larger count is a
		// corrupt (or hostile) token that would allocate gigabytes.
		if c > maxTokenDecisions || uint64(len(out))+c > maxTokenDecisions {
			return nil, fmt.Errorf("replay token: zero run of %d is too long", c)
		}
		for ; c > 0; c-- {
			out = append(out, 0)
		}
	}
	return out, nil
}
