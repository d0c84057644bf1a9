package controlplane

import (
	"os"
	"path/filepath"
	"time"
)

// kueue is what Options.Kueue runs: Kueue's controller manager (`make
// tools` builds it into BIN/kueue from the Go module proxy and copies its
// release's manifests into BIN/kueue.d), installed as an addon with the
// release's default integrations and, if w is set, its waitForPodsReady.
// Its visibility API (pending workloads, an aggregated API server) is
// off: it reads certificates from a fixed root path, and no test asks it.
func kueue(w *KueueWaitForPodsReady) addon {
	return addon{
		name:       "kueue",
		namespace:  KueueNamespace,
		namePrefix: "kueue-",
		config:     "manager/controller_manager_config.yaml",
		setConfig: func(cfg map[string]any, p addonPorts) {
			cfg["health"] = map[string]any{"healthProbeBindAddress": loopback(p.health)}
			cfg["metrics"] = map[string]any{"bindAddress": loopback(p.metrics)}
			cfg["webhook"] = map[string]any{"port": p.webhook, "host": "127.0.0.1", "certDir": p.certDir}
			cfg["leaderElection"] = map[string]any{"leaderElect": false}
			cfg["internalCertManagement"] = map[string]any{"enable": false}
			if w != nil {
				cfg["waitForPodsReady"] = w.config()
			}
		},
		args: []string{"--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2"},
		before: func(cp *ControlPlane) error {
			cp.atStop = append(cp.atStop, removeKueueMetricsCerts)
			return cp.pki.servingFiles("kueue-metrics", kueueMetricsCerts)
		},
	}
}

// kueueMetricsCerts is where Kueue's metrics server, without in-cluster
// certificate management, reads its certificate (cmd/kueue): a fixed
// path, outside the control plane's directory.
const kueueMetricsCerts = "/etc/kueue/metrics/certs"

// removeKueueMetricsCerts removes the certificate files from
// kueueMetricsCerts, and the directories up to /etc/kueue that are then
// empty (also those an earlier run left behind), nothing else.
func removeKueueMetricsCerts() {
	for _, f := range []string{"tls.crt", "tls.key"} {
		_ = os.Remove(filepath.Join(kueueMetricsCerts, f))
	}
	for dir := kueueMetricsCerts; dir != "/etc"; dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}

// KueueNamespace is Kueue's own namespace, as its release makes it.
const KueueNamespace = "kueue-system"

// KueueWaitForPodsReady is Kueue's waitForPodsReady configuration, off in
// the releases up to v0.18 and on from v0.19 (timeout and recoveryTimeout
// 30 minutes): an admitted workload whose pods are not all Ready within
// Timeout, or that stops being so for RecoveryTimeout, is evicted and
// requeued after a backoff.
type KueueWaitForPodsReady struct {
	// Timeout for an admitted workload's pods to be Ready.
	Timeout time.Duration
	// RecoveryTimeout for its pods to be Ready again once they were;
	// zero: Timeout, as Kueue defaults it.
	RecoveryTimeout time.Duration
	// BackoffBaseSeconds is the first requeuing backoff after such an
	// eviction, doubling with each; zero: Kueue's 60.
	BackoffBaseSeconds int32
}

// config is w as Kueue's configuration file has it.
func (w *KueueWaitForPodsReady) config() map[string]any {
	cfg := map[string]any{"timeout": w.Timeout.String()}
	if w.RecoveryTimeout > 0 {
		cfg["recoveryTimeout"] = w.RecoveryTimeout.String()
	}
	if w.BackoffBaseSeconds > 0 {
		cfg["requeuingStrategy"] = map[string]any{"backoffBaseSeconds": w.BackoffBaseSeconds}
	}
	return cfg
}
