package t9k

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "batch.tensorstack.dev/v1beta1", Kind: "TensorFlowTrainingJob", Decode: decode},
}

// SchedulerName is the scheduler of pods that ask for the T9k scheduler.
const SchedulerName = "t9k-scheduler"

var (
	spec      = field.NewPath("spec")
	types     = map[string]job.ReplicaType{"chief": job.Chief, "worker": job.Worker, "ps": job.PS, "evaluator": job.Evaluator}
	typeNames = []string{"chief", "evaluator", "ps", "worker"}
)

// SetDefaults applies the defaults: one replica, restartPolicy Never (T9k
// documents none; Kubeflow's), and `sleep inf` as the debug command.
func SetDefaults(s *Spec) {
	for _, r := range s.ReplicaSpecs {
		if r == nil {
			continue
		}
		if r.Replicas == nil {
			r.Replicas = convert.Ptr(int32(1))
		}
		if r.RestartPolicy == "" {
			r.RestartPolicy = string(job.RestartNever)
		}
	}
	if s.RunMode != nil && s.RunMode.Debug != nil {
		for i := range s.RunMode.Debug.ReplicaSpecs {
			if d := &s.RunMode.Debug.ReplicaSpecs[i]; len(d.Command) == 0 {
				d.Command = []string{"sleep", "inf"}
			}
		}
	}
}

func decode(c *convert.Context) *job.Job {
	var in TensorFlowTrainingJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaults(&in.Spec)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.TensorFlow)
	base := spec.Child("replicaSpecs")
	for i, rs := range in.Spec.ReplicaSpecs {
		if rs == nil {
			c.Error(field.Required(base.Index(i), "a replica spec"))
			continue
		}
		replica(c, r, rs, base.Index(i))
	}
	runPolicy(c, r, j, in.Spec.RunPolicy)
	if s := in.Spec.Scheduler; s != nil && s.T9kScheduler != nil {
		j.Scheduler = &job.SchedulerSpec{SchedulerName: SchedulerName, Queue: s.T9kScheduler.Queue, Priority: s.T9kScheduler.Priority}
		r.SetField("scheduler", spec.Child("scheduler", "t9kScheduler"))
	}
	if tb := in.Spec.TensorBoardSpec; tb != nil {
		r.SetField("tensorboard", spec.Child("tensorboardSpec"))
		j.TensorBoard = tensorBoard(c, tb, spec.Child("tensorboardSpec"))
	}
	if m := in.Spec.RunMode; m != nil {
		runMode(c, r, j, m)
	}
	j.Source = c.Source(r.Fill(j, base, spec.Child("runPolicy")))
	return j
}

// replicaType converts a T9k type spelling, reporting an unknown one.
func replicaType(c *convert.Context, s string, path *field.Path) (job.ReplicaType, bool) {
	if s == "" {
		c.Error(field.Required(path, "one of chief, evaluator, ps, worker"))
		return "", false
	}
	t, ok := types[strings.ToLower(s)]
	if !ok {
		c.Error(field.NotSupported(path, s, typeNames))
	}
	return t, ok
}

func replica(c *convert.Context, r *convert.Replicas, rs *ReplicaSpec, path *field.Path) {
	t, ok := replicaType(c, rs.Type, path.Child("type"))
	if !ok {
		return
	}
	s := &job.ReplicaSpec{Replicas: rs.Replicas, RestartPolicy: job.RestartPolicy(rs.RestartPolicy), Template: rs.Template}
	if s.RestartPolicy == job.RestartExitCode {
		s.RetryableExitCodes = append([]int32(nil), convert.LegacyRetryableExitCodes...)
	}
	if !r.Add(c, t, rs.Type, s, path, path.Child("type")) {
		return
	}
	r.SetPort(t, s, path.Child("template"))
	c.WarnTemplateRestartPolicy(s, path.Child("template"), path.Child("restartPolicy"))
}

func runPolicy(c *convert.Context, r *convert.Replicas, j *job.Job, p *RunPolicy) {
	if p == nil {
		return
	}
	j.RunPolicy.BackoffLimit = p.BackoffLimit
	j.RunPolicy.ActiveDeadlineSeconds = p.ActiveDeadlineSeconds
	if p.CleanUpPolicy == nil {
		return
	}
	at := spec.Child("runPolicy", "cleanUpPolicy")
	r.SetField("runPolicy.cleanPodPolicy", at)
	switch *p.CleanUpPolicy {
	case "None":
		j.RunPolicy.CleanPodPolicy = job.CleanNone
	case "All":
		j.RunPolicy.CleanPodPolicy = job.CleanAll
	case "Unfinished":
		j.RunPolicy.CleanPodPolicy = job.CleanRunning
	default:
		c.Error(field.NotSupported(at, *p.CleanUpPolicy, []string{"All", "None", "Unfinished"}))
	}
}
