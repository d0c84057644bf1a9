// Package kubeflow decodes the map-shaped jobs of Kubeflow: TFJob
// kubeflow.org/v1alpha2, v1beta1, v1beta2 and v1 (tfReplicaSpecs, with
// DRAGON's max-instances and min-instances on v1) and MXJob
// kubeflow.org/v1alpha2, v1beta1 and v1 (mxReplicaSpecs, MXTune roles).
// Each version decodes into its own type, is defaulted as Kubeflow
// defaulted it, and converts into the canonical job. Its replica spec and
// run policy conversions are shared with dialects built on Kubeflow's
// (KubeDL).
package kubeflow
