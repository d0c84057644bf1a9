// Package kube is tfsupervisor's small Kubernetes client: the few calls it
// makes (its record ConfigMap, its own pod, the scale subresource of the
// job's StatefulSets, events.k8s.io/v1 Events) as JSON over HTTPS, with
// minimal local types, and its configuration (in-cluster, or KUBECONFIG
// with a token or client certificate).
//
// It imports neither client-go nor apimachinery. Their typed clients
// register every API group (a 26 MB binary); even their REST client alone
// costs about 2 ms of package initialisation at every start of the
// supervisor, which is on the path to the training process (DESIGN
// section 7 allows 5 ms), and 6 MB.
package kube
