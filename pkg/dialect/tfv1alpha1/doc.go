// Package tfv1alpha1 decodes the list-shaped TFJobs of the operator's first
// year: tensorflow.org/v1alpha1 TfJob (seed 000), mlkube.io/v1beta1 TfJob
// (seed 001) and kubeflow.org/v1alpha1 TFJob. Their replicaSpecs is a list
// with tfReplicaType MASTER/WORKER/PS, tfPort and a tfImage for the default
// parameter server, also spelled in snake_case (replica_specs, tf_port,
// tf_replica_type); tensorflow.org adds a tensorboard, kubeflow.org a
// terminationPolicy and a cleanPodPolicy.
package tfv1alpha1
