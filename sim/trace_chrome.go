package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// chromeEvent is one Chrome trace-event (the JSON that chrome://tracing,
// Perfetto and speedscope open): ph B/E a slice begins/ends, i an instant, M
// metadata; ts in microseconds.
type chromeEvent struct {
	Name string            `json:"name"`
	Ph   string            `json:"ph"`
	Ts   float64           `json:"ts"`
	Pid  int               `json:"pid"`
	Tid  int               `json:"tid"`
	S    string            `json:"s,omitempty"`
	Args map[string]string `json:"args,omitempty"`
}

// WriteChrome writes the kept records as a Chrome trace-event JSON file, one
// track per CPU: the task running (a slice from each context switch), the
// interrupt handlers nested in it (enter/exit), and instants for the rest
// (timers, wakeups, migrations, decisions, notes, an oops). end closes what
// is still open. Needs Keep.
func (t *Trace) WriteChrome(w io.Writer, cpus int, end Time) error {
	bw := bufio.NewWriter(w)
	ts := func(at Time) float64 { return float64(at) / 1000 }
	var evs []chromeEvent
	evs = append(evs, chromeEvent{Name: "process_name", Ph: "M", Args: map[string]string{"name": "perfsim"}})
	for c := 0; c < cpus; c++ {
		evs = append(evs, chromeEvent{Name: "thread_name", Ph: "M", Tid: c, Args: map[string]string{"name": fmt.Sprintf("cpu%d", c)}})
	}
	// Per CPU, the open slices: the task's, then the handlers on top.
	open := make([][]string, cpus)
	closeAll := func(c int, at Time) {
		for i := len(open[c]) - 1; i >= 0; i-- {
			evs = append(evs, chromeEvent{Name: open[c][i], Ph: "E", Ts: ts(at), Tid: c})
		}
		open[c] = open[c][:0]
	}
	for i := range t.Records {
		r := &t.Records[i]
		c := r.CPU
		if c < 0 || c >= cpus {
			continue
		}
		switch r.Kind {
		case KSwitch:
			closeAll(c, r.T)
			evs = append(evs, chromeEvent{Name: r.Detail, Ph: "B", Ts: ts(r.T), Tid: c})
			open[c] = append(open[c], r.Detail)
		case KEnter: // Name is the context (nmi, irq), Detail the handler
			name := r.Name
			if r.Detail != "" {
				name += " " + r.Detail
			}
			evs = append(evs, chromeEvent{Name: name, Ph: "B", Ts: ts(r.T), Tid: c})
			open[c] = append(open[c], name)
		case KExit:
			if n := len(open[c]); n > 0 {
				evs = append(evs, chromeEvent{Name: open[c][n-1], Ph: "E", Ts: ts(r.T), Tid: c})
				open[c] = open[c][:n-1]
			}
		case KStep:
			// too many to show
		default:
			args := map[string]string{"kind": r.Kind.String()}
			if r.Detail != "" {
				args["detail"] = r.Detail
			}
			if r.N != 0 {
				args["n"] = fmt.Sprint(r.N)
			}
			evs = append(evs, chromeEvent{Name: r.Name, Ph: "i", S: "t", Ts: ts(r.T), Tid: c, Args: args})
		}
	}
	for c := range open {
		closeAll(c, end)
	}
	if _, err := bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[` + "\n"); err != nil {
		return err
	}
	for i := range evs {
		b, err := json.Marshal(&evs[i])
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
