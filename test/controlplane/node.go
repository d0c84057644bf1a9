package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeOptions configure the node that Options.Node asks for.
type NodeOptions struct {
	// Images are built here and imported into containerd before the
	// kubelet starts; pods use them with imagePullPolicy Never or
	// IfNotPresent (there is no registry).
	Images []Image
	// Archives are image archives (OCI or docker-archive tars, such as
	// `make image`'s) imported as they are.
	Archives []Archive
	// KubeletVersion is the kubelet's Kubernetes minor, one of
	// KubeVersions whose kubelet `make tools` builds (1.34, 1.35 and the
	// newest); empty is the control plane's (Options.KubeVersion). A
	// kubelet up to three minors older than the API server is a skew
	// Kubernetes supports; a newer one is not. Start checks that the Node
	// reports it.
	KubeletVersion string
}

// kubeletVersion is the kubelet's minor on a control plane of minor
// cpVersion ("" is the newest).
func (o NodeOptions) kubeletVersion(cpVersion string) string {
	if o.KubeletVersion != "" {
		return o.KubeletVersion
	}
	return cpVersion
}

// Archive is an image archive to import. An OCI archive's images are
// named BaseName:REF, REF being each one's org.opencontainers.image.ref.name.
type Archive struct {
	Path, BaseName string
}

// The node's fixed names and addresses. They are this harness's own, so
// that nothing else on the machine is touched; fixed, so that a run can
// clean up what an interrupted one left.
const (
	// NodeName is the Node the kubelet registers.
	NodeName = "tfgen-node"
	// PodCIDR is the pods' network, on the bridge nodeBridge.
	PodCIDR = "10.244.0.0/24"
	// ClusterDomain is the kubelet's and CoreDNS's cluster domain.
	ClusterDomain = "cluster.local"

	nodeBridge = "tfgen0"
	nodeState  = "/var/lib/tfgen-node" // containerd's root, the kubelet's root, pod logs, configs
	nodeRun    = "/run/tfgen-node"     // containerd's state and socket
	nodeLock   = "/run/tfgen-node.lock"
	natChain   = "TFGEN-NODE"
)

// NodeIP is the node's address: the bridge's, which is the pods' gateway,
// where the kubelet, CoreDNS and (through a DNAT rule for the kubernetes
// Service) the API server are reached.
var NodeIP = net.IPv4(10, 244, 0, 1)

// nodeBinaries are what `make tools` builds into bin/ for the node besides
// the kubelet, which is of a Kubernetes minor (containerd 2.x: image
// volumes need 2.1 or later); runc and the CNI plugins come from Debian
// packages.
var nodeBinaries = []string{"coredns", "containerd", "containerd-shim-runc-v2", "ctr"}

// node is the running node's state beyond its processes.
type node struct {
	opts    NodeOptions
	lock    *os.File // flock held while the node exists
	cniBin  string
	sock    string // containerd's socket
	bin     string // where containerd, its shim and ctr are
	kubelet string // where the kubelet is
	version string // the kubelet's minor
}

func nodeAPIServerFlags() []string {
	// The Node's Hostname address does not resolve; logs and exec go to
	// its InternalIP.
	return []string{"--kubelet-preferred-address-types=InternalIP"}
}

// prepareNode takes the machine's node lock, clears what an earlier run
// left, and sets up the bridge and CNI config (which must precede
// containerd).
func prepareNode(opts NodeOptions, kubelet, version string, lock *os.File) (_ *node, err error) {
	n := &node{opts: opts, lock: lock, kubelet: kubelet, version: version}
	defer func() {
		if err != nil {
			n.teardown()
		}
	}()
	for _, d := range []string{"/usr/lib/cni", "/opt/cni/bin"} {
		if _, err := os.Stat(filepath.Join(d, "bridge")); err == nil {
			n.cniBin = d
			break
		}
	}
	for _, b := range []string{"runc", "iptables", "ip"} {
		if _, err := exec.LookPath(b); err != nil {
			return nil, fmt.Errorf("controlplane: node: %s not found: run `make tools` (it installs runc, the CNI plugins and iptables)", b)
		}
	}
	if n.cniBin == "" {
		return nil, errors.New("controlplane: node: CNI plugins not found in /usr/lib/cni or /opt/cni/bin: run `make tools`")
	}
	cleanNode()
	for _, d := range []string{nodeState, nodeRun, filepath.Join(nodeState, "cni", "net.d")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := run("ip", "link", "add", nodeBridge, "type", "bridge"); err != nil {
		return nil, err
	}
	if err := run("ip", "addr", "add", NodeIP.String()+"/24", "dev", nodeBridge); err != nil {
		return nil, err
	}
	if err := run("ip", "link", "set", nodeBridge, "up"); err != nil {
		return nil, err
	}
	// The pods' default route is the bridge's address, set by host-local
	// rather than the bridge plugin's isGateway, which would turn the
	// machine's ip_forward on. No masquerade, no portmap: pods talk only
	// to each other and to this machine.
	cni := fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "tfgen",
  "plugins": [{
    "type": "bridge",
    "bridge": %q,
    "isGateway": false,
    "hairpinMode": true,
    "ipam": {
      "type": "host-local",
      "dataDir": %q,
      "ranges": [[{"subnet": %q, "gateway": %q}]],
      "routes": [{"dst": "0.0.0.0/0", "gw": %q}]
    }
  }, {"type": "loopback"}]
}
`, nodeBridge, filepath.Join(nodeState, "cni", "ipam"), PodCIDR, NodeIP, NodeIP)
	if err := os.WriteFile(filepath.Join(nodeState, "cni", "net.d", "10-tfgen.conflist"), []byte(cni), 0o644); err != nil {
		return nil, err
	}
	return n, nil
}

// lockNode takes the machine-wide node lock, waiting for another test
// package's node to be torn down (go test's -timeout bounds the wait).
func lockNode() (*os.File, error) {
	f, err := os.OpenFile(nodeLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("controlplane: node lock %s: %w", nodeLock, err)
	}
	return f, nil
}

// startNode starts containerd, imports the images, adds the DNAT rule for
// the kubernetes Service, and starts the kubelet and CoreDNS; it returns
// once the Node is Ready and CoreDNS serves.
func (cp *ControlPlane) startNode(ctx context.Context, bin string) error {
	n := cp.node
	n.sock, n.bin = filepath.Join(nodeRun, "containerd.sock"), bin
	if err := cp.startContainerd(ctx); err != nil {
		return err
	}
	if err := n.importImages(ctx, filepath.Join(cp.dir, "images")); err != nil {
		return err
	}
	// Pods reach the API server as the kubernetes Service, 10.0.0.1:443;
	// there is no kube-proxy, so one DNAT rule stands in for it.
	_, svcNet, _ := net.ParseCIDR(ServiceCIDR)
	svcIP := append(net.IP(nil), svcNet.IP.To4()...)
	svcIP[3]++
	for _, args := range [][]string{
		{"-t", "nat", "-N", natChain},
		{"-t", "nat", "-A", natChain, "-d", svcIP.String() + "/32", "-p", "tcp", "--dport", "443",
			"-j", "DNAT", "--to-destination", fmt.Sprintf("%s:%d", NodeIP, cp.apiPort)},
		{"-t", "nat", "-I", "PREROUTING", "-i", nodeBridge, "-j", natChain, "-m", "comment", "--comment", "tfgen test node"},
	} {
		if err := run("iptables", args...); err != nil {
			return err
		}
	}
	if err := cp.startKubelet(ctx); err != nil {
		return err
	}
	return cp.startCoreDNS(ctx, bin)
}

func (cp *ControlPlane) startContainerd(ctx context.Context) error {
	n := cp.node
	cfg := fmt.Sprintf(`version = 3
root = %q
state = %q
[grpc]
  address = %q
[ttrpc]
  address = %q
[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %q
[plugins.'io.containerd.cri.v1.runtime']
  # The machine lacks CAP_SYS_RESOURCE: runc cannot raise oom_score_adj.
  restrict_oom_score_adj = true
  disable_hugetlb_controller = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [%q]
    conf_dir = %q
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      runtime_path = %q
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        Root = %q
`, filepath.Join(nodeState, "containerd"), filepath.Join(nodeRun, "containerd"), n.sock, n.sock+".ttrpc",
		PauseImage, n.cniBin, filepath.Join(nodeState, "cni", "net.d"), filepath.Join(n.bin, "containerd-shim-runc-v2"), filepath.Join(nodeRun, "runc"))
	// In nodeRun, so that the process is known as the node's by its
	// command line (cleanNode).
	path := filepath.Join(nodeRun, "containerd.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		return err
	}
	p, err := cp.start(n.bin, "containerd", "--config", path)
	if err != nil {
		return err
	}
	return p.waitFor(ctx, "containerd to serve", func(ctx context.Context) error {
		_, err := n.ctr(ctx, "version")
		return err
	})
}

// ctr runs ctr against the node's containerd, in the CRI's namespace.
func (n *node) ctr(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(n.bin, "ctr"), append([]string{"--address", n.sock, "--namespace", "k8s.io"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("ctr %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

func (cp *ControlPlane) startKubelet(ctx context.Context) error {
	kubeconfig, err := cp.writeKubeconfig("kubelet", cp.pki.nodeToken, "")
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://%s
podLogsDir: %s
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
clusterDNS: [%s]
clusterDomain: %s
resolvConf: ""
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
failSwapOn: false
makeIPTablesUtilChains: false
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "1Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
nodeStatusUpdateFrequency: 2s
syncFrequency: 5s
fileCheckFrequency: 5s
`, cp.node.sock, filepath.Join(nodeState, "pods"), NodeIP, ClusterDomain)
	path := filepath.Join(cp.dir, "kubelet.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		return err
	}
	p, err := cp.start(cp.node.kubelet, "kubelet",
		"--config="+path,
		"--kubeconfig="+kubeconfig,
		"--root-dir="+filepath.Join(nodeState, "kubelet"),
		"--cert-dir="+filepath.Join(nodeState, "kubelet", "pki"),
		"--hostname-override="+NodeName,
		"--node-ip="+NodeIP.String(),
		"--v=2",
	)
	if err != nil {
		return err
	}
	if err := p.waitFor(ctx, "Node "+NodeName+" Ready", func(ctx context.Context) error {
		nd, err := cp.client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range nd.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("Ready %s: %s", c.Status, c.Message)
			}
		}
		return errors.New("no Ready condition")
	}); err != nil {
		return err
	}
	nd, err := cp.client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return sameMinor(filepath.Join(cp.node.kubelet, "kubelet"), nd.Status.NodeInfo.KubeletVersion, cp.node.version)
}

func (cp *ControlPlane) startCoreDNS(ctx context.Context, bin string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	corefile := fmt.Sprintf(`.:53 {
    bind %s
    ready 127.0.0.1:%d
    errors
    kubernetes %s {
        kubeconfig %s
    }
}
`, NodeIP, port, ClusterDomain, cp.kubeconfig)
	path := filepath.Join(nodeRun, "Corefile")
	if err := os.WriteFile(path, []byte(corefile), 0o644); err != nil {
		return err
	}
	p, err := cp.start(bin, "coredns", "-conf", path)
	if err != nil {
		return err
	}
	return p.waitHealthy(ctx, http.DefaultClient, "http://127.0.0.1:"+strconv.Itoa(port)+"/ready", nil)
}

// stopNode deletes every pod, so that the kubelet stops their containers
// as it does, before the processes stop.
func (cp *ControlPlane) stopNode() {
	if cp.client == nil { // the API server never started
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nss, err := cp.client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	zero := int64(0)
	for _, ns := range nss.Items {
		_ = cp.client.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	}
}

// teardown removes what the node added to the machine and releases the
// node lock.
func (n *node) teardown() {
	cleanNode()
	if n.lock != nil {
		n.lock.Close()
	}
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
