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
	forEachProcess(func(pid, s int, _ string) {
		if s == sid {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// forEachProcess calls fn with each process's pid, session and name.
func forEachProcess(fn func(pid, sid int, comm string)) {
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
		open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || i < open {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) > 3 {
			if sid, err := strconv.Atoi(string(f[3])); err == nil {
				fn(pid, sid, string(b[open+1:i]))
			}
		}
	}
}
