package kubeflow

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// TFJob is a kubeflow.org/v1 TFJob.
type TFJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job: name or generateName, namespace, labels, annotations.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TFJobSpec `json:"spec"`
	// status is what an operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TFJobSpec is the spec of a kubeflow.org/v1 TFJob. The run policy may be
// in runPolicy or, as in tf-operator's v1 that inlined it, at the top of
// spec. DRAGON adds max-instances and min-instances.
type TFJobSpec struct {
	FlatRunPolicy
	FlatSchedulingPolicy
	// runPolicy: clean-up, deadlines, backoff and gang scheduling.
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`
	// successPolicy: "" (chief, else worker 0) or AllWorkers.
	SuccessPolicy *string `json:"successPolicy,omitempty"`
	// successWorkers (tfgen's): without a chief, the job succeeds once this
	// many workers have, a count or a percentage ("50%").
	SuccessWorkers *intstr.IntOrString `json:"successWorkers,omitempty"`
	// enableDynamicWorker gives workers the sparse TF_CONFIG.
	EnableDynamicWorker *bool `json:"enableDynamicWorker,omitempty"`
	// tfReplicaSpecs maps Chief, Master, Worker, PS, Evaluator (any case) to replica specs.
	TFReplicaSpecs map[string]*ReplicaSpec `json:"tfReplicaSpecs"`
	// max-instances is DRAGON's upper bound on the number of workers.
	MaxInstances *int32 `json:"max-instances,omitempty"`
	// min-instances is DRAGON's lower bound on the number of workers.
	MinInstances *int32 `json:"min-instances,omitempty"`
}

// TFJobV1beta2 is a kubeflow.org/v1alpha2, v1beta1 or v1beta2 TFJob.
type TFJobV1beta2 struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TFJobSpecV1beta2 `json:"spec"`
	// status is what an operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TFJobSpecV1beta2 has the run-policy fields at the top of spec.
type TFJobSpecV1beta2 struct {
	FlatRunPolicy
	// tfReplicaSpecs maps Chief, Master, Worker, PS, Evaluator (any case) to replica specs.
	TFReplicaSpecs map[string]*ReplicaSpec `json:"tfReplicaSpecs"`
}

// SetDefaultsTFJob applies Kubeflow v1's defaults except cleanPodPolicy,
// which the canonical job defaults to Running rather than Kubeflow's None
// (see job.SetDefaults).
func SetDefaultsTFJob(in *TFJob) { setDefaultsReplicas(in.Spec.TFReplicaSpecs) }

// SetDefaultsTFJobV1beta2 applies the defaults of v1alpha2 to v1beta2:
// one replica, restartPolicy Never (cleanPodPolicy Running, as then).
func SetDefaultsTFJobV1beta2(in *TFJobV1beta2) {
	setDefaultsReplicas(in.Spec.TFReplicaSpecs)
	if in.Spec.CleanPodPolicy == nil {
		in.Spec.CleanPodPolicy = convert.Ptr(string(job.CleanRunning))
	}
}

func setDefaultsReplicas(specs map[string]*ReplicaSpec) {
	for _, s := range specs {
		if s != nil {
			SetDefaultsReplicaSpec(s)
		}
	}
}

var tfReplicasPath = field.NewPath("spec", "tfReplicaSpecs")

func decodeTFJob(c *convert.Context) *job.Job {
	var in TFJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsTFJob(&in)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.TensorFlow)
	tfReplicas(c, r, in.Spec.TFReplicaSpecs)
	var rpPath *field.Path
	j.RunPolicy, rpPath = ConvertRunPolicy(c, r, &in.Spec.FlatRunPolicy, &in.Spec.FlatSchedulingPolicy, in.Spec.RunPolicy, true)
	if in.Spec.SuccessPolicy != nil {
		j.SuccessPolicy = job.SuccessPolicy(*in.Spec.SuccessPolicy)
	}
	j.SuccessWorkers = in.Spec.SuccessWorkers
	if in.Spec.EnableDynamicWorker != nil {
		j.EnableDynamicWorker = *in.Spec.EnableDynamicWorker
	}
	j.MinInstances, j.MaxInstances = in.Spec.MinInstances, in.Spec.MaxInstances
	if j.MinInstances != nil {
		r.SetField("minInstances", field.NewPath("spec", "min-instances"))
	}
	if j.MaxInstances != nil {
		r.SetField("maxInstances", field.NewPath("spec", "max-instances"))
	}
	j.Source = c.Source(r.Fill(j, tfReplicasPath, rpPath))
	return j
}

func decodeTFJobV1beta2(c *convert.Context) *job.Job {
	var in TFJobV1beta2
	if !c.Decode(&in) {
		return nil
	}
	SetDefaultsTFJobV1beta2(&in)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	r := convert.NewReplicas(job.TensorFlow)
	tfReplicas(c, r, in.Spec.TFReplicaSpecs)
	var rpPath *field.Path
	j.RunPolicy, rpPath = ConvertRunPolicy(c, r, &in.Spec.FlatRunPolicy, nil, nil, false)
	j.Source = c.Source(r.Fill(j, tfReplicasPath, rpPath))
	return j
}

func tfReplicas(c *convert.Context, r *convert.Replicas, specs map[string]*ReplicaSpec) {
	for _, k := range SortedKeys(specs) {
		ConvertReplica(c, r, job.TensorFlow, k, specs[k], tfReplicasPath.Key(k), nil)
	}
}
