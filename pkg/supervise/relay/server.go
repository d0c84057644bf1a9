package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// Server relays one replica's reports from its training container to the
// replica's Reporter, and the job's status back. A report names no replica:
// whoever connects speaks for this pod's replica and no other, since the
// Reporter writes only on this pod. What the training container sends is
// untrusted, so reports are checked, trimmed and rate-limited.
type Server struct {
	// Status is the job's status, sent to every client as it changes.
	Status record.Source
	// Reporter publishes the replica's record on its own pod, and Events.
	Reporter supervise.Reporter
	// Previous is the replica's record as its pod carried it at start;
	// nil when it has none.
	Previous *record.Replica
	// Drain bounds how long Serve waits, once its context ends, for the
	// clients to hang up (the training container ends first); 0 does not
	// wait.
	Drain time.Duration
	// EndWhen, when set, ends Serve without waiting for its context once
	// every client has hung up and EndWhen holds for the job's status as
	// last sent to them and the replica's record as last reported (nil
	// when none): the training container's supervisor exited
	// because the job gave the pod back, and the sidecar ends in the same
	// moment instead of waiting for the kubelet to see that exit and send
	// SIGTERM, so the node sees the pod end once. Until a client has
	// connected it ends nothing.
	EndWhen func(*record.Status, *record.Replica) bool
	// Logf logs.
	Logf func(format string, args ...any)

	mu      sync.Mutex
	latest  *record.Replica
	limiter *rate.Limiter
	job     *record.Status // as last sent to a client
	clients int            // connected now
	end     func()         // ends the serving (EndWhen held)
}

// Reports a server accepts from its clients, together: a training
// container restarts its process at most a few times a second, and one
// that floods the socket only slows itself down.
const (
	reportRate  = 50
	reportBurst = 200
)

// Listen listens on the Unix socket path, replacing a stale socket left
// by an earlier server of the same pod. The socket is open to every user
// (mode 0666): the training container runs as the image's user, and may
// only speak for its own replica.
func Listen(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("relay socket: %w", err)
	}
	old := syscall.Umask(0)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("relay socket: %w", err)
	}
	return ln, nil
}

// Serve serves clients on ln until ctx ends (or EndWhen ends it), then
// waits up to Drain for them to hang up, and returns once every report
// received was handed to the Reporter.
func (s *Server) Serve(ctx context.Context, ln net.Listener) {
	serving, end := context.WithCancel(ctx)
	defer end()
	s.mu.Lock()
	s.latest = s.Previous
	s.limiter = rate.NewLimiter(reportRate, reportBurst)
	s.end = end
	s.mu.Unlock()
	// Connections outlive ctx by Drain: the training container reports its
	// last exit after the pod was told to stop.
	conns, stopConns := context.WithCancel(context.WithoutCancel(ctx))
	defer stopConns()
	var wg sync.WaitGroup
	go func() {
		<-serving.Done()
		ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if serving.Err() == nil {
				s.Logf("relay: accept: %v", err)
				if !errors.Is(err, net.ErrClosed) {
					continue
				}
			}
			break
		}
		s.mu.Lock()
		s.clients++
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(conns, c)
			s.hungUp()
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.Drain):
		stopConns()
		<-done
	}
}

// hungUp counts a client gone, and ends the serving when it was the last
// and EndWhen holds.
func (s *Server) hungUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients--
	if s.clients == 0 && s.EndWhen != nil && s.EndWhen(s.job, s.latest) {
		s.end()
	}
}

// handle serves one client until it hangs up or ctx ends.
func (s *Server) handle(ctx context.Context, c net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		c.Close()
	}()
	var wmu sync.Mutex
	enc := json.NewEncoder(c)
	send := func(m message) error {
		wmu.Lock()
		defer wmu.Unlock()
		return enc.Encode(m)
	}
	s.mu.Lock()
	prev := s.latest
	s.mu.Unlock()
	if err := send(message{Hello: &hello{Previous: prev}}); err != nil {
		return
	}
	go func() {
		for st := range s.Status.Watch(ctx) {
			s.mu.Lock()
			s.job = st
			s.mu.Unlock()
			if err := send(message{Status: st}); err != nil {
				cancel()
				return
			}
		}
	}()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, lineBuffer), maxLine)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			s.Logf("relay: a message from the training container that is not JSON: %v", err)
			return
		}
		if m.Report != nil {
			if err := s.limiter.Wait(ctx); err != nil {
				return
			}
			s.accept(*m.Report)
		}
		if m.Flush != 0 {
			if err := s.Reporter.Flush(ctx); err != nil {
				return
			}
			if send(message{Flushed: m.Flush}) != nil {
				return
			}
		}
	}
}

// accept hands a checked report to the Reporter.
func (s *Server) accept(r supervise.Report) {
	r, ok := sanitize(r)
	if !ok {
		s.Logf("relay: a report with an unknown state %q dropped", r.State)
		return
	}
	if r.State != "" {
		s.mu.Lock()
		rec := r.Replica
		s.latest = &rec
		s.mu.Unlock()
	}
	s.Reporter.Report(r)
}

// Bounds of what a report may carry.
const (
	maxSpread     = time.Minute
	maxEvents     = 8
	maxEventNote  = 1024
	maxEventField = 128
)

// sanitize trims r to what a supervisor can send; ok is false for a state
// no supervisor has.
func sanitize(r supervise.Report) (supervise.Report, bool) {
	switch r.State {
	case "", record.StateRunning, record.StateRestarting, record.StateSucceeded, record.StateFailed, record.StateStopped, record.StateIdle:
	default:
		return r, false
	}
	r.Message = truncate(r.Message, record.MaxMessage)
	r.Reason = truncate(r.Reason, maxEventField)
	r.LastExitID = truncate(r.LastExitID, maxEventField)
	r.LogTail = record.Tail(r.LogTail)
	r.Spread = min(max(r.Spread, 0), maxSpread)
	r.Defer = min(max(r.Defer, 0), maxSpread)
	if r.Exit != nil {
		e := *r.Exit
		e.Reason, e.Message = truncate(e.Reason, maxEventField), truncate(e.Message, record.MaxMessage)
		e.Tail = record.Tail(e.Tail)
		r.Exit = &e
	}
	var events []supervise.Event
	for _, e := range r.Events {
		if (e.Type != "Normal" && e.Type != "Warning") || e.Reason == "" || len(events) == maxEvents {
			continue
		}
		e.Reason, e.Action, e.Note = truncate(e.Reason, maxEventField), truncate(e.Action, maxEventField), truncate(e.Note, maxEventNote)
		events = append(events, e)
	}
	r.Events = events
	return r, true
}

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
