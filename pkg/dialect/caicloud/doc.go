// Package caicloud decodes the TFJob of caicloud's kubeflow-controller,
// kubeflow.caicloud.io/v1alpha1 (types in caicloud/kubeflow-clientset,
// controller in caicloud/kubeflow-controller). Its spec.tfReplicaSpec is a
// list whose tfReplicaType is PS, Worker or Local; spec.type (Training,
// Serving or TensorBoard) appears in the clientset's examples, not in its
// Go types. A Training job is either one Local replica spec, run alone as
// one pod, or parameter servers and workers, and succeeds once every
// worker has. Serving and TensorBoard jobs are no training jobs and are
// refused.
//
// The controller created bare pods from the templates, so a replica's
// restart policy is its template's restartPolicy, else the pod default
// Always. It gave every replica of a distributed job the cluster as the
// arguments of its first container (--worker_hosts, --ps_hosts,
// --job_name, --task_index, over the template's args) on port 2222; tfgen
// gives TF_CONFIG on the same port instead and says so. Such arguments
// found in a job saved with `kubectl get -o yaml` (the controller wrote
// them back) are removed. The fields the controller never read (dataDir,
// modelDir, logDir, exportDir, terminationPolicy) are accepted with a
// warning.
package caicloud
