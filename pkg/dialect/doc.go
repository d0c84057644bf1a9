// Package dialect decodes input documents into canonical jobs. It reads a
// document's apiVersion and kind first, picks the dialect that handles that
// group, version and kind, lets it decode the document into its own type,
// default it and convert it into a *job.Job, then applies the canonical
// defaults. Documents of other kinds pass through unchanged. Problems are
// field.ErrorList entries whose paths are spelled as in the user's dialect
// (spec.replicaSpecs[2].tfPort, spec.tfReplicaSpecs[Worker].replicas);
// unknown fields are warnings, or errors with Options.Strict. A value of
// the wrong type is reported and left out, and the rest of the job comes
// back with the error, for validation to report its other problems (see
// MergeErrors). A problem quotes at most the start of a value, however
// long (see input.Quote).
//
// The dialects live in subpackages, one per family: kubeflow (TFJob and
// MXJob v1alpha2 to v1, DRAGON), tfv1alpha1 (list-shaped TfJob/TFJob),
// mxv1alpha1 (list-shaped MXJob), t9k (TensorFlowTrainingJob), kubedl and
// caicloud (kubeflow.caicloud.io TFJob, a list of PS, Worker or Local).
package dialect
