//go:build !linux

package controlplane

import (
	"syscall"
	"time"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// cpuTime is not known outside Linux.
func cpuTime(int) time.Duration { return 0 }
