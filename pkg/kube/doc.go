// Package kube is tfsupervisor's small Kubernetes client: the few calls it
// makes (its record ConfigMap, its own pod, the scale subresource of the
// job's StatefulSets, events.k8s.io/v1 Events) over a client-go
// rest.Interface with JSON and minimal local types.
//
// It deliberately imports neither k8s.io/client-go/kubernetes nor the typed
// clients nor k8s.io/api: those register every API group and would more
// than double the size of the static binary (about 26 MB instead of 11).
package kube
