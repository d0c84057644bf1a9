package controlplane

import "syscall"

// sysProcAttr makes a control-plane process die with the test binary, even
// when the test binary is killed before it can call Stop.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
