// Package jobgen generates training jobs from a seed, deterministically,
// for tests that check that every job tfgen accepts the API server accepts
// too (test/e2e's server-side dry-run). Each job is a document in a
// dialect tfgen reads (mostly Kubeflow's TFJob and MXJob) with render
// flags; its fields, most of all the pod templates', take values users
// write, valid ones and a few the API server refuses (a port name of 16
// characters, nvidia.com/gpu: -1, a volume mount of no volume...), so
// that whatever tfgen lets through is found.
package jobgen
