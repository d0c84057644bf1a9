// Package t9k decodes T9k's batch.tensorstack.dev/v1beta1
// TensorFlowTrainingJob (seed 004): replicaSpecs[] with type
// chief/worker/ps/evaluator and a restartPolicy that may be ExitCode (T9k's
// retryable codes 130, 137, 138, 143), runPolicy with cleanUpPolicy, the
// T9k scheduler, a TensorBoard reading t9k://pvc filesets, and the debug
// and pause run modes.
package t9k
