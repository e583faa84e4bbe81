// Package cost is the cost model: what kernel work costs in virtual time, one
// table per machine profile (Profile), so a traced task runs slower in the
// simulation exactly where the real one does. The profile of this machine is
// fitted (Fit) from figures the calibration script measures on the real
// kernel (calibrate/calibrate.sh -> testdata/this-machine.txt); the seed
// machine's (an i7-4790 on v4.5, seed 002) is derived from the seed's own
// figures. Free is the zero profile: kernel work costs nothing, as before
// the model existed.
package cost
