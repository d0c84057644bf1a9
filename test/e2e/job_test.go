package e2e

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// replica is one replica type of a test job.
type replica struct {
	kind   job.ReplicaType
	n      int32
	policy job.RestartPolicy
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
		roles = append(roles, fmt.Sprintf("%s:%d:2222", strings.ToLower(string(r.kind)), r.n))
	}
	slices.Sort(roles)
	b := testjob.New(j.name)
	for _, r := range j.replicas {
		b.Replica(r.kind, r.n, testjob.RestartPolicy(r.policy), testjob.Image("tfgen.test/workload:1"), testjob.Command("/workload"),
			testjob.Args("--job", j.name, "--namespace", ns, "--roles", strings.Join(roles, ",")))
	}
	return b.YAML()
}
