package proc

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ReleaseText keeps the supervisor's own binary out of its resident
// memory while it waits: it unmaps the pages of the executable's
// read-only mappings (text and read-only data; MADV_DONTNEED, which for
// a file's private mapping that was never written only drops the page
// table entries), now and after each garbage collection, at most once per
// minInterval.
//
// Why: a Go process maps nearly all of its binary. Package initialisation
// runs code from every package, and each garbage collection reads the
// tables of the functions on every goroutine's stack, spread over the
// read-only data; the kernel maps 64 KB around each page faulted in (more
// where its page cache holds large folios). So its file-backed RSS is
// about its binary's size, though what it runs while it waits is a small
// part of it. The pages stay in the page cache (where the pod's memory
// cgroup charges them once, however many processes map them), and what the
// process touches again is mapped again at the cost of a minor fault; the
// pages it does not touch become the kernel's to reclaim first.
func ReleaseText(minInterval time.Duration) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	r := &releaser{exe: exe, every: minInterval}
	r.release()
	r.arm()
}

type releaser struct {
	exe   string
	every time.Duration
	mu    sync.Mutex
	last  time.Time
}

// gcMark is an object that lives until the next garbage collection.
type gcMark struct {
	r   *releaser
	pad [2]uintptr // not a tiny allocation, whose finalizer may never run
}

// arm has release run after the next garbage collection, and arm again.
func (r *releaser) arm() {
	m := &gcMark{r: r}
	runtime.SetFinalizer(m, func(m *gcMark) {
		m.r.release()
		m.r.arm()
	})
}

func (r *releaser) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.last) < r.every {
		return
	}
	r.last = time.Now()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-0078d000 r-xp 00000000 fe:00 9989090 /path/to/exe
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[5] != r.exe || fs[1] != "r-xp" && fs[1] != "r--p" {
			continue
		}
		lo, hi, ok := strings.Cut(fs[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
