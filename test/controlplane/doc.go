// Package controlplane runs a real Kubernetes control plane for tests: etcd,
// kube-apiserver and, on request, kube-controller-manager and kube-scheduler,
// as local processes on 127.0.0.1 with free ports and a temporary directory.
// There are no fakes: the binaries are the ones `make tools` builds into
// bin/ (or $TFGEN_BIN). If they are missing, Start fails and says so.
//
// The API server uses serving certificates and a service-account signing key
// generated here, a static token file with an admin token (group
// system:masters), --authorization-mode=Node,RBAC and the default admission
// plugins. The controller-manager runs with --use-service-account-credentials
// so each controller acts as its own ServiceAccount, as in a real cluster.
// Without Options.Node there is no kubelet: pods get scheduled (bound to a
// Node the test creates) but do not run. With it (node.go), a real node runs
// on this machine: containerd 2.x (built by `make tools`), runc (a Debian
// package), the CNI bridge
// tfgen0 on 10.244.0.0/24, the kubelet and CoreDNS (built by `make tools`),
// one DNAT rule standing in for kube-proxy for the kubernetes Service, and
// images built here and imported into containerd (there is no registry).
// Its state lives under /var/lib/tfgen-node and /run/tfgen-node; one node
// runs per machine (a lock file serialises packages), and everything it
// added is removed when it stops, on an interrupt, and at the start of the
// next run after a crash.
//
// The Kubernetes binaries are of the newest minor tfgen supports unless
// Options.KubeVersion names an older one of KubeVersions (1.34, 1.35,
// 1.36): those come from bin/kube-1.X/, where `make tools` builds, per
// minor, only what the tests run (hack/tools/install.sh, KUBE_OLDER):
// for 1.34 kube-apiserver, kube-controller-manager, kube-scheduler and
// the kubelet (a whole cluster); for 1.35 kube-apiserver,
// kube-controller-manager (which type-checks admission policies) and the
// kubelet (beside the newest control plane, a skew Kubernetes supports:
// NodeOptions.KubeletVersion); for 1.36 kube-apiserver. Start checks
// that the API server, and the Node's kubelet, report the minor asked
// for. Every flag given here is one 1.34 knows; a gate of
// Options.FeatureGates an older minor does not know stops its start
// (1.34 does not know WorkloadAPI's).
//
// One control plane is shared per test package:
//
//	func TestMain(m *testing.M) {
//		os.Exit(controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true}))
//	}
//
//	func TestSomething(t *testing.T) {
//		cp := controlplane.Shared(t) // started on first use
//		cp.Client().CoreV1().Namespaces().Create(...)
//	}
//
// Processes' output goes to files in the control plane's directory; it is
// printed when Start fails and when the package's tests fail.
package controlplane
