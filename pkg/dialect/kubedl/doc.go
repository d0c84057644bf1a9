// Package kubedl decodes KubeDL's training.kubedl.io/v1alpha1 TFJob: the
// Kubeflow v1 shape with the run policy inlined at the top of spec, KubeDL's
// older ExitCode rule (retryable 130, 137, 138, 143), and extensions
// (cacheBackend, modelVersion, replica dependOn and spotReplicaSpec) that
// are accepted with a warning that they have no effect.
package kubedl
