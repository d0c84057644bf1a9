package controlplane

// Kueue is what Options.Kueue runs: Kueue's controller manager (`make
// tools` builds it into BIN/kueue from the Go module proxy and copies its
// release's manifests into BIN/kueue.d), installed as an addon with the
// release's default integrations. Its visibility API (pending workloads,
// an aggregated API server) is off: it reads certificates from a fixed
// root path, and no test asks it.
var kueue = addon{
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
	},
	args: []string{"--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2"},
	// Without in-cluster certificate management, its metrics server reads
	// its certificate from a fixed path (cmd/kueue).
	before: func(cp *ControlPlane) error { return cp.pki.servingFiles("kueue-metrics", "/etc/kueue/metrics/certs") },
}

// KueueNamespace is Kueue's own namespace, as its release makes it.
const KueueNamespace = "kueue-system"
