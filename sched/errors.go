package sched

import "errors"

// ErrSearch is -ESRCH.
var ErrSearch = errors.New("no such process")
