package controlplane

import "fmt"

// jobSet is what Options.JobSet runs: JobSet's controller manager
// (hack/anchor/jobset.sh builds it into BIN/jobset from the Go module
// proxy and copies its release's manifests into BIN/jobset.d), installed
// as an addon.
var jobSet = addon{
	name:       "jobset",
	namespace:  "jobset-system",
	namePrefix: "jobset-",
	config:     "manager/controller_manager_config.yaml",
	setConfig: func(cfg map[string]any, p addonPorts) {
		cfg["health"] = map[string]any{"healthProbeBindAddress": loopback(p.health)}
		cfg["metrics"] = map[string]any{"bindAddress": loopback(p.metrics)}
		cfg["webhook"] = map[string]any{"port": p.webhook, "host": "127.0.0.1", "certDir": p.certDir}
		cfg["leaderElection"] = map[string]any{"leaderElect": false}
		cfg["internalCertManagement"] = map[string]any{"enable": false}
	},
}

// loopback is port on 127.0.0.1, as host:port.
func loopback(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
