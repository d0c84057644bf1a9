package cli

import (
	"os"
	"runtime"
	"time"

	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

// tuneRuntime sets a supervisor, which spends its life waiting, up to
// hold little memory:
//
//   - one P (GOMAXPROCS 1) unless the environment sets GOMAXPROCS. Go
//     sizes itself by the node's cores (a pod whose containers have no CPU
//     limit sees them all), and each P costs memory (its caches, its GC
//     worker, the spans it allocated from) and threads; a supervisor
//     seldom has two things to compute at once.
//   - once start-up is over and after each garbage collection, the pages
//     of its own binary leave its resident memory (proc.ReleaseText),
//     unless TFSUPERVISOR_KEEP_TEXT=1. They are most of it: a Go process
//     maps nearly all of its binary, while what it runs when it waits is
//     a small part.
//
// With onPath (wrap mode's run, on the way to the training process) one P
// waits for start-up to be over too: run does two things at once then
// (it catches signals while it reads its configuration), which one P
// would serialise. From the start, one P holds less (about 0.7 MB less
// for the sidecar, measured with BenchmarkPodMemory in test/supervisor).
// A lower GOGC, a GOMEMLIMIT or returning start-up garbage at once
// (debug.FreeOSMemory) held more memory, not less: a quiet supervisor's
// heap stays under the first collection's goal.
func tuneRuntime(onPath bool) {
	oneP := os.Getenv("GOMAXPROCS") == ""
	release := os.Getenv(keepTextEnv) != "1"
	if oneP && !onPath {
		runtime.GOMAXPROCS(1)
		oneP = false
	}
	if !oneP && !release {
		return
	}
	time.AfterFunc(startupOver, func() {
		if oneP {
			runtime.GOMAXPROCS(1)
		}
		if release {
			proc.ReleaseText(releaseEvery)
		}
	})
}

// keepTextEnv, set to 1, leaves the binary's pages mapped (for a debugger
// that sets breakpoints in the text, say).
const keepTextEnv = "TFSUPERVISOR_KEEP_TEXT"

// startupOver is when a supervisor's start-up is over: the training
// process runs, or the sidecar serves.
const startupOver = 2 * time.Second

// releaseEvery bounds how often proc.ReleaseText unmaps the binary.
const releaseEvery = 10 * time.Second
