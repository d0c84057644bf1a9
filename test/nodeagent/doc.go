// Package nodeagent is a test-only stand-in for the kubelet: it registers a
// Node with the API server and runs the containers of the pods bound to it
// as local processes, so that a real control plane (test/controlplane) runs
// whole jobs: StatefulSet controller → scheduler → pods → processes →
// pod status → deletion. It is no part of tfgen.
//
// What it does as the kubelet does:
//
//   - The Node is Ready with capacity (cpu, memory, pods), and its Lease in
//     kube-node-lease is renewed, so the node lifecycle controller neither
//     taints nor evicts.
//   - Init containers run in order, each to a zero exit (a failed one is
//     restarted unless the pod's restartPolicy is Never); then the containers
//     start, each in a new session (its "cgroup": when the main process ends,
//     or after the grace period, everything left in the session is killed;
//     the agents of a process share one walk of /proc for it, which costs
//     about 20 µs a process on the machine).
//   - Command and args as Kubernetes joins them with the image's entrypoint
//     and cmd; `$(VAR)` expansion in env values, command and args (`$$`
//     escapes, unknown names stay as written); env from the downward API
//     (fieldRef: metadata.name, namespace, uid, labels['...'] such as
//     apps.kubernetes.io/pod-index, annotations['...'], spec.nodeName,
//     spec.serviceAccountName, status.podIP, status.hostIP).
//   - Restarts: the container's own restartPolicy and restartPolicyRules
//     (exit-code rules) win over the pod's restartPolicy; restartCount,
//     lastState.terminated and a doubling back-off (CrashLoopBackOff).
//   - Status: phase (Succeeded or Failed once every main container ended
//     for good and no sidecar runs, as the kubelet's getPhase: until then
//     the pod is Running, and holds its requests), the
//     Initialized/ContainersReady/Ready conditions, podIP, container
//     states with exit codes and termination messages, written
//     as the kubelet writes them: the pod read, then a strategic merge
//     patch of its status with the pod's UID as a precondition, and only
//     for a status newer than the one last written.
//   - Deletion: SIGTERM to each container's main process, SIGKILL to the
//     whole session after the pod's deletion grace period, then the pod is
//     deleted with grace period 0.
//
// What stands in for a container runtime:
//
//   - Images are not pulled. Config.Images maps an image reference (with or
//     without its tag) to an Image: its entrypoint and cmd, and files (paths
//     inside the image, such as /tfsupervisor, mapped to local files). A
//     container whose image is not in the table stays Waiting (ErrImagePull).
//   - Volumes are directories, one per volume of the pod, under a short
//     directory of the pod's in the system's temporary directory, so that a
//     Unix socket in one has a path short enough (emptyDir and every other
//     kind alike, all empty at first, but an image volume, which holds
//     links to its image's files).
//   - Paths: a command, argument or env value that is a container path
//     under a volumeMount (or the mount path itself) is rewritten to the
//     volume's directory; one that names a file of the image is rewritten to
//     the local file. So the init container's `/tfsupervisor install
//     /tfgen/bin` copies the binary into the pod's tfgen-bin directory, and
//     the training container's `/tfgen/bin/tfsupervisor run -- ...` runs
//     that copy.
//   - The termination message file (terminationMessagePath) is a file per
//     container start in the pod's directory; its path is given to the
//     process as TFSUPERVISOR_TERMINATION_LOG (tfsupervisor's
//     --termination-log) since /dev/termination-log cannot be bind-mounted
//     here. With terminationMessagePolicy FallbackToLogsOnError an empty
//     message after a failure is the log's tail.
//   - Credentials: a container that would find a token at
//     /var/run/secrets/kubernetes.io/serviceaccount gets KUBECONFIG, a
//     kubeconfig with that token, instead of the file and
//     KUBERNETES_SERVICE_HOST: a projected token of the pod's account (from
//     the TokenRequest API, bound to the pod) or a token Secret's, for a
//     volume mounted there, else the automounted token of the pod's
//     account unless the pod opts out. Other containers get none.
//   - Native sidecars (init containers with restartPolicy Always) start in
//     their turn and run beside the main containers, restarted whenever
//     they exit; when the pod stops, they get SIGTERM once the main
//     containers have ended.
//   - Environment: PATH and HOSTNAME (the pod name) besides the above; no
//     Service links. The Node's address is 127.0.0.1; each pod gets an
//     address of PodCIDR (Endpoints refuse loopback ones) that nothing
//     listens on, and there is no DNS: replicas cannot reach each other by
//     their Service names, unless the pod template gives those names as
//     spec.hostAliases of 127.0.0.1 (every pod shares this machine's
//     network, so each replica type then needs a port of its own). As the
//     kubelet does, a pod with hostAliases gets an /etc/hosts of its own
//     with them (in a mount namespace of its own: Linux, CAP_SYS_ADMIN).
//   - Ignored: resources, securityContext, probes (a running container is
//     ready), lifecycle hooks, envFrom and valueFrom other than fieldRef
//     (the container then fails with CreateContainerConfigError); the next
//     init container starts as soon as a sidecar's process has started.
//
// Scheduling: the agent runs the pods bound to its Node, by whatever binds
// them (kube-scheduler in a control plane with Options.Scheduler, or a
// test that sets spec.nodeName). A scheduling-gated pod is never bound
// (the scheduler leaves it alone and the API server refuses to bind it);
// the agent would not run one either. A pod that ended is not run again:
// its controller makes another (a StatefulSet's under the same name, on
// the Node the scheduler picks).
//
// Each container's output is appended to LogDir()/NAMESPACE/POD/CONTAINER.log,
// kept after the pod is gone, for the test to show.
//
// Where it stays: the real kubelet (test/controlplane's Options.Node, used
// by test/node) runs the flows that depend on the kubelet and the runtime.
// The node agent remains for what one kubelet on this machine cannot do:
// many packages' clusters at once (only one kubelet runs per machine, the
// agent runs in every package in parallel), jobs of hundreds of pods
// (test/supervisor's large jobs and the bench), and fast restarts (its
// back-off is configurable; the kubelet's starts at 10 s).
package nodeagent
