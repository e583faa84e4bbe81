package main

import (
	"fmt"
	"io"
	"os"

	"perfsim/explore"
)

// cmdMerge combines the --json files of the shards of one exploration
// (explore --shard i/n) into the result of the search they split: counts,
// coverage, the complete/exhaustive claims and the first violation. It prints
// the summary as explore does (and writes --json); exit 1 when the merged
// search failed.
func cmdMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", "FILE... [--json FILE] [--coverage FILE]", stderr)
	jsonOut := fs.String("json", "", "write the merged exploration as JSON to `FILE` (- for standard output, instead of the text)")
	coverage := fs.String("coverage", "", "write the merged coverage detail to `FILE` (FILE.json: as JSON)")
	files, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	if !checkOutputs("merge", stderr, output{flag: "json", path: *jsonOut}, output{flag: "coverage", path: *coverage}) {
		return exitUsage
	}
	var parts []*explore.Result
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			printError(stderr, err)
			return exitUsage
		}
		r, err := explore.ReadJSON(name, fh)
		fh.Close()
		if err != nil {
			printError(stderr, err)
			return exitUsage
		}
		parts = append(parts, r)
	}
	ex, err := explore.Merge(parts)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if !writeExploreFiles(ex, *coverage, *jsonOut, stdout, stderr) {
		return exitUsage
	}
	if *jsonOut != "-" {
		fmt.Fprintf(stdout, "merged %d shards\n", len(parts))
		ex.WriteText(stdout)
	}
	if ex.Interrupted && ex.Found == nil {
		return exitInterrupted
	}
	if ex.Failed {
		return exitFailed
	}
	return exitOK
}
