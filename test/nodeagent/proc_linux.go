package nodeagent

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// killSession sends SIGKILL to every process of session sid: a
// container's processes, which the kubelet kills through its cgroup. The
// table it reads was taken after the call, so it has every process of the
// session that was there when the call was made.
func killSession(sid int) {
	for _, p := range processes.fresh() {
		if p.sid == sid {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// forEachProcess calls fn with each process's pid, session and name, as
// a table no older than maxAge has them.
func forEachProcess(maxAge time.Duration, fn func(pid, sid int, comm string)) {
	for _, p := range processes.recent(maxAge) {
		fn(p.pid, p.sid, p.comm)
	}
}

// proc is one process of the table.
type proc struct {
	pid, sid int
	comm     string
}

// processes is the process table every agent of this process shares.
// Reading it walks /proc, which costs about 20 µs a process (50 ms with
// the 3,000 processes of a 1,000-replica job): a walk per container end
// and per agent's sample, as each agent once made, took more CPU than
// the pods at a job's end. One walk serves every caller that waits for
// it, and a sample takes a recent table.
var processes procTable

// procTable walks /proc for its callers, one walk at a time.
type procTable struct {
	mu      sync.Mutex
	running bool
	next    *walk // the walk that starts after the running one
	last    *walk // the last walk done
	walks   int   // walks made
}

// walk is one read of /proc; done is closed once table and at are set.
type walk struct {
	done  chan struct{}
	table []proc
	at    time.Time
}

// fresh returns a table read wholly after the call.
func (t *procTable) fresh() []proc {
	t.mu.Lock()
	if t.next == nil {
		t.next = &walk{done: make(chan struct{})}
	}
	w := t.next
	if !t.running {
		t.running = true
		go t.run()
	}
	t.mu.Unlock()
	<-w.done
	return w.table
}

// recent returns a table read at most maxAge ago, or a fresh one.
func (t *procTable) recent(maxAge time.Duration) []proc {
	t.mu.Lock()
	last := t.last
	t.mu.Unlock()
	if last != nil && time.Since(last.at) <= maxAge {
		return last.table
	}
	return t.fresh()
}

// run walks /proc as long as callers wait for a walk.
func (t *procTable) run() {
	for {
		t.mu.Lock()
		w := t.next
		if w == nil {
			t.running = false
			t.mu.Unlock()
			return
		}
		t.next = nil
		t.walks++
		t.mu.Unlock()
		w.table, w.at = readProc(), time.Now()
		t.mu.Lock()
		t.last = w
		t.mu.Unlock()
		close(w.done)
	}
}

// readProc reads each process's pid, session and name from /proc.
func readProc() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	table := make([]proc, 0, len(entries))
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
				table = append(table, proc{pid: pid, sid: sid, comm: string(b[open+1 : i])})
			}
		}
	}
	return table
}
