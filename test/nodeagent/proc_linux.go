package nodeagent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killSession sends SIGKILL to every process of session sid: a
// container's processes, which the kubelet kills through its cgroup.
func killSession(sid int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) > 3 {
			if s, err := strconv.Atoi(string(f[3])); err == nil && s == sid {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}
