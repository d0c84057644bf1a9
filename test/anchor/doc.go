// Package anchor measures tfgen beside the operator its users leave,
// Kubeflow's training-operator v1.9.0 (the last with TFJob, built from the
// Go module proxy by hack/anchor/operator.sh), and beside JobSet v0.11.0,
// what Kubeflow Trainer v2 runs on (hack/anchor/jobset.sh). BenchmarkAnchor
// runs the same job (N workers, every one must succeed, cleanPodPolicy
// Running, each worker `sleep 3`; for JobSet one Indexed Job of N pods)
// through each system on a fresh control plane (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler from make tools) with node
// agents (test/nodeagent) as the nodes, and prints one line of figures per
// run for hack/bench-anchor.sh's table.
//
// It is a benchmark, not part of make test: make bench-anchor runs it.
//
//	TFGEN_KUBEFLOW_OPERATOR  the directory operator.sh built into
//	TFGEN_ANCHOR_N           the job sizes, default 100,500,1000
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
