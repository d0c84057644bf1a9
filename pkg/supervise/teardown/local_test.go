package teardown

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocalStop(t *testing.T) {
	var l Local
	var stopped []string
	stop := func(name string) context.CancelFunc { return func() { stopped = append(stopped, name) } }
	l.Add("ps", stop("ps-0"))
	l.Add("ps", stop("ps-1"))
	l.Add("worker", stop("worker-0"))
	l.Add("chief", stop("chief-0"))
	if err := l.Stop(context.Background(), []string{"ps", "evaluator", "worker"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ps-0", "ps-1", "worker-0"}, stopped); diff != "" {
		t.Errorf("stopped (-want +got):\n%s", diff)
	}
	// Stopping again stops nothing twice; a replica added late stops at once.
	l.Stop(context.Background(), []string{"ps"})
	l.Add("worker", stop("worker-1"))
	if diff := cmp.Diff([]string{"ps-0", "ps-1", "worker-0", "worker-1"}, stopped); diff != "" {
		t.Errorf("stopped (-want +got):\n%s", diff)
	}
}
