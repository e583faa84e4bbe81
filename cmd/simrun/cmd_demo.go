package main

import (
	"fmt"
	"io"
)

// demoScenario and demoKnob are what the demo searches: seed 000's race, an
// NMI's aux_pause inside a task's aux_resume, on the kernel before the
// rb->aux_in_pause_resume guard (18d92bb57c39).
const (
	demoScenario = "aux-pause-resume-nmi"
	demoKnob     = "aux-pause-guard=off"
)

// cmdDemo is the main job in one command: explore seed 000's race on the old
// kernel (it finds the violation and shrinks it), write its replay file, and
// replay it. It exits 0 when both did what they should: the search found the
// race and the replay showed the same violation again; 1 otherwise.
func cmdDemo(args []string, stdout, stderr io.Writer) int {
	if code := parseNoArgs("demo", args, stderr); code >= 0 {
		return code
	}
	replay := demoScenario + ".replay"
	fmt.Fprintf(stdout, "$ simrun explore %s --kernel %s\n", demoScenario, demoKnob)
	if code := cmdExplore([]string{demoScenario, "--kernel", demoKnob, "--out", replay, "-q"}, stdout, stderr); code != exitFailed {
		fmt.Fprintf(stderr, "simrun demo: explore exited %d, not 1 with the race found\n", code)
		return exitFailed
	}
	fmt.Fprintf(stdout, "\n$ simrun replay %s\n", replay)
	if code := cmdReplay([]string{replay}, stdout, stderr); code != exitFailed {
		fmt.Fprintf(stderr, "simrun demo: replay exited %d, not 1 with the violation recurring\n", code)
		return exitFailed
	}
	fmt.Fprintf(stdout, "\ndemo: explore found seed 000's race on %s, shrank it and wrote %s; the replay showed the same violation again.\n"+
		"Today's kernel is clean: simrun explore %s\n", demoKnob, replay, demoScenario)
	return exitOK
}
