package proc

import (
	"bufio"
	"os"
	"reflect"
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
// part of it. The pages stay in the page cache (charged once to a memory
// cgroup, however many processes map them), and what the process touches
// again is mapped again at the cost of a minor fault; the pages it does
// not touch become the kernel's to reclaim first.
func ReleaseText(minInterval time.Duration) {
	r := &releaser{every: minInterval}
	r.release()
	r.arm()
}

type releaser struct {
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

// mapping is a file-backed mapping of /proc/self/smaps.
type mapping struct {
	start, end uint64
	perms      string
	file       string // device and inode: the file mapped
	anonymous  bool   // it holds pages of its own (written: relocations)
}

// release unmaps the pages of the binary's read-only mappings: those of
// the file that holds this function's code. The file is told by device
// and inode, which do not depend on how a path is shown (overlayfs). A
// mapping that holds pages of its own is left alone: read-only now, it
// was written (a dynamic loader's relocations, in a PIE or cgo binary),
// and MADV_DONTNEED would lose what was written.
func (r *releaser) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.last) < r.every {
		return
	}
	r.last = time.Now()
	maps, err := readMaps()
	if err != nil {
		return
	}
	pc := uint64(reflect.ValueOf(ReleaseText).Pointer())
	self := ""
	for _, m := range maps {
		if m.start <= pc && pc < m.end {
			self = m.file
		}
	}
	if self == "" {
		return
	}
	for _, m := range maps {
		if m.file == self && (m.perms == "r-xp" || m.perms == "r--p") && !m.anonymous {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), syscall.MADV_DONTNEED)
		}
	}
}

// readMaps reads the file-backed mappings of /proc/self/smaps.
func readMaps() ([]mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mapping
	var cur *mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 3 && fs[0] == "Anonymous:":
			// Anonymous:   0 kB
			if cur != nil && fs[1] != "0" {
				cur.anonymous = true
			}
		case len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":"):
			// 00400000-0078d000 r-xp 00000000 fe:00 9989090 /path/to/exe
			cur = nil
			lo, hi, ok := strings.Cut(fs[0], "-")
			if !ok || fs[4] == "0" {
				continue
			}
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil || end <= start {
				continue
			}
			out = append(out, mapping{start: start, end: end, perms: fs[1], file: fs[3] + " " + fs[4]})
			cur = &out[len(out)-1]
		}
	}
	return out, sc.Err()
}
