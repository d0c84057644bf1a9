package proc

import (
	"fmt"
	"os"
	"syscall"
)

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER from <linux/prctl.h>

// becomeSubreaper makes orphaned descendants this process's children, so
// the reaper collects them, unless it is PID 1 and they are already.
func becomeSubreaper() error {
	if os.Getpid() == 1 {
		return nil
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("become child subreaper: %w", errno)
	}
	return nil
}
