package proc

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssFile is this process's resident file pages (RssFile), in kB.
func rssFile(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "RssFile:" {
			kb, _ := strconv.Atoi(f[1])
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseText: the test binary's pages leave its resident memory, and
// what runs after comes back on its own.
func TestReleaseText(t *testing.T) {
	before := rssFile(t)
	r := &releaser{every: time.Hour}
	r.release()
	after := rssFile(t)
	if after >= before*3/4 {
		t.Errorf("RssFile %d kB after release, %d kB before: want at most three quarters", after, before)
	}
	r.release() // within the hour: nothing
	if got := rssFile(t); got < after {
		t.Errorf("RssFile %d kB after a second release within the interval, %d kB after the first: want no release", got, after)
	}
}
