// Package kubelet135 runs tfgen's sidecar mode on a real kubelet of
// Kubernetes 1.35, the oldest minor with the container restart rules it
// stands on (`make tools` builds it into bin/kube-1.35), beside the
// newest control plane (a kubelet may be three minors older than its API
// server), with containerd 2.x, CoreDNS and the images of
// harness.BuildNodeImages.
package kubelet135
