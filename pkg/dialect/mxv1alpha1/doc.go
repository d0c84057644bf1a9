// Package mxv1alpha1 decodes the list-shaped MXJobs: fioravanzo.org/v1alpha1
// (seed 002), kubeflow.org/v1alpha1, mlkube.io/v1beta1 and
// mxnet.mlkube.io/v1beta1, kind MXJob or MxJob. Their replicaSpecs is a
// list with mxReplicaType SCHEDULER/SERVER/WORKER (any case), PsRootPort
// and a jobMode of dist or local.
package mxv1alpha1
