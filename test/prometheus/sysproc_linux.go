package prometheus

import "syscall"

// sysProcAttr makes Prometheus die with the test binary, even when the test
// binary is killed before its cleanups run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
