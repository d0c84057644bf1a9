package record

import (
	"context"
	"fmt"

	"github.com/tfgen/tfgen/pkg/kube"
)

// LogsName is the name of job's logs ConfigMap, rendered empty: its
// keeper keeps there, by replica (TYPE-INDEX), the end of the output of
// the replicas that ran (Replica.LogTail), which `tfgen logs` reads once
// their pods are gone.
func LogsName(job string) string { return job + "-tfjob-logs" }

// MaxLogTails is the most replicas whose output the logs ConfigMap keeps:
// with MaxLogTail bytes each, half of a ConfigMap's limit (1 MiB).
const MaxLogTails = 256

// Logs is a job's logs ConfigMap. Its one writer is the job's keeper, so
// a Conflict only follows a keeper that restarted; it reads again and
// writes over.
type Logs struct {
	// Client makes the calls.
	Client ConfigMapClient
	// Namespace and Name of the ConfigMap (LogsName).
	Namespace, Name string

	last *kube.ConfigMap
}

// Save replaces what the ConfigMap keeps with tails (by replica),
// retrying transient errors and conflicts until ctx ends.
func (l *Logs) Save(ctx context.Context, tails map[string]string) error {
	if err := writeRetry.Do(ctx, func(ctx context.Context) error { return l.save(ctx, tails) }, nil); err != nil {
		return fmt.Errorf("keep logs in configmap %s/%s: %w", l.Namespace, l.Name, err)
	}
	return nil
}

func (l *Logs) save(ctx context.Context, tails map[string]string) error {
	if l.last == nil {
		cm, err := l.Client.GetConfigMap(ctx, l.Namespace, l.Name)
		if err != nil {
			return err
		}
		l.last = cm
	}
	cm := *l.last
	cm.Data = tails
	out, err := l.Client.UpdateConfigMap(ctx, &cm)
	if err != nil {
		l.last = nil
		return err
	}
	l.last = out
	return nil
}
