//go:build !linux

package prometheus

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
