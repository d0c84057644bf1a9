package cli

import (
	"os"
	"runtime"
)

// TuneRuntime sets the Go runtime up for a supervisor, which spends its
// life waiting: one P (GOMAXPROCS 1) unless the environment sets
// GOMAXPROCS. Go sizes itself by the node's cores (a pod whose containers
// have no CPU limit sees them all), and each P costs memory (its caches,
// its GC worker) and threads; a supervisor never has two things to
// compute at once. (Measured with BenchmarkPodMemory on two cores, the
// pod's two supervisors hold about 0.5 MB less; a lower GOGC, a
// GOMEMLIMIT or returning start-up garbage at once with
// debug.FreeOSMemory held more, not less.)
func TuneRuntime() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
