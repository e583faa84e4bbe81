package sim

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The replay token is the decision list in a compact, copy-pasteable form:
// "s1." followed by base64url (no padding) of a uvarint stream. Most decisions are
// zero, so runs of zeros are stored as a pair (0, count); any other decision d is
// stored as d+1 (so values never collide with the zero marker).
const tokenPrefix = "s1."

// EncodeToken returns the replay token of decisions.
func EncodeToken(decisions []int) string {
	var buf []byte
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
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

// maxTokenDecisions bounds the decision list a token may hold.
const maxTokenDecisions = 1 << 24

// DecodeToken parses a replay token made by EncodeToken.
func DecodeToken(tok string) ([]int, error) {
	tok = strings.TrimSpace(tok)
	if !strings.HasPrefix(tok, tokenPrefix) {
		return nil, fmt.Errorf("replay token %q: expected it to start with %q", tok, tokenPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok[len(tokenPrefix):])
	if err != nil {
		return nil, fmt.Errorf("replay token: %v", err)
	}
	var out []int
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
