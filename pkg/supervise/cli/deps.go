package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/board"
	"github.com/tfgen/tfgen/pkg/supervise/relay"
	"github.com/tfgen/tfgen/pkg/supervise/report"
)

// deps are supervise's real parts.
type deps struct {
	status   record.Source
	reporter supervise.Reporter
	previous *record.Replica // the replica's record as its pod carries it
	keeper   *supervise.Keeper
	inPod    bool      // supervising in a pod: the replica lingers when done
	podUID   string    // the pod's UID, when read from the API server
	pod      *kube.Pod // the pod as read at start, when read from the API server
}

// standalone wires the status and the reporter in memory and on stderr,
// with a keeper of this replica alone: there is no cluster.
func standalone(cfg *supervise.Config, stderr io.Writer) *deps {
	cfg.Logf("no cluster (neither KUBERNETES_SERVICE_HOST nor KUBECONFIG is set): supervising standalone, reporting to stderr")
	log := &report.Log{W: stderr, Replica: cfg.Self.String()}
	b, store := board.New(), &record.Memory{}
	d := &deps{status: store, reporter: report.Multi{log, b.Reporter(cfg.Self)}}
	d.keeper = &supervise.Keeper{Job: cfg.Job, Replicas: b, Store: store, Reporter: log, Logf: cfg.Logf}
	return d
}

// relayTimeout bounds the wait for the sidecar's socket at start (the
// kubelet starts the sidecar first, but need not wait for it to listen).
const relayTimeout = time.Minute

// relayed wires the record and reporter through the sidecar at socket:
// the training container's supervisor holds no API credentials.
func relayed(ctx context.Context, cfg *supervise.Config, socket string, stderr io.Writer) (*deps, error) {
	dctx, cancel := context.WithTimeout(ctx, relayTimeout)
	defer cancel()
	c, prev, err := relay.Dial(dctx, socket, cfg.Logf)
	if err != nil {
		return nil, err
	}
	return &deps{status: c, reporter: report.Multi{&report.Log{W: stderr, Replica: cfg.Self.String()}, c}, previous: prev, inPod: true}, nil
}

// keep runs the keeper, if there is one, until the returned stop is
// called; stop waits for its last write.
func (d *deps) keep(ctx context.Context) (stop func()) {
	if d.keeper == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.keeper.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// clusterEnvFits checks, before anything runs, that the job's layout as
// rendered gives this replica a cluster environment (TF_CONFIG, say) the
// kernel takes; a replica past the rendered count (a resize made it) is
// checked as the last. The supervisor builds it again at each start, from
// the layout as the job's status then has it.
func clusterEnvFits(cfg *supervise.Config) error {
	l := cfg.Job.Layout
	r, ok := l.Role(cfg.Self.Type)
	if !ok {
		return nil
	}
	_, err := l.Scaled(map[string]int32{r.Type: max(r.Replicas, cfg.Self.Index+1)}).Env(cfg.Self.Type, cfg.Self.Index, cfg.Job.Namespace)
	return err
}

// MaxTerminationMessage is what the kubelet keeps of a container's
// termination message.
const MaxTerminationMessage = 4096

// DefaultTerminationLog is the kubelet's default terminationMessagePath.
const DefaultTerminationLog = "/dev/termination-log"

// writeTermination writes r as one JSON line to path, once. It writes a
// temporary file and renames it into place; where that cannot work (the
// kubelet bind-mounts /dev/termination-log, and a mount point cannot be
// replaced) it writes the line with a single write. The default path is
// only written when it exists, i.e. in a container.
func writeTermination(path string, r supervise.Result) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); path == DefaultTerminationLog && err != nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	for _, s := range []*string{&r.Message, &r.Reason} { // the message goes first
		if over := len(b) + 1 - MaxTerminationMessage; over > 0 {
			*s = (*s)[:max(0, len(*s)-over)]
			b, _ = json.Marshal(r)
		}
	}
	b = append(b, '\n')
	if tmp, err := os.CreateTemp(filepath.Dir(path), ".termination-*"); err == nil {
		_, werr := tmp.Write(b)
		cerr := tmp.Close()
		if werr == nil && cerr == nil && os.Rename(tmp.Name(), path) == nil {
			return nil
		}
		os.Remove(tmp.Name())
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write termination message: %w", err)
	}
	return nil
}
