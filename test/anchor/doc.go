// Package anchor measures tfgen beside the operator its users leave:
// Kubeflow's training-operator v1.9.0 (the last with TFJob), built from
// the Go module proxy by hack/anchor/operator.sh. BenchmarkAnchor runs the
// same TFJob (N workers, AllWorkers, cleanPodPolicy Running, each worker
// `sleep 3`) through each system on a fresh control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler from make tools)
// with the node agent (test/nodeagent) as the node, and prints one line of
// figures per run for hack/bench-anchor.sh's table.
//
// It is a benchmark, not part of make test: make bench-anchor runs it.
//
//	TFGEN_KUBEFLOW_OPERATOR  the directory operator.sh built into
//	TFGEN_ANCHOR_N           the job sizes, default 100,500,1000
//	TFGEN_ANCHOR_SYSTEMS     default kubeflow,tfgen,tfgen-image; tfgen-image
//	                         is tfgen with --supervisor-volume image (no copy)
//	TFGEN_ANCHOR_PROFILE     a directory for a CPU profile of the API
//	                         server per run (TFGEN_ANCHOR_PROFILE_SECONDS
//	                         long, default 30)
package anchor
