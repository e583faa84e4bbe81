// Package realperf holds the paired cases: one workload run under the real
// perf on this machine and the same workload written as a scenario, with the
// real figures committed (testdata/CASE/real.txt) and a test that runs the
// scenario and compares. Both sides are reduced to the same summary by
// Summarize, which reads a perf.data file as perf's session code does, so
// the comparison is of files, not of two different reporters.
//
// A case is a directory testdata/CASE with:
//
//	case.txt   the perf command, what is compared, and what differs and why
//	case.sim   the simulated workload (its record line is the perf command)
//	workload.c the real workload (or workload.sh)
//	real.txt   the summary of the real perf.data (written by capture.sh)
//
// A case whose case.txt says `stop SECONDS` is ended by SIGINT (^C) to the
// perf capture.sh started, SECONDS after its workload's exec, and its
// case.sim by `at TIME stop`;
// perf's exit status is then compared too (the key perf-status: the
// shell's, 128+N when perf died of signal N).
//
// One figure is a reporter's on purpose: script-event EVENT, the lines the
// real perf script -F event prints for EVENT (capture.sh counts them), is
// compared with the scenario's own observable perf.samples[EVENT], which
// must also agree with the samples EVENT that Summarize counts in the
// simulated perf.data (ScriptEvent). A case captured before capture.sh
// counted them has none on either side.
//
// capture.sh reruns the real side where perf and root are present.
package realperf
