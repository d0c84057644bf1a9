package operate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// LogSource is the training container of one replica's pod.
type LogSource struct {
	// Replica is TYPE-INDEX (worker-2).
	Replica string
	// Pod and Container to read.
	Pod, Container string
}

// LogSources picks whose logs to read: replica (TYPE-INDEX), every replica
// with a pod when all, else the replica that decides the job's success
// (successReplica, chief-0, master-0, worker-0, or the first).
func (c *Client) LogSources(ctx context.Context, j *Job, replica string, all bool) ([]LogSource, error) {
	pods, err := c.pods(ctx, j)
	if err != nil {
		return nil, err
	}
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
	source := func(r string) LogSource {
		p := byName[r]
		t, _, _ := parseReplica(r)
		return LogSource{Replica: r, Pod: p.Name, Container: trainingContainer(j, t, p)}
	}
	if all {
		if len(names) == 0 {
			return nil, fmt.Errorf("job %s has no pods", j.Name)
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
	if byName[r] == nil {
		return nil, fmt.Errorf("replica %s of job %s has no pod", r, j.Name)
	}
	return []LogSource{source(r)}, nil
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
}

// Logs copies the logs of sources in namespace ns to w: one after the
// other, or all at once when following. A source that fails does not stop
// the others; the errors are returned together.
func (c *Client) Logs(ctx context.Context, ns string, sources []LogSource, opts LogOptions, w io.Writer) error {
	var mu sync.Mutex
	read := func(s LogSource) error {
		req := c.Kube.CoreV1().Pods(ns).GetLogs(s.Pod, &corev1.PodLogOptions{Container: s.Container, Follow: opts.Follow, TailLines: opts.Tail})
		rc, err := req.Stream(ctx)
		if err != nil {
			return fmt.Errorf("logs of replica %s (pod %s, container %s): %w", s.Replica, s.Pod, s.Container, err)
		}
		defer rc.Close()
		prefix := ""
		if opts.Prefix {
			prefix = "[" + s.Replica + "] "
		}
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
