package localrun

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/validate"
)

// withCounts returns j with the replica counts of counts (lowercase type
// to count), validated again; j itself is left as it was.
func withCounts(j *job.Job, counts map[string]int32) (*job.Job, error) {
	if len(counts) == 0 {
		return j, nil
	}
	c := *j
	specs := map[job.ReplicaType]*job.ReplicaSpec{}
	for t, s := range j.Replicas() {
		copied := *s
		specs[t] = &copied
	}
	if c.Framework() == job.MXNet {
		c.MXReplicaSpecs = specs
	} else {
		c.TFReplicaSpecs = specs
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		n, found := counts[name], false
		for t, s := range specs {
			if t.Lower() == strings.ToLower(name) {
				s.Replicas, found = &n, true
			}
		}
		switch {
		case !found:
			var have []string
			for _, t := range c.ReplicaTypes() {
				have = append(have, t.Lower())
			}
			errs = append(errs, fmt.Errorf("--replicas %s=%d: job %s has no replica type %s (it has %s)", name, n, j.Name, name, strings.Join(have, ", ")))
		case n < 0:
			errs = append(errs, fmt.Errorf("--replicas %s=%d: the count must be 0 or more", name, n))
		}
	}
	if len(errs) == 0 {
		for _, e := range validate.Job(&c) {
			errs = append(errs, fmt.Errorf("with --replicas, %w", e))
		}
	}
	return &c, errors.Join(errs...)
}

// jobPolicy returns the job's policy, which every replica's supervision
// and the keeper share: what the templates pass to tfsupervisor as
// job-wide flags (docs/contract.md).
func jobPolicy(j *job.Job, l *cluster.Layout, ns string) (*supervise.Job, error) {
	rp := j.RunPolicy
	c := &supervise.Job{Name: j.Name, Namespace: ns, Layout: l, SuccessPolicy: string(j.SuccessPolicy), BackoffLimit: rp.BackoffLimit}
	var err error
	if c.CleanPodPolicy, err = supervise.ParseCleanPodPolicy(string(rp.CleanPodPolicy)); err != nil {
		return c, err
	}
	if rp.ActiveDeadlineSeconds != nil {
		c.ActiveDeadline = time.Duration(*rp.ActiveDeadlineSeconds) * time.Second
	}
	if rp.TTLSecondsAfterFinished != nil {
		ttl := time.Duration(*rp.TTLSecondsAfterFinished) * time.Second
		c.TTLAfterFinished = &ttl
	}
	if sr := j.SuccessReplica; sr != nil {
		c.SuccessReplica = &supervise.Ref{Type: sr.Type.Lower(), Index: sr.Index}
	}
	if sw := j.SuccessWorkers; sw != nil {
		q, err := supervise.ParseQuota(sw.String())
		if err != nil {
			return c, err
		}
		c.SuccessWorkers = &q
	}
	c.RestartScope = j.Annotations[job.AnnotationRestartScope]
	c.EvaluatorGrace = supervise.DefaultEvaluatorGrace
	if v, ok := j.Annotations[job.AnnotationEvaluatorGrace]; ok {
		if c.EvaluatorGrace, err = time.ParseDuration(v); err != nil {
			return c, fmt.Errorf("annotation %s: %w", job.AnnotationEvaluatorGrace, err)
		}
	}
	return c, c.Validate()
}

// policy sets the restart policy and grace period of replicas of spec:
// what the templates pass as per-type flags, with the local overrides.
func policy(c *supervise.Config, spec *job.ReplicaSpec, o PlanOptions) error {
	var err error
	if c.Policy.Restart, err = supervise.ParseRestartPolicy(string(spec.RestartPolicy)); err != nil {
		return err
	}
	if len(spec.RetryableExitCodes) > 0 {
		c.Policy.RetryableExitCodes = append([]int32(nil), spec.RetryableExitCodes...)
	}
	for _, code := range spec.RetryableExitCodes {
		if code < 0 || code > 255 {
			return fmt.Errorf("retryable exit code %d: want 0-255", code)
		}
	}
	c.Policy.MaxRestarts = spec.MaxRestarts
	c.Policy.Backoff = supervise.DefaultBackoff
	if o.Backoff != nil {
		c.Policy.Backoff = *o.Backoff
	}
	c.GracePeriod = 30 * time.Second
	if g := spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
		c.GracePeriod = time.Duration(*g) * time.Second
	}
	if o.GracePeriod > 0 {
		c.GracePeriod = o.GracePeriod
	}
	return nil
}
