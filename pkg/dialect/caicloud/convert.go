package caicloud

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "kubeflow.caicloud.io/v1alpha1", Kind: "TFJob", Decode: decode},
}

// The values of spec.type.
const (
	TypeTraining    = "Training"
	TypeServing     = "Serving"
	TypeTensorBoard = "TensorBoard"
)

// The values of tfReplicaType.
const (
	ReplicaPS     = "PS"
	ReplicaWorker = "Worker"
	ReplicaLocal  = "Local"
)

var (
	spec      = field.NewPath("spec")
	typeNames = []string{ReplicaLocal, ReplicaPS, ReplicaWorker}
)

// notRead is why the fields the controller never read have no effect.
const notRead = "the caicloud controller never read it"

// SetDefaults applies the clientset's defaults: spec.type Training and one
// replica per spec. The restart policy defaults when converting: the
// template's restartPolicy, else Always, the default of the bare pods the
// controller made.
func SetDefaults(s *TFJobSpec) {
	if s.Type == nil || *s.Type == "" {
		s.Type = convert.Ptr(TypeTraining)
	}
	for _, r := range s.Specs {
		if r != nil && r.Replicas == nil {
			r.Replicas = convert.Ptr(int32(1))
		}
	}
}

func decode(c *convert.Context) *job.Job {
	var in TFJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaults(&in.Spec)
	if !training(c, *in.Spec.Type) {
		return nil
	}
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.TensorFlow)
	base := spec.Child("tfReplicaSpec")
	seen := map[string]bool{}
	for i, rs := range in.Spec.Specs {
		if rs == nil {
			c.Error(field.Required(base.Index(i), "a replica spec"))
			continue
		}
		seen[replica(c, r, rs, base.Index(i), len(in.Spec.Specs))] = true
	}
	if seen[ReplicaPS] && !seen[ReplicaWorker] {
		c.Error(field.Required(base, "a Worker replica spec: the caicloud controller's job succeeded once its workers had"))
	}
	if !seen[ReplicaLocal] && len(r.Types()) > 0 {
		// The controller's job succeeded once every worker had.
		j.SuccessPolicy = job.SuccessAllWorkers
		c.Warn("%s: the caicloud controller passed the cluster to each replica as the arguments of its first container "+
			"(--worker_hosts, --ps_hosts, --job_name, --task_index, in place of the template's args); "+
			"tfgen passes it as TF_CONFIG, as Kubeflow's operators do, and keeps the template's args: "+
			"a program that reads those flags must read TF_CONFIG instead", base)
	}
	for _, f := range []struct {
		name  string
		value *string
	}{{"dataDir", in.Spec.DataDir}, {"modelDir", in.Spec.ModelDir}, {"logDir", in.Spec.LogDir}, {"exportDir", in.Spec.ExportDir}} {
		if f.value != nil {
			c.NoEffect(spec.Child(f.name), notRead)
		}
	}
	j.Source = c.Source(r.Fill(j, base, spec))
	return j
}

// training reports whether spec.type t is Training, reporting why not:
// Serving and TensorBoard jobs are refused.
func training(c *convert.Context, t string) bool {
	at := spec.Child("type")
	switch t {
	case TypeTraining:
		return true
	case TypeServing:
		c.Error(refused(at, t, "a Serving job serves a trained model and never ends; tfgen renders training jobs only: run the serving container as a Deployment with a Service"))
	case TypeTensorBoard:
		c.Error(refused(at, t, "a TensorBoard job runs TensorBoard alone; tfgen renders training jobs only: run the TensorBoard container as a Deployment with a Service"))
	default:
		c.Error(field.NotSupported(at, t, []string{TypeTraining}))
	}
	return false
}

func refused(at *field.Path, value, why string) *field.Error {
	return &field.Error{Type: field.ErrorTypeNotSupported, Field: at.String(), BadValue: value, Detail: why}
}

// restartPolicies are the values of a pod's restartPolicy.
var restartPolicies = []string{string(job.RestartAlways), string(job.RestartNever), string(job.RestartOnFailure)}

// replica converts the replica spec rs, one of n, at path, and returns
// its tfReplicaType, or "" when that is none of Local, PS and Worker.
func replica(c *convert.Context, r *convert.Replicas, rs *TFReplicaSpec, path *field.Path, n int) string {
	typPath := path.Child("tfReplicaType")
	if rs.TFReplicaType == nil || *rs.TFReplicaType == "" {
		c.Error(field.Required(typPath, "one of Local, PS, Worker"))
		return ""
	}
	name := *rs.TFReplicaType
	var t job.ReplicaType
	switch name {
	case ReplicaPS:
		t = job.PS
	case ReplicaWorker:
		t = job.Worker
	case ReplicaLocal:
		t = job.Worker
		if n > 1 {
			c.Error(field.Invalid(typPath, name, "a Local replica spec must be the job's only one: the caicloud controller ran it alone, as one pod"))
			return name
		}
	default:
		c.Error(field.NotSupported(typPath, name, typeNames))
		return ""
	}
	if rs.TerminationPolicy != nil {
		c.NoEffect(path.Child("terminationPolicy"), notRead+": the job succeeds when its workers have, as it did there")
	}
	if rs.Template == nil {
		c.Error(field.Required(path.Child("template"), "a pod template"))
		return name
	}
	s := &job.ReplicaSpec{Replicas: rs.Replicas, Port: convert.Ptr(job.DefaultTFPort), Template: *rs.Template}
	if name == ReplicaLocal && *s.Replicas != 1 {
		c.NoEffect(path.Child("replicas"), "a Local replica spec runs one pod, as the caicloud controller ran it")
		s.Replicas = convert.Ptr(int32(1))
	}
	if !restartPolicy(c, r, t, s, path.Child("template", "spec", "restartPolicy")) || !r.Add(c, t, name, s, path, typPath) {
		return name
	}
	if name != ReplicaLocal {
		dropClusterArgs(c, s, path.Child("template"))
	}
	return name
}

// restartPolicy sets the restart policy of spec (type t) from its pod
// template's restartPolicy at path, a pod's (the controller made bare
// pods): Always when unset, as the API server defaults it.
func restartPolicy(c *convert.Context, r *convert.Replicas, t job.ReplicaType, s *job.ReplicaSpec, path *field.Path) bool {
	switch p := job.RestartPolicy(s.Template.Spec.RestartPolicy); p {
	case "":
		s.RestartPolicy = job.RestartAlways
	case job.RestartAlways, job.RestartNever, job.RestartOnFailure:
		s.RestartPolicy = p
		r.SetReplicaField(t, "restartPolicy", path)
	default:
		c.Error(field.NotSupported(path, p, restartPolicies))
		return false
	}
	return true
}
