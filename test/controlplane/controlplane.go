package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Options says what to start.
type Options struct {
	// ControllerManager starts kube-controller-manager (all controllers,
	// each with its own ServiceAccount credentials).
	ControllerManager bool
	// Scheduler starts kube-scheduler.
	Scheduler bool
	// BinDir holds the binaries; default $TFGEN_BIN, else bin/ at the root
	// of the tfgen module.
	BinDir string
	// KubeVersion is the Kubernetes minor ("1.34", one of KubeVersions) of
	// kube-apiserver, kube-controller-manager and kube-scheduler; empty is
	// the newest. Start checks that the API server is of that minor.
	// Flags and gates of this package are ones every minor knows; a gate
	// in FeatureGates that the minor does not know stops it from starting.
	KubeVersion string
	// ExtraAPIServerFlags are appended to kube-apiserver's flags.
	ExtraAPIServerFlags []string
	// FeatureGates are given to every component (--feature-gates), so that
	// the API server, the controllers and the scheduler agree on them.
	FeatureGates map[string]bool
	// RuntimeConfig enables API versions that are off by default
	// (kube-apiserver --runtime-config), e.g. "scheduling.k8s.io/v1beta1=true".
	RuntimeConfig []string
	// StartTimeout bounds the whole start; default 2 minutes (4 with Node).
	StartTimeout time.Duration
	// Node also runs a real node on this machine (see node.go): containerd,
	// the kubelet and CoreDNS, with ControllerManager and Scheduler. Only
	// one node runs per machine at a time; Start waits for its turn.
	Node *NodeOptions
	// Kueue also runs Kueue as its release installs it (kueue.go), with
	// ControllerManager and Scheduler.
	Kueue bool
	// KueueWaitForPodsReady, with Kueue, turns on its waitForPodsReady
	// (as v0.19 does by default); nil: as the release ships it.
	KueueWaitForPodsReady *KueueWaitForPodsReady
	// JobSet also runs JobSet as its release installs it (jobset.go), with
	// ControllerManager and Scheduler.
	JobSet bool
}

// ServiceCIDR is the cluster's Service IP range.
const ServiceCIDR = "10.0.0.0/24"

// ControlPlane is a running control plane. All its methods but Stop are
// safe for concurrent use.
type ControlPlane struct {
	dir        string
	kubeconfig string
	config     *rest.Config
	client     kubernetes.Interface
	pki        *pki
	mu         sync.Mutex // guards procs
	procs      []*process // in start order
	gates      []string   // --feature-gates of every component
	apiServer  []string   // kube-apiserver's binary directory and flags, to start it again
	startTime  time.Duration
	apiPort    int
	node       *node    // nil without Options.Node
	atStop     []func() // what Stop undoes outside dir, once every process is stopped

	kubeVersion string // the API server's, such as v1.34.4
}

// Start starts etcd and kube-apiserver, and the controller-manager and
// scheduler if opts asks, and returns once each is healthy. On error nothing
// is left running; the error carries the failing process's recent output.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	bin := opts.BinDir
	if bin == "" {
		if bin, err = binDir(); err != nil {
			return nil, err
		}
	}
	// kube holds the control plane's Kubernetes binaries, of opts.KubeVersion.
	kube, err := kubeBinDir(bin, opts.KubeVersion)
	if err != nil {
		return nil, err
	}
	wanted := []string{filepath.Join(bin, "etcd"), filepath.Join(kube, "kube-apiserver")}
	var kubelet string // the kubelet's directory
	if opts.Node != nil {
		opts.ControllerManager, opts.Scheduler = true, true
		if kubelet, err = kubeBinDir(bin, opts.Node.kubeletVersion(opts.KubeVersion)); err != nil {
			return nil, err
		}
		wanted = append(wanted, filepath.Join(kubelet, "kubelet"))
		for _, name := range nodeBinaries {
			wanted = append(wanted, filepath.Join(bin, name))
		}
	}
	var addons []addon
	if opts.Kueue {
		addons = append(addons, kueue(opts.KueueWaitForPodsReady))
	}
	if opts.JobSet {
		addons = append(addons, jobSet)
	}
	for _, a := range addons {
		opts.ControllerManager, opts.Scheduler = true, true
		wanted = append(wanted, filepath.Join(bin, a.name))
	}
	if opts.ControllerManager {
		wanted = append(wanted, filepath.Join(kube, "kube-controller-manager"))
	}
	if opts.Scheduler {
		wanted = append(wanted, filepath.Join(kube, "kube-scheduler"))
	}
	var missing []string
	for _, path := range wanted {
		if _, err := os.Stat(path); err != nil {
			rel, _ := filepath.Rel(bin, path)
			missing = append(missing, rel)
		}
	}
	if len(missing) > 0 {
		return nil, missingBinary(bin, strings.Join(missing, ", "))
	}
	var nodeLock *os.File
	if opts.Node != nil {
		if os.Geteuid() != 0 {
			return nil, errors.New("controlplane: node: the kubelet and containerd need root")
		}
		// Before the start's timeout: another package's node may be up
		// for minutes.
		if nodeLock, err = lockNode(); err != nil {
			return nil, err
		}
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
		if opts.Node != nil {
			timeout = 4 * time.Minute
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()

	dir, err := os.MkdirTemp("", "tfgen-controlplane-")
	if err != nil {
		if nodeLock != nil {
			nodeLock.Close()
		}
		return nil, err
	}
	cp := &ControlPlane{dir: dir, gates: opts.featureGates()}
	if opts.Node != nil {
		// Before anything listens: the node's bridge carries the address
		// the API server is reached at from pods.
		if cp.node, err = prepareNode(*opts.Node, kubelet, orNewest(opts.Node.kubeletVersion(opts.KubeVersion)), nodeLock); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		opts.ExtraAPIServerFlags = append(nodeAPIServerFlags(), opts.ExtraAPIServerFlags...)
	}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	_, svcNet, _ := net.ParseCIDR(ServiceCIDR)
	serviceIP := append(net.IP(nil), svcNet.IP.To4()...)
	serviceIP[3]++
	var extraIPs []net.IP
	if cp.node != nil {
		extraIPs = append(extraIPs, NodeIP)
	}
	if cp.pki, err = newPKI(dir, append(extraIPs, serviceIP)); err != nil {
		return nil, err
	}
	// Each port is chosen just before its process binds it: a port chosen
	// early could meanwhile become the local port of some connection.
	var etcdPort int
	if err := retryOnPortClash(func() (err error) {
		etcdPort, err = cp.startEtcd(ctx, bin)
		return err
	}); err != nil {
		return nil, err
	}
	if err := retryOnPortClash(func() error {
		return cp.startAPIServer(ctx, kube, etcdPort, append(opts.apiServerFlags(), opts.ExtraAPIServerFlags...))
	}); err != nil {
		return nil, err
	}
	if err := cp.checkAPIServerVersion(filepath.Join(kube, "kube-apiserver"), orNewest(opts.KubeVersion)); err != nil {
		return nil, err
	}
	// The controller-manager and scheduler start side by side.
	var ready []func() error
	for _, c := range []struct {
		want  bool
		start func(context.Context, string) (func() error, error)
	}{{opts.ControllerManager, cp.startControllerManager}, {opts.Scheduler, cp.startScheduler}} {
		if !c.want {
			continue
		}
		wait, err := c.start(ctx, kube)
		if err != nil {
			return nil, err
		}
		start := c.start
		ready = append(ready, func() error {
			err := wait()
			if !portClash(err) {
				return err
			}
			return retryOnPortClash(func() error {
				wait, err := start(ctx, kube)
				if err != nil {
					return err
				}
				return wait()
			})
		})
	}
	for _, wait := range ready {
		if err := wait(); err != nil {
			return nil, err
		}
	}
	if cp.node != nil {
		if err := cp.startNode(ctx, bin); err != nil {
			return nil, err
		}
	}
	for _, a := range addons {
		if err := retryOnPortClash(func() error { return cp.startAddon(ctx, bin, a) }); err != nil {
			return nil, err
		}
	}
	cp.startTime = time.Since(began)
	return cp, nil
}

// featureGates is the --feature-gates flag of opts, nil if it sets none.
func (opts Options) featureGates() []string {
	if len(opts.FeatureGates) == 0 {
		return nil
	}
	gates := make([]string, 0, len(opts.FeatureGates))
	for name, on := range opts.FeatureGates {
		gates = append(gates, name+"="+strconv.FormatBool(on))
	}
	slices.Sort(gates)
	return []string{"--feature-gates=" + strings.Join(gates, ",")}
}

// apiServerFlags are kube-apiserver's flags from opts' gates and runtime config.
func (opts Options) apiServerFlags() []string {
	flags := opts.featureGates()
	if len(opts.RuntimeConfig) > 0 {
		flags = append(flags, "--runtime-config="+strings.Join(opts.RuntimeConfig, ","))
	}
	return flags
}

func (cp *ControlPlane) start(bin, name string, args ...string) (*process, error) {
	p, err := startProcess(bin, cp.dir, name, args...)
	if err != nil {
		return nil, err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for i, old := range cp.procs {
		if old.name == name { // started again
			cp.procs[i] = p
			return p, nil
		}
	}
	cp.procs = append(cp.procs, p)
	return p, nil
}

// startEtcd starts etcd, waits until it is healthy and returns its client port.
func (cp *ControlPlane) startEtcd(ctx context.Context, bin string) (int, error) {
	ports, err := freePorts(2)
	if err != nil {
		return 0, err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	p, err := cp.start(bin, "etcd",
		"--name=default",
		"--data-dir="+filepath.Join(cp.dir, "etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=default="+peer,
		"--unsafe-no-fsync", // test data: durability is not wanted, speed is
		"--log-level=warn",
	)
	if err != nil {
		return 0, err
	}
	return ports[0], p.waitHealthy(ctx, http.DefaultClient, client+"/health", nil)
}

func (cp *ControlPlane) startAPIServer(ctx context.Context, bin string, etcdPort int, extra []string) error {
	k := cp.pki
	port, err := freePort()
	if err != nil {
		return err
	}
	bind := "127.0.0.1"
	if cp.node != nil {
		bind = "0.0.0.0" // pods reach it on the node's bridge (NodeIP)
	}
	cp.apiPort = port
	args := []string{
		"--advertise-address=127.0.0.1",
		"--bind-address=" + bind,
		"--secure-port=" + strconv.Itoa(port),
		"--etcd-servers=" + fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--cert-dir=" + cp.dir,
		"--tls-cert-file=" + k.servingCert,
		"--tls-private-key-file=" + k.servingKey,
		"--client-ca-file=" + k.caFile,
		"--token-auth-file=" + k.tokenAuthFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + k.saPub,
		"--service-account-signing-key-file=" + k.saKey,
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--allow-privileged=true",
		// Published in kube-system/extension-apiserver-authentication; without
		// them the controller-manager and scheduler log errors all along.
		"--requestheader-client-ca-file=" + k.caFile,
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		// The "kubernetes" Service cannot have a loopback endpoint.
		"--endpoint-reconciler-type=none",
	}
	cp.apiServer = append([]string{bin}, append(args, extra...)...)
	p, err := cp.start(bin, "kube-apiserver", cp.apiServer[1:]...)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	cp.config = &rest.Config{
		Host:            url,
		BearerToken:     k.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: k.caCert},
		QPS:             100,
		Burst:           200,
	}
	if cp.client, err = kubernetes.NewForConfig(cp.config); err != nil {
		return err
	}
	if cp.kubeconfig, err = cp.writeKubeconfig("admin", k.adminToken, ""); err != nil {
		return err
	}
	return cp.waitAPIServer(ctx, p)
}

// waitAPIServer waits until kube-apiserver p is ready.
func (cp *ControlPlane) waitAPIServer(ctx context.Context, p *process) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cp.pki.caCert)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	return p.waitHealthy(ctx, hc, cp.config.Host+"/readyz", http.Header{"Authorization": {"Bearer " + cp.pki.adminToken}})
}

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after 10 s),
// as an outage of the API does: every request is refused until
// StartAPIServer. etcd and the other components go on.
func (cp *ControlPlane) StopAPIServer() {
	cp.mu.Lock()
	var p *process
	for _, q := range cp.procs {
		if q.name == "kube-apiserver" {
			p = q
		}
	}
	cp.mu.Unlock()
	p.stop(10 * time.Second)
}

// StartAPIServer starts kube-apiserver again, on the same port with the
// same flags, and returns once it is ready.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	p, err := cp.start(cp.apiServer[0], "kube-apiserver", cp.apiServer[1:]...)
	if err != nil {
		return err
	}
	return cp.waitAPIServer(ctx, p)
}

// componentArgs are the flags kube-controller-manager and kube-scheduler share.
func (cp *ControlPlane) componentArgs(name string, port int) []string {
	return append([]string{
		"--kubeconfig=" + cp.kubeconfig,
		"--authentication-kubeconfig=" + cp.kubeconfig,
		"--authorization-kubeconfig=" + cp.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(cp.dir, name),
		"--leader-elect=false",
	}, cp.gates...)
}

// startControllerManager launches kube-controller-manager and returns a
// function that waits until it is ready.
func (cp *ControlPlane) startControllerManager(ctx context.Context, bin string) (func() error, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append(cp.componentArgs("kube-controller-manager", port),
		"--controllers=*",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+cp.pki.saKey,
		"--root-ca-file="+cp.pki.caFile,
		"--service-cluster-ip-range="+ServiceCIDR,
	)
	p, err := cp.start(bin, "kube-controller-manager", args...)
	if err != nil {
		return nil, err
	}
	return func() error {
		if err := p.waitHealthy(ctx, insecureLoopbackClient, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil); err != nil {
			return err
		}
		// /healthz answers before the controllers run. The ServiceAccount
		// controller starts with the others, and pods cannot be admitted
		// before it has made a namespace's "default" ServiceAccount.
		return p.waitFor(ctx, "ServiceAccount default/default", func(ctx context.Context) error {
			_, err := cp.client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err
		})
	}, nil
}

// startScheduler launches kube-scheduler and returns a function that waits
// until it is ready.
func (cp *ControlPlane) startScheduler(ctx context.Context, bin string) (func() error, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := cp.start(bin, "kube-scheduler", cp.componentArgs("kube-scheduler", port)...)
	if err != nil {
		return nil, err
	}
	return func() error {
		return p.waitHealthy(ctx, insecureLoopbackClient, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil)
	}, nil
}

// StartTime is how long Start took, from launching etcd to the last
// component being ready.
func (cp *ControlPlane) StartTime() time.Duration { return cp.startTime }

// Dir is the control plane's temporary directory: PKI, etcd data, logs.
func (cp *ControlPlane) Dir() string { return cp.dir }

// Kubeconfig is the path of an admin kubeconfig (group system:masters).
func (cp *ControlPlane) Kubeconfig() string { return cp.kubeconfig }

// RestConfig returns a copy of the admin client configuration.
func (cp *ControlPlane) RestConfig() *rest.Config { return rest.CopyConfig(cp.config) }

// Client is an admin clientset.
func (cp *ControlPlane) Client() kubernetes.Interface { return cp.client }

// CPUTime returns the CPU time (user and system) the component name
// (etcd, kube-apiserver, ...) has used so far; 0 if it does not run.
func (cp *ControlPlane) CPUTime(name string) time.Duration {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for _, p := range cp.procs {
		if p.name == name && p.cmd.Process != nil {
			return cpuTime(p.cmd.Process.Pid)
		}
	}
	return 0
}

// Logs returns the last lines (up to n per process) of every process's output.
func (cp *ControlPlane) Logs(n int) string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	var b strings.Builder
	for _, p := range cp.procs {
		fmt.Fprintf(&b, "--- last lines of %s ---\n%s\n", p.logPath, p.tail(n))
	}
	return b.String()
}

// Stop stops the processes in reverse start order and removes the directory,
// unless $TFGEN_KEEP_CONTROLPLANE is set. It is safe to call more than once.
func (cp *ControlPlane) Stop() {
	if cp.node != nil {
		cp.stopNode()
	}
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].stop(10 * time.Second)
	}
	if cp.node != nil {
		cp.node.teardown()
	}
	for _, undo := range cp.atStop {
		undo()
	}
	if os.Getenv("TFGEN_KEEP_CONTROLPLANE") == "" {
		_ = os.RemoveAll(cp.dir)
	} else {
		fmt.Fprintf(os.Stderr, "controlplane: kept %s\n", cp.dir)
	}
}
