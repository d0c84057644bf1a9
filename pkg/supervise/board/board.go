// Package board keeps the records of a job's replicas that all run in one
// process (`tfgen run`, a standalone tfsupervisor), where a cluster keeps
// them on the replicas' pods: each replica's Reporter writes its record
// here, and the job's keeper follows them as a supervise.ReplicaFeed.
package board

import (
	"context"
	"sync"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Board holds one record per replica. The zero value is not ready: use
// New.
type Board struct {
	mu      sync.Mutex
	reps    map[supervise.Ref]supervise.Observed
	changed chan struct{}
}

var _ supervise.ReplicaFeed = (*Board)(nil)

// New returns an empty Board.
func New() *Board {
	b := &Board{reps: map[supervise.Ref]supervise.Observed{}, changed: make(chan struct{}, 1)}
	b.changed <- struct{}{} // everything there is has been read
	return b
}

// Changed implements supervise.ReplicaFeed.
func (b *Board) Changed() <-chan struct{} { return b.changed }

// Departed implements supervise.ReplicaFeed: a board's replicas report
// to it directly, and none goes away unseen.
func (b *Board) Departed() []supervise.Observed { return nil }

// Replicas implements supervise.ReplicaFeed.
func (b *Board) Replicas() []supervise.Observed {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]supervise.Observed, 0, len(b.reps))
	for _, o := range b.reps {
		out = append(out, o)
	}
	return out
}

// Reporter returns the Reporter that keeps ref's record on the board.
func (b *Board) Reporter(ref supervise.Ref) supervise.Reporter {
	return reporter{b, ref, "local/" + ref.String()}
}

// PodReporter returns the Reporter of ref's record in pod: a report from
// another pod than before replaces the replica's pod, as a new pod of a
// StatefulSet does.
func (b *Board) PodReporter(ref supervise.Ref, pod string) supervise.Reporter {
	return reporter{b, ref, pod}
}

type reporter struct {
	b   *Board
	ref supervise.Ref
	pod string
}

// Report implements supervise.Reporter: a report with a State replaces
// the replica's record.
func (r reporter) Report(rep supervise.Report) {
	if rep.State == "" {
		return
	}
	r.b.mu.Lock()
	r.b.reps[r.ref] = supervise.Observed{Ref: r.ref, Pod: r.pod, Replica: rep.Replica}
	r.b.mu.Unlock()
	select {
	case r.b.changed <- struct{}{}:
	default:
	}
}

// Flush implements supervise.Reporter: records are kept as reported.
func (reporter) Flush(context.Context) error { return nil }
