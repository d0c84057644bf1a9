// Package versions proves the Kubernetes minors tfgen supports
// (controlplane.KubeVersions, 1.34 to 1.37): for each, a real
// kube-apiserver of that minor (built by `make tools`, no controller
// manager: server-side dry-run is enough) receives every example
// rendered for that minor (`tfgen render --kube-version`) and the chart
// templated for it (`helm template --kube-version`), and what it would
// store is compared field by field with what was sent (harness.Unkept):
// an API server drops the fields of features it has off without an
// error, so acceptance alone proves nothing. A render tfgen refuses for a
// minor must name that minor. TestKube134DropsFieldsOfA137Render keeps
// the evidence that the comparison sees such drops.
package versions
