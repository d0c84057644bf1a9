package mxv1alpha1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "fioravanzo.org/v1alpha1", Kind: "MXJob", Decode: decode},
	{APIVersion: "kubeflow.org/v1alpha1", Kind: "MXJob", Decode: decode},
	{APIVersion: "mlkube.io/v1beta1", Kind: "MxJob", Decode: decode},
	{APIVersion: "mxnet.mlkube.io/v1beta1", Kind: "MxJob", Decode: decode},
}

var (
	spec      = field.NewPath("spec")
	types     = map[string]job.ReplicaType{"SCHEDULER": job.Scheduler, "SERVER": job.Server, "WORKER": job.Worker}
	typeNames = []string{"SCHEDULER", "SERVER", "WORKER"}
)

func decode(c *convert.Context) *job.Job {
	var in MXJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsMXJob(&in.Spec)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.MXNet)
	base := spec.Child("replicaSpecs")
	for i, rs := range in.Spec.ReplicaSpecs {
		if rs == nil {
			c.Error(field.Required(base.Index(i), "a replica spec"))
			continue
		}
		replica(c, r, rs, base.Index(i))
	}
	r.SetField("jobMode", spec.Child("jobMode"))
	switch mode := strings.ToLower(*in.Spec.JobMode); mode {
	case "dist", "local":
		j.JobMode = mode
	default:
		c.Error(field.NotSupported(spec.Child("jobMode"), *in.Spec.JobMode, []string{"dist", "local"}))
	}
	if tp := in.Spec.TerminationPolicy; tp != nil && tp.Chief != nil {
		at := spec.Child("terminationPolicy", "chief")
		r.SetField("successReplica", at)
		if t, ok := types[strings.ToUpper(tp.Chief.ReplicaName)]; ok {
			j.SuccessReplica = &job.ReplicaRef{Type: t, Index: tp.Chief.ReplicaIndex}
		} else {
			c.Error(field.NotSupported(at.Child("replicaName"), tp.Chief.ReplicaName, typeNames))
		}
	}
	if in.Spec.SchedulerName != "" {
		j.Scheduler = &job.SchedulerSpec{SchedulerName: in.Spec.SchedulerName}
	}
	if in.Spec.MXImage != nil {
		c.NoEffect(spec.Child("mxImage"), "the operator never used it (MXNet has no default server container)")
	}
	j.Source = c.Source(r.Fill(j, base, spec))
	return j
}

func replica(c *convert.Context, r *convert.Replicas, rs *MXReplicaSpec, path *field.Path) {
	typPath := path.Child("mxReplicaType")
	if rs.MXReplicaType == "" {
		c.Error(field.Required(typPath, "one of SCHEDULER, SERVER, WORKER"))
		return
	}
	t, ok := types[strings.ToUpper(rs.MXReplicaType)]
	if !ok {
		c.Error(field.NotSupported(typPath, rs.MXReplicaType, typeNames))
		return
	}
	if rs.Template == nil {
		c.Error(field.Required(path.Child("template"), "a pod template with a container named mxnet"))
		return
	}
	s := &job.ReplicaSpec{Replicas: rs.Replicas, Port: rs.PsRootPort, Template: *rs.Template}
	s.RestartPolicy = job.RestartPolicy(s.Template.Spec.RestartPolicy)
	switch {
	case s.RestartPolicy != "":
		r.SetReplicaField(t, "restartPolicy", path.Child("template", "spec", "restartPolicy"))
	case t == job.Scheduler:
		s.RestartPolicy = job.RestartExitCode
	default:
		s.RestartPolicy = job.RestartOnFailure
	}
	if !r.Add(c, t, rs.MXReplicaType, s, path, typPath) {
		return
	}
	if rs.PsRootPort != nil {
		r.SetReplicaField(t, "port", path.Child("PsRootPort"))
	}
	r.SetPort(t, s, path.Child("template"))
}
