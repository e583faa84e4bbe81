package explore

import (
	"errors"
	"fmt"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
)

// LimitStopError is a replay that stopped at the file's time limit. The
// recorded run ended before its limit (a run stopped at one has no verdict
// to record), so a replay stopped there is not the recorded run. When the
// file hashes its limit (limit-sha256), the limit is the recorded run's and
// the model now runs longer; when it does not (format 1, or a format 2 file
// written before the hash), the limit may have been edited. Not runner's
// "raise it with --time": replay has no --time, the limit is the file's.
type LimitStopError struct {
	File      string
	Line      int  // the limit line (0: none, the default limit)
	Hashed    bool // the file's limit-sha256 vouched for the limit
	Decisions int  // the decisions the replay made before the limit
	Recorded  int  // the recorded run's (-1: a format 1 file, which does not say)
	Limit     *runner.LimitError
}

func (e *LimitStopError) Error() string {
	at, which := e.File, "the file's time limit"
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.File, e.Line)
	} else {
		which = "the default time limit (the file has no limit line)"
	}
	msg := fmt.Sprintf("%s: the replay stopped at %s of %s after %d decisions", at, which, e.Limit.Value, e.Decisions)
	if e.Limit.Detail != "" {
		msg += " (" + e.Limit.Detail + ")"
	}
	ran := "the recorded run ended before its limit"
	if e.Recorded >= 0 {
		ran = fmt.Sprintf("the recorded run made %d decisions and ended before its limit", e.Recorded)
	}
	msg += "; " + ran + ", so this is not the recorded run: "
	if e.Hashed {
		return msg + "the limit is the recorded run's (limit-sha256), so the model runs longer now; explore again"
	}
	return msg + fmt.Sprintf("the file has no limit-sha256, so its limit may have been edited; explore again to write a format %d file", ReplayFormat)
}

func (e *LimitStopError) Unwrap() error { return e.Limit }

// limitStop is err as a *LimitStopError when it is a stop at rf's time
// limit after decisions decisions; otherwise err (the --max-* limits are
// replay's flags, and runner's advice for them holds).
func limitStop(rf *ReplayFile, err error, decisions int) error {
	var le *runner.LimitError
	if !errors.As(err, &le) || le.Limit != runner.TimeLimit {
		return err
	}
	recorded := -1
	if rf.Questions != nil {
		recorded = rf.Questions.Len()
	}
	return &LimitStopError{File: rf.name, Line: rf.Line("limit"), Hashed: rf.LimitSHA256 != "",
		Decisions: decisions, Recorded: recorded, Limit: le}
}

// unhashedLimitNote is Replay's note on a format 2 file without
// limit-sha256 (written before the limit was hashed): its limit line, or the
// lack of one, cannot be told from an edit.
func unhashedLimitNote(rf *ReplayFile) string {
	if l := rf.Line("limit"); l > 0 {
		return fmt.Sprintf("the file records no hash of its limit (line %d), so an edit of it cannot be told", l)
	}
	return fmt.Sprintf("the file has no limit line and no hash of one, so the replay runs to the default limit (%s) and a deleted limit cannot be told",
		scenarios.FormatDuration(time.Duration(runner.DefaultLimit)))
}
