package runner

import (
	"strconv"
	"strings"

	"perfsim/scenarios"
)

// An observable indexed by an event (SESSION.perf.samples[EVENT], see
// scenarios/event_index.go) names one of the session's evsels as perf names
// it. The checker takes any index; the run checks it once perf has parsed
// the record lines (Build, after the backend's Start), so `simrun check`
// refuses an event the session does not record, at the index, with the
// session's events.

// EventLister is a PerfRun whose sessions have events (evsels): EventNames
// lists a session's, as perf names them, or, for session "", every session's
// (each once, in record line order); ok is false when no session is called
// session.
type EventLister interface {
	EventNames(session string) (names []string, ok bool)
}

// EventNames implements EventLister.
func (p *pmuRun) EventNames(session string) ([]string, bool) {
	if session != "" {
		ss := p.byName[session]
		if ss == nil {
			return nil, false
		}
		return ss.EventNames(), true
	}
	var out []string
	seen := map[string]bool{}
	for _, ss := range p.sessions {
		for _, n := range ss.EventNames() {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, true
}

// indexedSession splits the name before an event index into the session it
// names ("" for the sum over the sessions: perf.samples[cs]) and the
// session observable: r.perf.samples is session r's perf.samples when r is a
// session and SESSION.perf.samples[EVENT] an observable.
func (r *Run) indexedSession(base string, l EventLister) string {
	s, rest, ok := strings.Cut(base, ".")
	if !ok {
		return ""
	}
	if _, ok := l.EventNames(s); !ok {
		return ""
	}
	if _, ok := backend(r.opts.Perf).Observables()["SESSION."+rest+"["+scenarios.EventPlaceholder+"]"]; !ok {
		return ""
	}
	return s
}

// checkEventIndexes refuses an outcome's event index that names no event of
// its session (of any session, for the sum), at the event's name.
func (r *Run) checkEventIndexes() error {
	l, ok := r.Perf.(EventLister)
	if !ok {
		return nil
	}
	var errs scenarios.ErrorList
	for _, o := range r.File.Outcomes {
		scenarios.Names(o.Cond, func(n *scenarios.Name) {
			base, event, indexed := scenarios.CutEventIndex(n.Name)
			if !indexed {
				return
			}
			session := r.indexedSession(base, l)
			names, _ := l.EventNames(session)
			for _, x := range names {
				if x == event {
					return
				}
			}
			whose, theirs := "no session records", "the sessions' events"
			if session != "" {
				whose, theirs = "session "+session+" does not record", "its events"
			}
			msg := whose + " an event named " + strconv.Quote(event)
			switch {
			case len(names) == 0:
				msg += "; no session records any event"
			case len(names) <= 16:
				msg += "; " + theirs + ", as perf script -F event names them: " + strings.Join(names, ", ")
			default:
				if best := scenarios.Closest(event, names); best != "" {
					msg += "; did you mean " + strconv.Quote(best) + "?"
				}
			}
			pos := n.Pos
			pos.Col += len(base) + 1 // the event's name, after the [
			errs = append(errs, r.File.Errorf(pos, "%s", msg))
		})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// indexedNames expands an indexed observable's pattern (SESSION.perf.samples,
// or perf.samples for the sum over the sessions) with the events of each
// named session (of every session).
func (r *Run) indexedNames(base string) []string {
	l, ok := r.Perf.(EventLister)
	if !ok {
		return nil
	}
	var out []string
	expand := func(prefix, session string) {
		names, _ := l.EventNames(session)
		for _, e := range names {
			out = append(out, prefix+"["+e+"]")
		}
	}
	rest, ok := strings.CutPrefix(base, "SESSION.")
	if !ok {
		expand(base, "")
		return out
	}
	for _, rec := range r.File.Records {
		if rec.Name != nil {
			expand(rec.Name.Name+"."+rest, rec.Name.Name)
		}
	}
	return out
}
