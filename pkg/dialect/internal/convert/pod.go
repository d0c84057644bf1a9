package convert

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

// LegacyRetryableExitCodes are the exit codes the older ExitCode rule (T9k's
// documentation, KubeDL) retries: 130 (SIGINT), 137 (SIGKILL), 143 (SIGTERM)
// and 138 (left for the user to mean "restart me").
var LegacyRetryableExitCodes = []int32{130, 137, 138, 143}

// TemplatePort returns the containerPort of the training container's port
// named tfjob-port / mxjob-port, as Kubeflow reads it, and its path below
// templatePath; nil when there is none.
func TemplatePort(f job.Framework, t *corev1.PodTemplateSpec, templatePath *field.Path) (*int32, *field.Path) {
	for i, c := range t.Spec.Containers {
		if c.Name != f.ContainerName() {
			continue
		}
		for k, p := range c.Ports {
			if p.Name == f.PortName() {
				port := p.ContainerPort
				return &port, templatePath.Child("spec", "containers").Index(i).Child("ports").Index(k).Child("containerPort")
			}
		}
	}
	return nil, nil
}

// SetPort sets the port of spec (type t, template at templatePath) from the
// training container's named port when the dialect gave none, recording
// where it came from.
func (r *Replicas) SetPort(t job.ReplicaType, spec *job.ReplicaSpec, templatePath *field.Path) {
	if spec.Port != nil {
		return
	}
	if p, at := TemplatePort(r.framework, &spec.Template, templatePath); p != nil {
		spec.Port = p
		r.SetReplicaField(t, "port", at)
	}
}

// WarnTemplateRestartPolicy warns when a pod template's restartPolicy
// differs from the replica's, which replaces it (as in Kubeflow).
func (c *Context) WarnTemplateRestartPolicy(spec *job.ReplicaSpec, templatePath, policyPath *field.Path) {
	pod := spec.Template.Spec.RestartPolicy
	if pod == "" || string(pod) == string(spec.RestartPolicy) {
		return
	}
	c.Warn("%s (%s) has no effect: %s (%s) decides restarts", templatePath.Child("spec", "restartPolicy"), pod, policyPath, spec.RestartPolicy)
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }
