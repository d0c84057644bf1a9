package relay

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// reports records what a server hands on, and counts flushes.
type reports struct {
	mu      sync.Mutex
	got     []supervise.Report
	flushes int
	changed chan struct{}
}

func newReports() *reports { return &reports{changed: make(chan struct{}, 100)} }

func (r *reports) Report(rep supervise.Report) {
	r.mu.Lock()
	r.got = append(r.got, rep)
	r.mu.Unlock()
	r.changed <- struct{}{}
}

func (r *reports) Flush(context.Context) error {
	r.mu.Lock()
	r.flushes++
	r.mu.Unlock()
	return nil
}

func (r *reports) all() []supervise.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]supervise.Report(nil), r.got...)
}

// waitFor waits until the server has handed on n reports.
func (r *reports) waitFor(t *testing.T, n int) []supervise.Report {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got := r.all(); len(got) >= n {
			return got
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("server handed on %d reports, want %d", len(r.all()), n)
		}
	}
}

func serve(t *testing.T, ctx context.Context, path string, s *Server) (stop func()) {
	t.Helper()
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(ctx, ln)
	}()
	return func() {
		cancel()
		<-done
	}
}

func TestRelay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.sock")
	store := &record.Memory{}
	rep := newReports()
	prev := &record.Replica{State: record.StateRunning, Restarts: 2}
	stop := serve(t, ctx, path, &Server{Status: store, Reporter: rep, Previous: prev, Logf: t.Logf})
	defer stop()

	c, got, err := Dial(ctx, path, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got == nil || got.State != record.StateRunning || got.Restarts != 2 {
		t.Fatalf("hello's previous record = %+v, want Running with 2 restarts", got)
	}

	// The job's status reaches the client, first as it is, then changed.
	statuses := c.Watch(ctx)
	if s := <-statuses; s == nil {
		t.Fatal("no first status")
	}
	if _, err := store.Update(ctx, func(s *record.Status) error { s.Restarts = 7; return nil }); err != nil {
		t.Fatal(err)
	}
	for s := range statuses {
		if s.Restarts == 7 {
			break
		}
	}
	if _, ok := any(c).(record.Store); ok {
		t.Error("the training container's client can write the job's status")
	}

	// Reports arrive in order, and Flush returns after the server's.
	c.Report(supervise.Report{Replica: record.Replica{State: record.StateRestarting, Restarts: 3}, Exit: &supervise.Exit{Code: 137, Reason: "Error"}})
	c.Report(supervise.Report{Replica: record.Replica{State: record.StateRunning, Restarts: 3}, Events: []supervise.Event{{Type: "Normal", Reason: "Restarted", Action: "Restart"}}})
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	reps := rep.all()
	if len(reps) != 2 || reps[0].State != record.StateRestarting || reps[0].Exit == nil || reps[0].Exit.Code != 137 || reps[1].State != record.StateRunning || len(reps[1].Events) != 1 {
		t.Fatalf("server handed on %+v", reps)
	}
	rep.mu.Lock()
	flushes := rep.flushes
	rep.mu.Unlock()
	if flushes != 1 {
		t.Errorf("server flushed %d times, want 1", flushes)
	}

	// A second client (the training container restarted) learns the
	// latest record from the server.
	c2, got, err := Dial(ctx, path, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got == nil || got.State != record.StateRunning || got.Restarts != 3 {
		t.Fatalf("second hello's previous record = %+v, want Running with 3 restarts", got)
	}
}

func TestRelayReconnects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.sock")
	first := newReports()
	stop := serve(t, ctx, path, &Server{Status: &record.Memory{}, Reporter: first, Logf: t.Logf})
	c, _, err := Dial(ctx, path, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Report(supervise.Report{Replica: record.Replica{State: record.StateRunning, Restarts: 1}})
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stop() // the sidecar's container ends

	// Its successor hears the latest state first, then what came since.
	second := newReports()
	stop = serve(t, ctx, path, &Server{Status: &record.Memory{}, Reporter: second, Logf: t.Logf})
	defer stop()
	c.Report(supervise.Report{Replica: record.Replica{State: record.StateSucceeded, Restarts: 1}, Exit: &supervise.Exit{Code: 0, Reason: "Completed"}})
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := second.waitFor(t, 2)
	if got[0].State != record.StateRunning || got[0].Exit != nil || got[1].State != record.StateSucceeded {
		t.Fatalf("the new server got %+v, want the Running state again, then Succeeded", got)
	}
}

// TestRelayEndsWhenReleased: with EndWhen, the server ends by itself once
// its last client hung up after a status for which EndWhen holds, and not
// while a client is connected or after a hang-up for which it does not.
func TestRelayEndsWhenReleased(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.sock")
	store := &record.Memory{}
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Status: store, Reporter: newReports(), Logf: t.Logf,
		EndWhen: func(s *record.Status, _ *record.Replica) bool { return s != nil && s.Restarts == 7 }}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		srv.Serve(ctx, ln)
	}()
	// connect dials, waits for a status with restarts n, and returns the
	// client, still connected.
	connect := func(n int32) *Client {
		t.Helper()
		c, _, err := Dial(ctx, path, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		for s := range c.Watch(ctx) {
			if s.Restarts == n {
				return c
			}
		}
		t.Fatalf("no status with %d restarts: %v", n, ctx.Err())
		return nil
	}

	connect(0).Close() // EndWhen does not hold: it serves on
	c := connect(0)
	other := connect(0)
	if _, err := store.Update(ctx, func(s *record.Status) error { s.Restarts = 7; return nil }); err != nil {
		t.Fatal(err)
	}
	for s := range c.Watch(ctx) {
		if s.Restarts == 7 {
			break
		}
	}
	c.Close() // another client is still connected: it serves on
	connect(7).Close()
	select {
	case <-ended:
		t.Fatal("the server ended while a client was connected")
	default:
	}
	other.Close()
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the server did not end once its last client hung up after the release")
	}
}

func TestSanitize(t *testing.T) {
	if _, ok := sanitize(supervise.Report{Replica: record.Replica{State: "Owned"}}); ok {
		t.Error("a report with an unknown state was accepted")
	}
	long := strings.Repeat("é", record.MaxMessage)
	events := make([]supervise.Event, 20)
	for i := range events {
		events[i] = supervise.Event{Type: "Normal", Reason: "R", Note: long}
	}
	events[0].Type = "Fatal"
	r, ok := sanitize(supervise.Report{Replica: record.Replica{State: record.StateFailed, Message: long}, Spread: time.Hour, Events: events})
	if !ok {
		t.Fatal("a Failed report was refused")
	}
	if len(r.Message) > record.MaxMessage || !strings.HasPrefix(long, r.Message) {
		t.Errorf("message of %d bytes kept, want at most %d on a rune boundary", len(r.Message), record.MaxMessage)
	}
	if len(r.Events) != maxEvents || r.Events[0].Type != "Normal" || len(r.Events[0].Note) > maxEventNote {
		t.Errorf("events kept: %d (want %d, none of type Fatal, notes ≤ %d bytes)", len(r.Events), maxEvents, maxEventNote)
	}
	if r.Spread != maxSpread {
		t.Errorf("spread %v kept, want %v", r.Spread, maxSpread)
	}
}
