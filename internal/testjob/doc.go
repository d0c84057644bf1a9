// Package testjob builds the training jobs tests need: a Kubeflow TFJob
// (or MXJob), as the canonical pkg/job value or as the kubeflow.org/v1
// YAML a user writes. Only tests import it.
//
//	testjob.New("mnist").
//		Replica(job.Worker, 2, testjob.Command("sleep", "3")).
//		CleanPodPolicy(job.CleanAll).
//		YAML()
package testjob
