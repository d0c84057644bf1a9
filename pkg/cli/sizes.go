package cli

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/values"
)

// maxListed is the most replicas a cluster spec may list before tfgen
// stops building it: every address takes over 30 bytes, so past it the
// variable cannot fit in cluster.MaxEnvString.
const maxListed = 4000

// envSize reports replica types whose TF_CONFIG (or MX_CONFIG) would be
// over the kernel's limit for one environment variable, which tfsupervisor
// would find only at run time. Small jobs are skipped: they cannot be.
func envSize(j *job.Job, s job.Settings) error {
	l := values.Layout(j, s)
	if l.Total() < 500 {
		return nil
	}
	sparse := l.Sparse && l.Framework == cluster.TensorFlow
	if listed := listedReplicas(l); listed > maxListed {
		hint := "set enableDynamicWorker: true so each worker gets the sparse form (itself and the parameter servers only)"
		switch {
		case sparse:
			hint = "the sparse form of enableDynamicWorker lists every parameter server; use fewer"
		case l.Framework == cluster.MXNet:
			hint = "MX_CONFIG has no sparse form; use fewer replicas"
		}
		return dialect.JobError(j, field.ErrorList{field.Invalid(j.SpecFieldPath("enableDynamicWorker"), j.EnableDynamicWorker,
			fmt.Sprintf("each replica's cluster spec would list %d replicas, over the kernel's %d-byte limit for one environment variable; %s", listed, cluster.MaxEnvString, hint))})
	}
	ns := j.Namespace
	if ns == "" {
		ns = "default"
	}
	for _, t := range j.ReplicaTypes() {
		if j.Replicas()[t].Count() == 0 {
			continue
		}
		if _, err := l.Env(t.Lower(), 0, ns); err != nil {
			return dialect.JobError(j, field.ErrorList{field.Invalid(j.SpecFieldPath("enableDynamicWorker"), j.EnableDynamicWorker, err.Error())})
		}
	}
	return nil
}

// listedReplicas is the most replicas one replica's cluster spec lists:
// every replica in the dense form; in TensorFlow's sparse form (dynamic
// workers) a worker lists the parameter servers and itself.
func listedReplicas(l *cluster.Layout) int64 {
	if !l.Sparse || l.Framework != cluster.TensorFlow {
		return l.Total()
	}
	var ps int64
	if r, ok := l.Role("ps"); ok {
		ps = int64(r.Replicas)
	}
	return ps + 1
}

// MaxRecordSpec is the most the job record may hold of the job's spec: a
// ConfigMap's data holds at most corev1.MaxSecretSize (1 MiB), and the
// supervisors need room for the status they write beside it.
const MaxRecordSpec = corev1.MaxSecretSize - 64<<10

// recordSize reports a job whose record ConfigMap would hold more than
// MaxRecordSpec, which the API server (or the supervisors) would refuse.
func recordSize(j *job.Job, objs []manifest.Object) error {
	for _, o := range objs {
		if o.Kind() != "ConfigMap" || o.Name() != j.Name {
			continue
		}
		data, _ := o["data"].(map[string]any)
		n := 0
		for k, v := range data {
			s, _ := v.(string)
			n += len(k) + len(s)
		}
		if n > MaxRecordSpec {
			return dialect.JobError(j, field.ErrorList{{Type: field.ErrorTypeTooLong, Field: "spec", BadValue: fmt.Sprintf("%d bytes", n),
				Detail: fmt.Sprintf("the job's record (ConfigMap %s, the job as JSON) would hold %d bytes; it may hold at most %d (a ConfigMap holds 1 MiB, less room for the status the supervisors write)", j.Name, n, MaxRecordSpec)}})
		}
	}
	return nil
}
