package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PerfDataWriter is implemented by a PerfRun whose sessions wrote perf.data
// files: WritePerfData writes each into dir and returns the paths.
type PerfDataWriter interface {
	WritePerfData(dir string) ([]string, error)
}

// WritePerfData writes the perf.data of every perf record session of the run
// into dir (created if needed): the real perf script and perf report read
// them (perftool: PerfData.WriteFile).
func (r *Run) WritePerfData(dir string) ([]string, error) {
	w, ok := r.Perf.(PerfDataWriter)
	if !ok {
		return nil, errors.New("this run has no perf record session")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return w.WritePerfData(dir)
}

// WritePerfData implements PerfDataWriter: SESSION.data for a named session,
// perf.data for an unnamed one, with -N (its number) added to a name already
// taken; a session recording with -o /dev/null gets no file (its path is
// /dev/null).
func (p *pmuRun) WritePerfData(dir string) ([]string, error) {
	var paths []string
	for i, name := range p.dataNames() {
		ss := p.sessions[i]
		if ss.Data.NoFile {
			continue // perf record gave up before it created the file
		}
		if ss.Data.Discard {
			// perf record -o /dev/null writes its whole perf.data to
			// /dev/null: there is no file to read, as with the real perf.
			paths = append(paths, os.DevNull)
			continue
		}
		path := filepath.Join(dir, name)
		fh, err := os.Create(path)
		if err != nil {
			return paths, err
		}
		if ss.Data.Empty { // perf gave up in record__open(): an empty file, as the real one leaves
			paths = append(paths, path)
			if err := fh.Close(); err != nil {
				return paths, err
			}
			continue
		}
		err = ss.Data.WriteFile(fh)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return paths, fmt.Errorf("%s: %s: %w", path, p.label(i), err)
		}
		paths = append(paths, path)
		// The synthetic images it maps, for perf script --symfs dir.
		if _, err := ss.WriteImages(dir); err != nil {
			return paths, err
		}
		// What perf record adds to its build-id cache, in dir/.debug
		// (perf --buildid-dir dir/.debug) rather than this machine's ~/.debug.
		if _, err := ss.WriteBuildIDCache(filepath.Join(dir, ".debug")); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

// dataNames are the sessions' perf.data file names, in session order.
func (p *pmuRun) dataNames() []string {
	var out []string
	taken := map[string]bool{}
	for i := range p.sessions {
		name := p.names[i]
		if name == "" {
			name = "perf"
		}
		if taken[name] {
			name = fmt.Sprintf("%s-%d", name, i+1)
		}
		taken[name] = true
		out = append(out, name+".data")
	}
	return out
}

// spool gives each session (but one writing to /dev/null) a spool for its
// data section in dir: an unnamed temporary file (removed as soon as it is
// made; its space goes back when the run is gone), from which WritePerfData
// copies the data section however large it grew.
func (p *pmuRun) spool(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, name := range p.dataNames() {
		ss := p.sessions[i]
		if ss.Data.NoFile {
			continue // perf record gave up before it created the file
		}
		if ss.Data.Discard {
			continue
		}
		fh, err := os.CreateTemp(dir, "."+name+".spool-*")
		if err != nil {
			return err
		}
		os.Remove(fh.Name()) // the open file stays usable
		ss.Data.Spool = fh
	}
	return nil
}
