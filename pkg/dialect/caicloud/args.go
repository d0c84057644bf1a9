package caicloud

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// clusterFlags are the arguments, in order, that the controller gave the
// first container of every PS and worker pod.
var clusterFlags = []string{"--worker_hosts=", "--ps_hosts=", "--job_name=", "--task_index="}

// dropClusterArgs removes the controller's cluster flags from the first
// container of spec (template at templatePath). The controller wrote them
// into the stored job (so `kubectl get -o yaml` has them): they name its
// services, which tfgen does not make, and one replica's index.
func dropClusterArgs(c *convert.Context, spec *job.ReplicaSpec, templatePath *field.Path) {
	cs := spec.Template.Spec.Containers
	if len(cs) == 0 || !isClusterArgs(cs[0].Args) {
		return
	}
	cs[0].Args = nil
	c.Warn("%s: removed: the caicloud controller wrote these flags into the job; they name its services and one replica's index, and tfgen passes the cluster as TF_CONFIG",
		templatePath.Child("spec", "containers").Index(0).Child("args"))
}

// isClusterArgs reports whether args are the controller's cluster flags.
func isClusterArgs(args []string) bool {
	if len(args) != len(clusterFlags) {
		return false
	}
	for i, a := range args {
		if !strings.HasPrefix(a, clusterFlags[i]) {
			return false
		}
	}
	return true
}
