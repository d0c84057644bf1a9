package tfv1alpha1

import "github.com/tfgen/tfgen/pkg/dialect/internal/convert"

// DefaultTFImage runs the default parameter server when tfImage is unset,
// as in the operator (seed 000).
const DefaultTFImage = "tensorflow/tensorflow:1.3.0"

// SetDefaultsTfJob applies the operator's defaults: tfImage; for each
// replica spec tfReplicaType MASTER (a spec with only a template is the
// master) and one replica. The rest defaults when converting: the port is
// the tensorflow container's tfjob-port, else 2222; the restart policy is
// the pod template's restartPolicy, else ExitCode for the master (its exit
// code decides: 1-127 permanent, 128-255 retryable) and OnFailure for
// workers and parameter servers ("automatically restarted").
func SetDefaultsTfJob(s *TfJobSpec) {
	if s.TFImage == nil && s.TFImageSnake == nil {
		s.TFImage = convert.Ptr(DefaultTFImage)
	}
	for _, specs := range [][]*TfReplicaSpec{s.ReplicaSpecs, s.ReplicaSpecsSnake} {
		for _, r := range specs {
			if r == nil {
				continue
			}
			if r.TFReplicaType == nil && r.TFReplicaTypeSnake == nil {
				r.TFReplicaType = convert.Ptr("MASTER")
			}
			if r.Replicas == nil {
				r.Replicas = convert.Ptr(int32(1))
			}
		}
	}
}

// SetDefaultsTFJob applies SetDefaultsTfJob to a kubeflow.org/v1alpha1
// TFJob; its cleanPodPolicy is left to the canonical default (Running).
func SetDefaultsTFJob(s *TFJobSpec) { SetDefaultsTfJob(&s.TfJobSpec) }
