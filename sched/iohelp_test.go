package sched

import (
	"bytes"
	"io"
)

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
