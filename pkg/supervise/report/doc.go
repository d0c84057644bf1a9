// Package report implements supervise.Reporter: Log writes each report to
// stderr (always on, the only reporter of a standalone supervisor), API
// publishes them on the replica's own pod (labels, tfgen.io/* annotations
// by JSON merge patch) and as events.k8s.io/v1 Events regarding the pod,
// and Multi fans out to several.
package report
