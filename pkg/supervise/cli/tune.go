package cli

import (
	"os"
	"runtime"
	"time"
)

// tuneRuntime sets a supervisor, which spends its life waiting, up to
// hold little memory: one P (GOMAXPROCS 1) unless the environment sets
// GOMAXPROCS. Go sizes itself by the node's cores (a pod whose containers
// have no CPU limit sees them all), and each P costs memory (its caches,
// its GC worker, the spans it allocated from) and threads; a supervisor
// seldom has two things to compute at once.
//
// With onPath (wrap mode's run, on the way to the training process) one P
// waits for start-up to be over: run does two things at once then (it
// catches signals while it reads its configuration), which one P would
// serialise. From the start, one P holds less (about 0.7 MB less for the
// sidecar, measured with BenchmarkPodMemory in test/supervisor). A lower
// GOGC, a GOMEMLIMIT or returning start-up garbage at once
// (debug.FreeOSMemory) held more memory, not less: a quiet supervisor's
// heap stays under the first collection's goal.
//
// Most of a supervisor's resident memory is its binary's pages (a Go
// process maps nearly all of its binary at start). Unmapping them
// (madvise) would lower its RSS but not what the pod is charged: the pages
// stay in the page cache, counted in the pod's cgroup. The wrap-only build
// and an image volume (--supervisor-volume image, where every pod's
// supervisors share one file's pages) lower that instead.
func tuneRuntime(onPath bool) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if !onPath {
		runtime.GOMAXPROCS(1)
		return
	}
	time.AfterFunc(startupOver, func() { runtime.GOMAXPROCS(1) })
}

// startupOver is when a supervisor's start-up is over: the training
// process runs, or the sidecar serves.
const startupOver = 2 * time.Second
