package operate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// LogSource is the training container of one replica's pod.
type LogSource struct {
	// Replica is TYPE-INDEX (worker-2).
	Replica string
	// Pod and Container to read.
	Pod, Container string
	// Kept, for a replica whose pod is gone, is the end of its output at
	// its last exit that failed or was stopped, as the job's keeper kept
	// it (record.LogsName).
	Kept string
}

// LogSources picks whose logs to read: replica (TYPE-INDEX), every replica
// with a pod or kept output when all, else the replica that decides the
// job's success (successReplica, chief-0, master-0, worker-0, or the
// first). A replica whose pod is gone is read from what the keeper kept.
func (c *Client) LogSources(ctx context.Context, j *Job, replica string, all bool) ([]LogSource, error) {
	pods, err := c.pods(ctx, j)
	if err != nil {
		return nil, err
	}
	kept, keptErr := c.keptLogs(ctx, j)
	byName := map[string]*corev1.Pod{}
	var names []string
	for i := range pods {
		r := replicaOf(&pods[i])
		if r == "" {
			continue
		}
		byName[r] = &pods[i]
		names = append(names, r)
	}
	for r := range kept {
		if byName[r] == nil {
			names = append(names, r)
		}
	}
	source := func(r string) LogSource {
		p := byName[r]
		if p == nil {
			return LogSource{Replica: r, Kept: kept[r]}
		}
		t, _, _ := parseReplica(r)
		return LogSource{Replica: r, Pod: p.Name, Container: trainingContainer(j, t, p)}
	}
	if all {
		if len(names) == 0 {
			return nil, fmt.Errorf("job %s has no pods, and no output of its replicas was kept%s", j.Name, keptErr)
		}
		sortReplicas(names)
		out := make([]LogSource, len(names))
		for i, r := range names {
			out[i] = source(r)
		}
		return out, nil
	}
	if replica == "" {
		replica = j.mainReplica()
	}
	t, i, err := parseReplica(replica)
	if err != nil {
		return nil, err
	}
	r := replicaName(t, i)
	if byName[r] == nil && kept[r] == "" {
		return nil, fmt.Errorf("replica %s of job %s has no pod, and none of its output was kept (the output of 256 replicas at most is kept, failed ones first; in sidecar mode only that of failed containers)%s", r, j.Name, keptErr)
	}
	return []LogSource{source(r)}, nil
}

// keptLogs reads the output the job's keeper kept, by replica. A job
// rendered before tfgen kept any has no logs ConfigMap: none kept. The
// error is for messages: "" or "; " and the reason it could not be read.
func (c *Client) keptLogs(ctx context.Context, j *Job) (map[string]string, string) {
	cm, err := c.Kube.CoreV1().ConfigMaps(j.Namespace).Get(ctx, record.LogsName(j.Name), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, ""
	case err != nil:
		return nil, fmt.Sprintf("; reading the kept output: %v", err)
	}
	return cm.Data, ""
}

// mainReplica is the replica whose logs `tfgen logs` shows by default.
func (j *Job) mainReplica() string {
	if r := j.Spec.SuccessReplica; r != nil {
		return replicaName(r.Type.Lower(), r.Index)
	}
	types := j.Types()
	for _, t := range []string{"chief", "master", "worker"} {
		for _, have := range types {
			if have == t {
				return replicaName(t, 0)
			}
		}
	}
	if len(types) > 0 {
		return replicaName(types[0], 0)
	}
	return "worker-0"
}

// LogOptions say how to read logs.
type LogOptions struct {
	// Follow streams until the containers end or ctx is done.
	Follow bool
	// Tail, when set, starts that many lines from the end.
	Tail *int64
	// Prefix puts "[worker-2] " before every line.
	Prefix bool
	// Notes, when not nil, is told when output comes from what the keeper
	// kept, not from a pod.
	Notes io.Writer
}

// Logs copies the logs of sources in namespace ns to w: one after the
// other, or all at once when following. A source that fails does not stop
// the others; the errors are returned together.
func (c *Client) Logs(ctx context.Context, ns string, sources []LogSource, opts LogOptions, w io.Writer) error {
	var mu sync.Mutex
	read := func(s LogSource) error {
		prefix := ""
		if opts.Prefix {
			prefix = "[" + s.Replica + "] "
		}
		if s.Pod == "" {
			if opts.Notes != nil {
				fmt.Fprintf(opts.Notes, "replica %s has no pod: the end of its output at its last exit that failed or was stopped, as its job kept it\n", s.Replica)
			}
			return copyLines(strings.NewReader(lastLines(s.Kept, opts.Tail)), w, prefix, &mu)
		}
		req := c.Kube.CoreV1().Pods(ns).GetLogs(s.Pod, &corev1.PodLogOptions{Container: s.Container, Follow: opts.Follow, TailLines: opts.Tail})
		rc, err := req.Stream(ctx)
		if err != nil {
			return fmt.Errorf("logs of replica %s (pod %s, container %s): %w", s.Replica, s.Pod, s.Container, err)
		}
		defer rc.Close()
		return copyLines(rc, w, prefix, &mu)
	}
	if !opts.Follow || len(sources) == 1 {
		var errs []error
		for _, s := range sources {
			errs = append(errs, read(s))
		}
		return errors.Join(errs...)
	}
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Go(func() { errs[i] = read(s) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// copyLines copies r to w line by line, each line whole and prefixed,
// holding mu while it writes.
func copyLines(r io.Reader, w io.Writer, prefix string, mu *sync.Mutex) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if line[len(line)-1] != '\n' {
				line += "\n"
			}
			mu.Lock()
			_, werr := io.WriteString(w, prefix+line)
			mu.Unlock()
			if werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lastLines is the last n lines of text, all of it when n is nil.
func lastLines(text string, n *int64) string {
	if n == nil {
		return text
	}
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" || *n == 0 {
		return ""
	}
	return strings.Join(lines[max(0, int64(len(lines))-*n):], "")
}

// replicaOf returns TYPE-INDEX of a job's pod, or "".
func replicaOf(p *corev1.Pod) string {
	t := p.Labels[LabelReplicaType]
	if t == "" {
		return ""
	}
	_, i, err := parseReplica(p.Name)
	if err != nil {
		return ""
	}
	return replicaName(t, i)
}
