package proc_test

import (
	"bufio"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSetsidLeftoversKilled: a grandchild that moved to a session (and
// process group) of its own is killed too when the process exits. It holds
// a pipe open; EOF means it is gone.
func TestSetsidLeftoversKilled(t *testing.T) {
	hold, ready, release := fifo(t, "hold"), fifo(t, "ready"), fifo(t, "release")
	p := run(t, []string{"HOLD=" + hold, "READY=" + ready, "RELEASE=" + release}, "sh", "-c",
		`setsid sh -c 'echo $$ > "$READY"; exec sleep 600' > "$HOLD" & read x < "$RELEASE"; exit 0`)
	r, err := os.Open(hold) // returns once the grandchild opened it
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rd, err := os.Open(ready)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(rd).ReadString('\n')
	rd.Close()
	pid := strings.TrimSpace(line)
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid pgrp session: a session of its own.
	if f := strings.Fields(string(stat)); len(f) < 6 || f[5] != pid || f[4] != pid {
		t.Fatalf("grandchild %s is not in a session and group of its own: %s", pid, stat)
	}
	w, err := os.OpenFile(release, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	<-p.Done()
	gone := make(chan error, 1)
	go func() { _, err := io.ReadAll(r); gone <- err }()
	select {
	case err := <-gone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a bound on failure, not a synchronisation
		t.Fatalf("grandchild %s outlived the process by a minute", pid)
	}
}
