package nodeagent

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A container's process that made a process group of its own dies with
// its session.
func TestKillSessionReachesOtherGroups(t *testing.T) {
	// sh leads the session; the sleep it starts in the background makes
	// a process group of its own (perl's setpgrp), as a supervisor does
	// for the training process.
	leader := exec.Command("sh", "-c", `perl -e '$| = 1; setpgrp(0, 0); print "$$\n"; exec "sleep", "60"' & wait`)
	leader.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := leader.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(string(bytes.TrimSpace([]byte(line))))
	if err != nil {
		t.Fatal(err)
	}
	if pgid, err := syscall.Getpgid(child); err != nil || pgid == leader.Process.Pid {
		t.Fatalf("the background sleep's group = %d (%v), want one of its own", pgid, err)
	}
	exited, err := unix.PidfdOpen(child, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(exited)
	killSession(leader.Process.Pid)
	_ = leader.Wait()
	// A pidfd reads as ready once its process has ended.
	fds := []unix.PollFd{{Fd: int32(exited), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, int((10 * time.Second).Milliseconds())); n != 1 || err != nil {
		t.Errorf("process %d of the session still runs 10 s after killSession (%v)", child, err)
	}
}

// Callers at once share walks of /proc, and each gets a table read after
// its call.
func TestProcTableSharesWalks(t *testing.T) {
	var table procTable
	const callers = 50
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			self := os.Getpid()
			for _, p := range table.fresh() {
				if p.pid == self {
					return
				}
			}
			t.Errorf("a fresh table lacks this process (%d)", self)
		}()
	}
	wg.Wait()
	if table.walks >= callers {
		t.Errorf("%d callers at once made %d walks of /proc, want them shared", callers, table.walks)
	}
}
