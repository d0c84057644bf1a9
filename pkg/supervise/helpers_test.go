package supervise_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/board"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
	"github.com/tfgen/tfgen/pkg/supervise/report"
)

// clock is a Clock the test drives. In auto mode every timer fires at once
// (time jumps ahead by its duration); otherwise timers fire on Advance.
// Either way each requested duration is recorded and announced on created.
type clock struct {
	mu      sync.Mutex
	now     time.Time
	auto    bool
	timers  []timer
	waits   []time.Duration
	created chan time.Duration
}

type timer struct {
	at time.Time
	ch chan time.Time
}

func newClock(auto bool) *clock {
	return &clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), auto: auto, created: make(chan time.Duration, 100)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	if c.auto {
		c.now = c.now.Add(d)
		ch <- c.now
	} else {
		c.timers = append(c.timers, timer{at: c.now.Add(d), ch: ch})
	}
	c.created <- d
	return ch
}

// Advance moves time ahead by d and fires the timers due.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

func (c *clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// recorder is a Reporter that keeps every report.
type recorder struct {
	mu      sync.Mutex
	reports []supervise.Report
	idling  chan struct{} // closed at the first ReplicaIdle event
}

func (r *recorder) Report(rep supervise.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, rep)
	for _, e := range rep.Events {
		if e.Reason == supervise.ReasonReplicaIdle && r.idling != nil {
			close(r.idling)
			r.idling = nil
		}
	}
}

// idle returns a channel closed once the replica reports it idles.
func (r *recorder) idle() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rep := range r.reports {
		for _, e := range rep.Events {
			if e.Reason == supervise.ReasonReplicaIdle {
				ch := make(chan struct{})
				close(ch)
				return ch
			}
		}
	}
	if r.idling == nil {
		r.idling = make(chan struct{})
	}
	return r.idling
}

func (r *recorder) Flush(context.Context) error { return nil }

// events returns the reasons of every event reported, in order.
func (r *recorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rep := range r.reports {
		for _, e := range rep.Events {
			out = append(out, e.Reason)
		}
	}
	return out
}

// scaler is a Scaler that records what it was asked to set ("ps to 0"),
// and fails each call while fail says so.
type scaler struct {
	mu      sync.Mutex
	calls   []string
	set     map[string]int32 // what each StatefulSet is set to, once set
	changed chan struct{}    // closed and replaced at each call that succeeded
	fail    func(t string, n int32) error
}

// Replicas implements supervise.Scaler: a StatefulSet never set does not
// exist.
func (s *scaler) Replicas(_ context.Context, t string) (int32, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.set[t]
	return n, ok, nil
}

// drift sets type t's StatefulSet to n behind the keeper's back.
func (s *scaler) drift(t string, n int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set[t] = n
}

func (s *scaler) Scale(_ context.Context, t string, n int32) error {
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail != nil {
		if err := fail(t, n); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, fmt.Sprintf("%s to %d", t, n))
	if s.set == nil {
		s.set = map[string]int32{}
	}
	s.set[t] = n
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return nil
}

// Gate implements supervise.Scaler: it is recorded among the calls.
func (s *scaler) Gate(_ context.Context, t string) error {
	return s.record("gate " + t)
}

// Lift implements supervise.Scaler: it is recorded among the calls.
func (s *scaler) Lift(_ context.Context, l supervise.Lift) error {
	return s.record("lift " + l.Pod)
}

func (s *scaler) record(call string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return nil
}

// scaledTo returns the calls that succeeded, in order.
func (s *scaler) scaledTo() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// await waits until the calls made are want, in order.
func (s *scaler) await(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		got := append([]string(nil), s.calls...)
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		switch {
		case slices.Equal(got, want):
			return
		case len(got) >= len(want):
			t.Fatalf("scaled %q, want %q", got, want)
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("waiting for scale calls %q: gave up; got %q", want, got)
		}
	}
}

// script is a training process that exits with the next of codes on each
// run ("k9" kills itself with signal 9) and counts its runs in a file.
type script struct {
	t     *testing.T
	count string
}

const scriptBody = `n=$(cat "$COUNT" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNT"
eval "c=\${$n:-0}"
case $c in k*) kill -${c#k} $$;; *) exit $c;; esac`

func newScript(t *testing.T) *script {
	return &script{t: t, count: filepath.Join(t.TempDir(), "count")}
}

func (s *script) command(codes ...string) supervise.Command {
	args := append([]string{"sh", "-c", scriptBody, "sh"}, codes...)
	return supervise.Command{Args: args, Env: append(os.Environ(), "COUNT="+s.count)}
}

// runs returns how many times the script ran.
func (s *script) runs() int {
	b, err := os.ReadFile(s.count)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		s.t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

func ptr[T any](v T) *T { return &v }

// config is a lone worker with policy p and a zero backoff.
func config(p supervise.RestartPolicy) *supervise.Config {
	c := &supervise.Config{Job: &supervise.Job{Name: "j", Namespace: "ns"}, Self: supervise.Ref{Type: "worker"},
		Policy: supervise.Policy{Restart: p}, Logf: func(string, ...any) {}}
	return c
}

// layout is a job with one chief, one ps and two workers.
func layout() *cluster.Layout {
	return &cluster.Layout{Job: "j", Roles: []cluster.Role{
		{Type: "chief", Replicas: 1, Port: 2222}, {Type: "ps", Replicas: 1, Port: 2222}, {Type: "worker", Replicas: 2, Port: 2222}}}
}

// fixture is one replica of a job, with the job's keeper beside it on an
// in-memory record and board, as in `tfgen run`. The keeper has clocks
// and reporters of its own (real time, no write interval), so that the
// replica's timers and events are its own.
type fixture struct {
	cfg     *supervise.Config
	store   *record.Memory
	board   *board.Board
	rep     *recorder // the replica's reports
	jobRep  *recorder // the keeper's
	sc      *scaler
	clock   *clock
	signals chan os.Signal
	// keeperClock is the keeper's clock; nil is the real one.
	keeperClock supervise.Clock
}

func newFixture(t *testing.T, cfg *supervise.Config, auto bool) *fixture {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return &fixture{cfg: cfg, store: &record.Memory{}, board: board.New(), rep: &recorder{}, jobRep: &recorder{}, sc: &scaler{},
		clock: newClock(auto), signals: make(chan os.Signal, 4)}
}

var runner = proc.NewRunner(nil)

func (f *fixture) supervisor() *supervise.Supervisor {
	return &supervise.Supervisor{Config: f.cfg, Runner: runner, Status: f.store, Reporter: report.Multi{f.rep, f.board.Reporter(f.cfg.Self)},
		Clock: f.clock, Signals: f.signals}
}

// keep runs the job's keeper until the returned stop is called, which
// waits for its last write.
func (f *fixture) keep(t *testing.T) (stop func()) {
	return runKeeper(t, &supervise.Keeper{Job: f.cfg.Job, Replicas: f.board, Store: f.store, Reporter: f.jobRep, Scaler: f.sc,
		Clock: f.keeperClock, WriteInterval: -1, Logf: t.Logf})
}

// run runs cmd under the replica's supervisor, with the keeper, and
// returns once the keeper has written what the last exit made of the job.
func (f *fixture) run(t *testing.T, cmd supervise.Command) supervise.Result {
	stop := f.keep(t)
	res := f.supervisor().Run(context.Background(), cmd)
	stop()
	return res
}

func (f *fixture) status(t *testing.T) *record.Status {
	t.Helper()
	s, err := f.store.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replica returns the replica's record as its pod would carry it.
func (f *fixture) replica(t *testing.T) record.Replica {
	t.Helper()
	for _, o := range f.board.Replicas() {
		if o.Ref == f.cfg.Self {
			return o.Replica
		}
	}
	t.Fatalf("replica %s reported nothing", f.cfg.Self)
	return record.Replica{}
}

// fifo makes a named pipe; a child writes a line to it once ready.
func fifo(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
