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
func killLeftovers(marker string) {
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
