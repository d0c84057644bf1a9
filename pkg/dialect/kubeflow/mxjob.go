package kubeflow

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// MXJob is a kubeflow.org/v1 MXJob.
type MXJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec MXJobSpec `json:"spec"`
	// status is what an operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// MXJobSpec is the spec of a kubeflow.org/v1 MXJob; the run policy may be
// in runPolicy or at the top of spec.
type MXJobSpec struct {
	FlatRunPolicy
	// runPolicy: clean-up, deadlines, backoff and gang scheduling.
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`
	// successPolicy: "" or AllWorkers.
	SuccessPolicy *string `json:"successPolicy,omitempty"`
	// jobMode: MXTrain (default) or MXTune.
	JobMode *string `json:"jobMode,omitempty"`
	// mxReplicaSpecs maps Scheduler, Server, Worker, or for MXTune
	// TunerTracker, TunerServer, Tuner (any case) to replica specs.
	MXReplicaSpecs map[string]*MXReplicaSpec `json:"mxReplicaSpecs"`
}

// MXJobV1beta1 is a kubeflow.org/v1alpha2 or v1beta1 MXJob.
type MXJobV1beta1 struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec MXJobSpecV1beta1 `json:"spec"`
	// status is what an operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// MXJobSpecV1beta1 has the run-policy fields at the top of spec.
type MXJobSpecV1beta1 struct {
	FlatRunPolicy
	// successPolicy: "" or AllWorkers.
	SuccessPolicy *string `json:"successPolicy,omitempty"`
	// jobMode: MXTrain (default) or MXTune.
	JobMode *string `json:"jobMode,omitempty"`
	// mxReplicaSpecs as in MXJobSpec.
	MXReplicaSpecs map[string]*MXReplicaSpec `json:"mxReplicaSpecs"`
}

// SetDefaultsMXJob applies Kubeflow v1's MXJob defaults: one replica,
// restartPolicy Never, jobMode MXTrain (cleanPodPolicy: see SetDefaultsTFJob).
func SetDefaultsMXJob(in *MXJob) {
	setDefaultsMXReplicas(in.Spec.MXReplicaSpecs)
	if in.Spec.JobMode == nil {
		in.Spec.JobMode = convert.Ptr("MXTrain")
	}
}

// SetDefaultsMXJobV1beta1 applies mxnet-operator v1beta1's defaults: one
// replica, restartPolicy Never, jobMode MXTrain, cleanPodPolicy Running.
func SetDefaultsMXJobV1beta1(in *MXJobV1beta1) {
	setDefaultsMXReplicas(in.Spec.MXReplicaSpecs)
	if in.Spec.JobMode == nil {
		in.Spec.JobMode = convert.Ptr("MXTrain")
	}
	if in.Spec.CleanPodPolicy == nil {
		in.Spec.CleanPodPolicy = convert.Ptr(string(job.CleanRunning))
	}
}

func setDefaultsMXReplicas(specs map[string]*MXReplicaSpec) {
	for _, s := range specs {
		if s != nil {
			SetDefaultsReplicaSpec(&s.ReplicaSpec)
		}
	}
}

var mxReplicasPath = field.NewPath("spec", "mxReplicaSpecs")

func decodeMXJob(c *convert.Context) *job.Job {
	var in MXJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsMXJob(&in)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.MXNet)
	mxReplicas(c, r, in.Spec.MXReplicaSpecs)
	var rpPath *field.Path
	j.RunPolicy, rpPath = ConvertRunPolicy(c, r, &in.Spec.FlatRunPolicy, nil, in.Spec.RunPolicy, true)
	mxCommon(c, r, j, in.Spec.SuccessPolicy, in.Spec.JobMode)
	j.Source = c.Source(r.Fill(j, mxReplicasPath, rpPath))
	return j
}

func decodeMXJobV1beta1(c *convert.Context) *job.Job {
	var in MXJobV1beta1
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsMXJobV1beta1(&in)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.MXNet)
	mxReplicas(c, r, in.Spec.MXReplicaSpecs)
	var rpPath *field.Path
	j.RunPolicy, rpPath = ConvertRunPolicy(c, r, &in.Spec.FlatRunPolicy, nil, nil, false)
	mxCommon(c, r, j, in.Spec.SuccessPolicy, in.Spec.JobMode)
	j.Source = c.Source(r.Fill(j, mxReplicasPath, rpPath))
	return j
}

func mxReplicas(c *convert.Context, r *convert.Replicas, specs map[string]*MXReplicaSpec) {
	for _, k := range SortedKeys(specs) {
		var base *ReplicaSpec
		if specs[k] != nil {
			base = &specs[k].ReplicaSpec
		}
		if s := ConvertReplica(c, r, job.MXNet, k, base, mxReplicasPath.Key(k), nil); s != nil {
			s.Label = specs[k].Label
		}
	}
}

func mxCommon(c *convert.Context, r *convert.Replicas, j *job.Job, success, mode *string) {
	if success != nil {
		j.SuccessPolicy = job.SuccessPolicy(*success)
	}
	j.JobMode = JobMode(c, r, *mode, field.NewPath("spec", "jobMode"))
}

// JobMode converts Kubeflow's MXJob jobMode: MXTune stays; MXTrain is a
// dist job when it has a scheduler or servers, else a local (single
// process) one, since without a scheduler there is no parameter server
// cluster to join.
func JobMode(c *convert.Context, r *convert.Replicas, mode string, path *field.Path) string {
	r.SetField("jobMode", path)
	switch mode {
	case "MXTune":
		return mode
	case "MXTrain":
		if r.Get(job.Scheduler) != nil || r.Get(job.Server) != nil {
			return "dist"
		}
		return "local"
	}
	c.Error(field.NotSupported(path, mode, []string{"MXTrain", "MXTune"}))
	return ""
}
