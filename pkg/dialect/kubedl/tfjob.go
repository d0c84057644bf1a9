package kubedl

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/dialect/kubeflow"
	"github.com/tfgen/tfgen/pkg/job"
)

// Dialects lists the apiVersions and kinds this package decodes.
var Dialects = []convert.Dialect{
	{APIVersion: "training.kubedl.io/v1alpha1", Kind: "TFJob", Decode: decode},
}

// TFJob is a training.kubedl.io/v1alpha1 TFJob.
type TFJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TFJobSpec `json:"spec"`
	// status is what the controller wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TFJobSpec is the spec of a KubeDL TFJob.
type TFJobSpec struct {
	kubeflow.FlatRunPolicy
	kubeflow.FlatSchedulingPolicy
	// successPolicy: "" or AllWorkers.
	SuccessPolicy *string `json:"successPolicy,omitempty"`
	// tfReplicaSpecs maps Chief, Master, Worker, PS, Evaluator (any case) to replica specs.
	TFReplicaSpecs map[string]*ReplicaSpec `json:"tfReplicaSpecs"`
	// cacheBackend caches datasets (KubeDL extension; no effect).
	CacheBackend any `json:"cacheBackend,omitempty"`
	// modelVersion builds a model image after training (KubeDL extension; no effect).
	ModelVersion any `json:"modelVersion,omitempty"`
}

// ReplicaSpec is Kubeflow's replica spec with KubeDL's extensions.
type ReplicaSpec struct {
	kubeflow.ReplicaSpec
	// dependOn orders replica start-up (KubeDL extension; no effect).
	DependOn any `json:"dependOn,omitempty"`
	// spotReplicaSpec runs some replicas on spot instances (KubeDL extension; no effect).
	SpotReplicaSpec any `json:"spotReplicaSpec,omitempty"`
}

// SetDefaults applies KubeDL's defaults: one replica, restartPolicy Never
// (cleanPodPolicy: the canonical Running).
func SetDefaults(in *TFJob) {
	for _, s := range in.Spec.TFReplicaSpecs {
		if s != nil {
			kubeflow.SetDefaultsReplicaSpec(&s.ReplicaSpec)
		}
	}
}

const noEffect = "a KubeDL extension that tfgen does not render"

func decode(c *convert.Context) *job.Job {
	var in TFJob
	if !c.Decode(&in) {
		return nil
	}
	SetDefaults(&in)
	j := &job.Job{}
	c.Meta(&in.ObjectMeta, j)
	spec := field.NewPath("spec")
	base := spec.Child("tfReplicaSpecs")
	r := convert.NewReplicas(job.TensorFlow)
	for _, k := range kubeflow.SortedKeys(in.Spec.TFReplicaSpecs) {
		s := in.Spec.TFReplicaSpecs[k]
		var ks *kubeflow.ReplicaSpec
		if s != nil {
			ks = &s.ReplicaSpec
		}
		kubeflow.ConvertReplica(c, r, job.TensorFlow, k, ks, base.Key(k), convert.LegacyRetryableExitCodes)
		if s != nil && s.DependOn != nil {
			c.NoEffect(base.Key(k).Child("dependOn"), noEffect+"; all replicas start together and find their peers when ready")
		}
		if s != nil && s.SpotReplicaSpec != nil {
			c.NoEffect(base.Key(k).Child("spotReplicaSpec"), noEffect)
		}
	}
	var rpPath *field.Path
	j.RunPolicy, rpPath = kubeflow.ConvertRunPolicy(c, r, &in.Spec.FlatRunPolicy, &in.Spec.FlatSchedulingPolicy, nil, false)
	if in.Spec.SuccessPolicy != nil {
		j.SuccessPolicy = job.SuccessPolicy(*in.Spec.SuccessPolicy)
	}
	if in.Spec.CacheBackend != nil {
		c.NoEffect(spec.Child("cacheBackend"), noEffect)
	}
	if in.Spec.ModelVersion != nil {
		c.NoEffect(spec.Child("modelVersion"), noEffect)
	}
	j.Source = c.Source(r.Fill(j, base, rpPath))
	return j
}
