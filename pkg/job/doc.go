// Package job holds the canonical training job: the one type every input
// dialect converts into and the only one the renderer sees. Its JSON form is
// the values file of the Helm chart (a Kubeflow TFJob's spec is a valid one).
package job
