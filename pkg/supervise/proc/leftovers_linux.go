package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killLeftovers kills every process that carries marker in its
// environment: what a training process that has exited left behind, even
// in a session or process group of its own (setsid), where killing the
// group misses it. Killed processes are zombies until the reaper collects
// them, and a zombie shows no environment, so the scan ends once a round
// finds nothing; it stops after a few rounds whatever happens.
//
// The scan reads every process's environment: when orphansOurs (this
// process is a child subreaper, or PID 1) and it has no live child, there
// is nothing to look for, since every descendant of the exited process
// would be in its subtree. (A thousand supervisors sharing one PID
// namespace, as in tfgen's large tests, spent most of their stop scanning
// each other's processes.)
func killLeftovers(marker string, orphansOurs bool) {
	if orphansOurs && !liveChildren() {
		return
	}
	want := []byte("\x00" + markerEnv + "=" + marker + "\x00")
	self := os.Getpid()
	for range 10 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
				continue
			}
			found = true
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !found {
			return
		}
	}
}

// liveChildren reports whether this process has a child that has not
// exited, or cannot tell (a kernel without /proc/PID/task/TID/children).
func liveChildren() bool {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return true
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return true
		}
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err != nil || !zombie(pid) {
				return true
			}
		}
	}
	return false
}
