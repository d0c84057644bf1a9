package job

// Settings are the render-time choices that are not part of a job: the
// `tfgen` key of the chart's values.
type Settings struct {
	// supervisorImage holds tfsupervisor; its init container installs it.
	SupervisorImage string `json:"supervisorImage"`
	// clusterDomain, when set, is appended to replica addresses.
	ClusterDomain string `json:"clusterDomain,omitempty"`
	// supervisorVolume says how tfsupervisor reaches the training
	// container: "copy" (or empty), an init container copies it into an
	// emptyDir; "image", an image volume mounts its image (Kubernetes 1.35,
	// containerd 2.1 or CRI-O 1.31), with no init container and no copy.
	SupervisorVolume string `json:"supervisorVolume,omitempty"`
	// endpoints says who keeps the replicas' addresses for their
	// headless Services: "controller" (or empty), Kubernetes' endpoint
	// controllers, by the Services' selectors; "pod", each pod's
	// tfsupervisor publishes an EndpointSlice of its own.
	Endpoints string `json:"endpoints,omitempty"`
	// kubeVersion ("1.37"), when set, is the Kubernetes minor the objects
	// are for whatever the cluster's (.Capabilities.KubeVersion, which
	// says which cluster features may be used otherwise): the chart's
	// explicit override, which tfgen values writes only when given
	// --kube-version.
	KubeVersion string `json:"kubeVersion,omitempty"`
	// excludeEvaluator leaves the evaluator out of TF_CONFIG's cluster.
	ExcludeEvaluator bool `json:"excludeEvaluator,omitempty"`
	// accelerators maps a resource name (nvidia.com/gpu) to what a
	// container requesting it gets (seed 000's controller config).
	Accelerators map[string]Accelerator `json:"accelerators,omitempty"`
}

// Accelerator is what a container using an accelerator resource needs.
type Accelerator struct {
	Volumes []AcceleratorVolume `json:"volumes,omitempty"`
	EnvVars []EnvVar            `json:"envVars,omitempty"`
}

// AcceleratorVolume is a host path mounted into the container.
type AcceleratorVolume struct {
	Name      string `json:"name"`
	HostPath  string `json:"hostPath"`
	MountPath string `json:"mountPath"`
}

// EnvVar is a plain environment variable.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
