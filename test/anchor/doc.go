// Package anchor measures tfgen beside the operator its users leave,
// Kubeflow's training-operator v1.9.0 (the last with TFJob, built from the
// Go module proxy by hack/anchor/operator.sh), and beside JobSet v0.11.0,
// what Kubeflow Trainer v2 runs on (hack/anchor/jobset.sh). BenchmarkAnchor
// runs the same job (N workers, every one must succeed, cleanPodPolicy
// Running; for JobSet one Indexed Job of N pods) through each system on a
// fresh control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler from make tools) with node agents (test/nodeagent) as the
// nodes, and prints one line of figures per run for hack/bench-anchor.sh's
// tables. The job comes in two shapes: same, every worker `sleep 3`,
// requesting nothing; and early, half the workers finishing early (`sleep
// 3` on even ordinals, `sleep 20` on odd ones, 1 CPU requested each), for
// which it measures what finished replicas held (held.go): the node-seconds
// of requested CPU their pods held, by the API server, after their
// training ended, by the node's clock.
//
// It is a benchmark, not part of make test: make bench-anchor runs it.
//
//	TFGEN_KUBEFLOW_OPERATOR  the directory operator.sh built into
//	TFGEN_ANCHOR_SHAPES      default same,early
//	TFGEN_ANCHOR_N           the same shape's job sizes, default 100,500,1000
//	TFGEN_ANCHOR_EARLY_N     the early shape's, default 1000
//	TFGEN_ANCHOR_SYSTEMS     default kubeflow,jobset,tfgen,tfgen-copy,tfgen-pods;
//	                         tfgen is the default render (tfsupervisor from
//	                         an image volume), tfgen-copy the render for
//	                         clusters before 1.36 (--supervisor-volume copy),
//	                         tfgen-pods the render whose pods publish their
//	                         own addresses (--endpoints pod)
//	TFGEN_ANCHOR_PROFILE     a directory for a CPU profile of the API
//	                         server per run (TFGEN_ANCHOR_PROFILE_SECONDS
//	                         long, default 30)
package anchor
