package localrun

import (
	"fmt"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// jobConfig returns the job-wide part of every replica's supervision: what
// the templates pass to tfsupervisor as job-wide flags (docs/contract.md).
func jobConfig(j *job.Job, l *cluster.Layout, ns string) (supervise.Config, error) {
	rp := j.RunPolicy
	c := supervise.Config{Job: j.Name, Namespace: ns, Layout: l, SuccessPolicy: string(j.SuccessPolicy), BackoffLimit: rp.BackoffLimit}
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
	return c, nil
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
