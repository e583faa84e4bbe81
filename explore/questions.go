package explore

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"perfsim/sim"
)

// Question is what the Chooser was asked at one decision: Choose(N, What).
type Question struct {
	What string
	N    int
}

func (q Question) String() string { return fmt.Sprintf("%s (%d options)", q.What, q.N) }

// Questions is the sequence of questions of a run, every decision's, kept as
// a table of the distinct questions (in order of first appearance) and, per
// decision, its index in the table. A replay file stores it whole, so a replay
// can stop at the first decision whose question differs and say which: the
// table is small (a scenario asks a few dozen distinct questions) and the
// index stream, deflated, is tiny, because runs repeat themselves (the 3M-call
// benchmark: 1,284,953 decisions, 14 distinct questions, 3.4 KB deflated).
type Questions struct {
	Table []Question
	ids   []uint32
	index map[Question]uint32
}

// Add appends the question of the next decision.
func (q *Questions) Add(n int, what string) {
	k := Question{what, n}
	id, ok := q.index[k]
	if !ok {
		if q.index == nil {
			q.index = map[Question]uint32{}
		}
		id = uint32(len(q.Table))
		q.Table = append(q.Table, k)
		q.index[k] = id
	}
	q.ids = append(q.ids, id)
}

// Len is the number of decisions.
func (q *Questions) Len() int { return len(q.ids) }

// At is the question of decision i (0-based).
func (q *Questions) At(i int) Question { return q.Table[q.ids[i]] }

// SHA256 is the hex SHA-256 of the sequence: every decision's option count
// and question, in order.
func (q *Questions) SHA256() string {
	h := sha256.New()
	var buf []byte
	for _, id := range q.ids {
		k := q.Table[id]
		buf = binary.AppendUvarint(buf, uint64(k.N))
		buf = binary.AppendUvarint(buf, uint64(len(k.What)))
		buf = append(buf, k.What...)
		if len(buf) >= 1<<16 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeIDs is the index stream as a replay file stores it: base64url (no
// padding) of the deflated uvarint stream.
func (q *Questions) encodeIDs() string {
	var raw []byte
	for _, id := range q.ids {
		raw = binary.AppendUvarint(raw, uint64(id))
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression) // the level is valid
	w.Write(raw)
	w.Close()
	return base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// maxQuestions bounds the decisions a replay file's question stream may hold
// (as maxTokenDecisions bounds a token's).
const maxQuestions = 1 << 24

// decodeIDs reads the index stream of n decisions over a table of size
// entries.
func decodeIDs(s string, n, size int) ([]uint32, error) {
	z, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	// A uvarint of an index below 2^24 is at most 4 bytes: read no more than
	// n of them could take, so a hostile stream cannot inflate without bound.
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), int64(4*n+1)))
	if err != nil {
		return nil, fmt.Errorf("not a deflated stream: %v", err)
	}
	ids := make([]uint32, 0, min(n, 1<<16))
	for len(raw) > 0 {
		v, k := binary.Uvarint(raw)
		if k <= 0 {
			return nil, errors.New("truncated index")
		}
		raw = raw[k:]
		if v >= uint64(size) {
			return nil, fmt.Errorf("decision %d asks question %d, but the table has %d", len(ids), v, size)
		}
		if len(ids) == n {
			return nil, fmt.Errorf("more than the %d decisions recorded", n)
		}
		ids = append(ids, uint32(v))
	}
	if len(ids) != n {
		return nil, fmt.Errorf("%d decisions, %d recorded", len(ids), n)
	}
	return ids, nil
}

// questionLog is a Chooser that keeps the questions of a run.
type questionLog struct {
	inner sim.Chooser
	q     Questions
}

// Choose implements sim.Chooser.
func (l *questionLog) Choose(n int, what string) int {
	l.q.Add(n, what)
	return l.inner.Choose(n, what)
}
