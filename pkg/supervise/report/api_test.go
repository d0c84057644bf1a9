package report

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

type fakePods struct {
	mu      sync.Mutex
	calls   []string
	entered chan struct{} // the first patch says it started
	block   chan struct{} // then waits for this
	failOne bool
}

func (f *fakePods) PatchPodMetadata(_ context.Context, _, name string, labels, ann map[string]*string) (*kube.Pod, error) {
	if f.block != nil {
		close(f.entered)
		<-f.block
		f.block = nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failOne {
		f.failOne = false
		return nil, errors.New("connection refused")
	}
	f.calls = append(f.calls, "patch "+*ann[record.AnnotationState]+" labels="+*labels["training.kubeflow.org/replica-index"])
	p := &kube.Pod{}
	p.UID = "uid-1"
	return p, nil
}

func (f *fakePods) CreateEvent(_ context.Context, ev *kube.Event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "event "+ev.Reason+" "+ev.Type+" "+string(ev.Regarding.UID)+" "+ev.ReportingController)
	return nil
}

func TestAPIOrderAndFlush(t *testing.T) {
	f := &fakePods{entered: make(chan struct{}), block: make(chan struct{}), failOne: true}
	a := NewAPI(f, "ns", "j-worker-1", "", map[string]string{"training.kubeflow.org/replica-index": "1"}, func(string, ...any) {})
	a.Report(supervise.Report{Replica: record.Replica{State: "Running"}})
	<-f.entered
	a.Report(supervise.Report{Replica: record.Replica{State: "Restarting"}, Events: []supervise.Event{{Type: "Normal", Reason: "ReplicaRestarting"}}})
	a.Report(supervise.Report{Replica: record.Replica{State: "Failed"}, Events: []supervise.Event{{Type: "Warning", Reason: "ReplicaFailed"}}})
	a.Report(supervise.Report{Events: []supervise.Event{{Type: "Warning", Reason: "JobFailed"}}})
	close(f.block) // the first patch (Running) goes through after a retry; the rest come as one batch with one patch, of the last record
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"patch Running labels=1",
		"patch Failed labels=1",
		"event ReplicaRestarting Normal uid-1 tfgen.io/tfsupervisor",
		"event ReplicaFailed Warning uid-1 tfgen.io/tfsupervisor",
		"event JobFailed Warning uid-1 tfgen.io/tfsupervisor",
	}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Flush(ctx); err != nil {
		t.Errorf("Flush with nothing queued: %v", err)
	}
}

// TestAPISpread: a report that may wait is delivered, at the latest with
// the next that may not.
func TestAPISpread(t *testing.T) {
	f := &fakePods{}
	a := NewAPI(f, "ns", "j-worker-1", "uid-1", map[string]string{"training.kubeflow.org/replica-index": "1"}, func(string, ...any) {})
	a.Report(supervise.Report{Replica: record.Replica{State: "Running"}, Spread: time.Hour})
	a.Report(supervise.Report{Replica: record.Replica{State: "Succeeded"}})
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"patch Succeeded labels=1"}, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestAPISoonerAndFlush: a report that may wait less than the one
// waiting cuts the wait short (a first start held back an hour does not
// hold back the job's end, which may wait a moment), and a Flush delivers
// what waits at once; each batch patches its latest record once.
func TestAPISoonerAndFlush(t *testing.T) {
	f := &fakePods{}
	a := NewAPI(f, "ns", "j-worker-1", "uid-1", map[string]string{"training.kubeflow.org/replica-index": "1"}, func(string, ...any) {})
	a.Report(supervise.Report{Replica: record.Replica{State: "Running"}, Defer: time.Hour})
	a.Report(supervise.Report{Replica: record.Replica{State: "Stopped"}, Defer: time.Millisecond, Spread: time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		f.mu.Lock()
		n := len(f.calls)
		f.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the job's end waited for the first start's hour")
		case <-time.After(time.Millisecond):
		}
	}
	a.Report(supervise.Report{Replica: record.Replica{State: "Idle"}, Defer: time.Hour})
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("Flush waited for the hour: %v", err)
	}
	if diff := cmp.Diff([]string{"patch Stopped labels=1", "patch Idle labels=1"}, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
