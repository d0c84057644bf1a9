// Package rest is tfsupervisor's small Kubernetes client: the few calls it
// makes (its record ConfigMap, its own pod, the scale subresource of the
// job's StatefulSets, events.k8s.io/v1 Events) as JSON over HTTPS, with
// the types of package kube, and its configuration (in-cluster, or
// KUBECONFIG with a token or client certificate).
//
// It is a package of its own so that what needs no API server (the
// supervisor wrapping the training process in wrap mode, which reports
// through its sidecar) links neither net/http, TLS nor a YAML parser:
// each page of a static binary a process touches counts in its resident
// memory.
package rest
