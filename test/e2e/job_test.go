package e2e

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// replica is one replica type of a test job.
type replica struct {
	kind   string // the dialect's replica type: Chief, PS, Worker...
	n      int
	policy string // restartPolicy
}

// jobSpec is a test job: a Kubeflow TFJob whose replicas would run the
// test workload (no pod runs here: only the objects matter).
type jobSpec struct {
	name     string
	replicas []replica
}

// manifest is the job as a user writes it, for namespace ns.
func (j jobSpec) manifest(ns string) []byte {
	var roles []string
	for _, r := range j.replicas {
		roles = append(roles, fmt.Sprintf("%s:%d:2222", strings.ToLower(r.kind), r.n))
	}
	slices.Sort(roles)
	specs := object{}
	for _, r := range j.replicas {
		c := object{"name": "tensorflow", "image": "tfgen.test/workload:1", "command": []string{"/workload"},
			"args": []string{"--job", j.name, "--namespace", ns, "--roles", strings.Join(roles, ",")}}
		specs[r.kind] = object{"replicas": r.n, "restartPolicy": r.policy, "template": object{"spec": object{"containers": []any{c}}}}
	}
	job := object{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": object{"name": j.name},
		"spec": object{"tfReplicaSpecs": specs}}
	b, err := yaml.Marshal(job)
	if err != nil {
		panic(err)
	}
	return b
}
