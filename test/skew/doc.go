// Package skew runs tfgen's jobs on a real Kubernetes 1.34 cluster, the
// oldest minor tfgen supports: API server, controller-manager, scheduler
// and kubelet of v1.34.4 (`make tools` builds them into bin/kube-1.34),
// with containerd 2.x, CoreDNS and the images of harness.BuildNodeImages.
//
// A job rendered for 1.34 runs there in wrap mode, with the copy of
// tfsupervisor (TestWrapModeOnKubernetes134). A job rendered for a newer
// minor loses fields on this API server, which drops the fields of
// features that are off on it without an error; its supervisors refuse
// to train, naming the render's target and the cluster's version
// (TestSkew...).
package skew
