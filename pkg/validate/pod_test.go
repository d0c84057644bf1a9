package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// podJob is a TFJob whose workers' pod template spec is spec (YAML, one
// field a line).
func podJob(spec string) string {
	return v1 + "metadata: {name: j}\nspec:\n  tfReplicaSpecs:\n    Worker:\n      template:\n        spec:\n          " +
		strings.ReplaceAll(spec, "\n", "\n          ") + "\n"
}

// TestPodRefusals: what the API server refuses in a pod template (found
// by test/e2e's dry-run of generated jobs) is refused at render, at the
// user's field, every problem at once.
func TestPodRefusals(t *testing.T) {
	const w = "spec.tfReplicaSpecs[Worker].template.spec."
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"port name over 15 characters", `containers: [{name: tensorflow, image: tf, ports: [{name: tensorboard-http, containerPort: 6006}]}]`, []string{
			w + `containers[0].ports[0].name: Invalid value: "tensorboard-http": must be no more than 15 characters`,
		}},
		{"port name not IANA, duplicate", `containers: [{name: tensorflow, image: tf, ports: [{name: HTTP, containerPort: 80}, {name: grpc, containerPort: 81}, {name: grpc, containerPort: 82}]}]`, []string{
			w + `containers[0].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			w + `containers[0].ports[0].name: Invalid value: "HTTP": must contain at least one letter (a-z)`,
			w + `containers[0].ports[2].name: Duplicate value: "grpc"`,
		}},
		{"port numbers and protocol", `containers: [{name: tensorflow, image: tf, ports: [{containerPort: 0}, {containerPort: 65536, hostPort: 70000, protocol: tcp}]}]`, []string{
			w + `containers[0].ports[0].containerPort: Required value`,
			w + `containers[0].ports[1].containerPort: Invalid value: 65536: must be between 1 and 65535, inclusive`,
			w + `containers[0].ports[1].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
			w + `containers[0].ports[1].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"`,
		}},
		{"negative and fractional extended resources", `containers: [{name: tensorflow, image: tf, resources: {limits: {nvidia.com/gpu: -1, example.com/fpga: 500m}}}]`, []string{
			w + `containers[0].resources.limits[example.com/fpga]: Invalid value: "500m": must be an integer`,
			w + `containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0`,
		}},
		{"resource names", `containers: [{name: tensorflow, image: tf, resources: {limits: {gpu: 1, pods: 1, nvidia.com/gpu-x!: 1}}}]`, []string{
			w + `containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-SIZE) or a fully qualified one (nvidia.com/gpu)`,
			w + `containers[0].resources.limits[nvidia.com/gpu-x!]: Invalid value: "nvidia.com/gpu-x!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			w + `containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-SIZE) or a fully qualified one (nvidia.com/gpu)`,
		}},
		{"extended resources not overcommitted", `containers: [{name: tensorflow, image: tf, resources: {requests: {nvidia.com/gpu: 1, cpu: 2}, limits: {cpu: 1, example.com/fpga: 2}}}]`, []string{
			w + `containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to the cpu limit of 1`,
			w + `containers[0].resources.limits[nvidia.com/gpu]: Required value: nvidia.com/gpu cannot be overcommitted: its limit must be set, equal to its request`,
		}},
		{"extended requests unlike their limits", `containers: [{name: tensorflow, image: tf, resources: {requests: {example.com/fpga: 1}, limits: {example.com/fpga: 2}}}]`, []string{
			w + `containers[0].resources.requests[example.com/fpga]: Invalid value: "1": must be equal to the example.com/fpga limit of 2`,
		}},
		{"huge pages", `containers: [{name: tensorflow, image: tf, resources: {limits: {hugepages-2Mi: 1Mi}}}]`, []string{
			w + `containers[0].resources.limits[hugepages-2Mi]: Invalid value: "1Mi": 1Mi is not positive integer multiple of hugepages-2Mi`,
			w + `containers[0].resources: Forbidden: HugePages require cpu or memory`,
		}},
		{"env names and sources", `containers: [{name: tensorflow, image: tf, env: [{name: "A=B"}, {name: ""}, {name: X, value: v, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, {name: W, valueFrom: {}}, {name: Z, valueFrom: {fieldRef: {fieldPath: metadata.name}, secretKeyRef: {name: s, key: k}}}]}]`, []string{
			w + `containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			w + `containers[0].env[1].name: Required value`,
			w + "containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
			w + "containers[0].env[3].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
			w + `containers[0].env[4].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
		}},
		{"env from the downward API", `containers: [{name: tensorflow, image: tf, env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}, {name: B, valueFrom: {fieldRef: {fieldPath: "metadata.labels['bad key!']"}}}, {name: C, valueFrom: {resourceFieldRef: {resource: limits.nvidia.com/gpu}}}, {name: D, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1Mi}}}]}]`, []string{
			w + `containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
			w + `containers[0].env[1].valueFrom.fieldRef: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			w + `containers[0].env[2].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.nvidia.com/gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
			w + `containers[0].env[3].valueFrom.resourceFieldRef.divisor: Invalid value: "1Mi": only divisor's values 1m, 1 are supported with the cpu resource`,
		}},
		{"env from ConfigMaps and Secrets", `containers: [{name: tensorflow, image: tf, env: [{name: A, valueFrom: {configMapKeyRef: {name: Bad_Name, key: "bad key"}}}, {name: B, valueFrom: {secretKeyRef: {name: "", key: ""}}}], envFrom: [{prefix: "a=b", configMapRef: {name: cfg}}, {}, {configMapRef: {name: cfg}, secretRef: {name: s}}]}]`, []string{
			w + `containers[0].env[0].valueFrom.configMapKeyRef.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			w + `containers[0].env[0].valueFrom.configMapKeyRef.key: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
			w + `containers[0].env[1].valueFrom.secretKeyRef.name: Required value`,
			w + `containers[0].env[1].valueFrom.secretKeyRef.key: Required value`,
			w + `containers[0].envFrom[0].prefix: Invalid value: "a=b": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			w + "containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`",
			w + `containers[0].envFrom: Invalid value: "": may not have more than one field specified at a time`,
		}},
		{"volume names and sources", `volumes: [{name: Data, emptyDir: {}}, {name: tfgen-bin, emptyDir: {}}, {name: two, emptyDir: {}, hostPath: {path: /x}}, {name: none}, {name: dup, emptyDir: {}}, {name: dup, emptyDir: {}}]
containers: [{name: tensorflow, image: tf}]`, []string{
			w + `volumes[0].name: Invalid value: "Data": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			w + `volumes[1].name: Duplicate value: "tfgen-bin (tfgen's own volume of that name is in every pod it renders; rename yours)"`,
			w + `volumes[2].emptyDir: Forbidden: may not specify more than 1 volume type`,
			w + `volumes[3]: Required value: must specify a volume type`,
			w + `volumes[5].name: Duplicate value: "dup"`,
		}},
		{"volume sources' fields", `volumes: [{name: a, hostPath: {path: /a/../b, type: bogus}}, {name: b, emptyDir: {sizeLimit: -1Gi}}, {name: c, configMap: {name: "", defaultMode: 512, items: [{key: k, path: ../x}]}}, {name: d, downwardAPI: {items: [{path: /abs, fieldRef: {fieldPath: spec.nodeName}}]}}, {name: e, nfs: {server: nfs, path: exports}}, {name: f, persistentVolumeClaim: {claimName: ""}}]
containers: [{name: tensorflow, image: tf}]`, []string{
			w + `volumes[0].hostPath.path: Invalid value: "/a/../b": must not contain '..'`,
			w + `volumes[0].hostPath.type: Unsupported value: "bogus": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
			w + `volumes[1].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`,
			w + `volumes[2].configMap.name: Required value`,
			w + `volumes[2].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
			w + `volumes[2].configMap.items[0].path: Invalid value: "../x": must not contain '..'`,
			w + `volumes[2].configMap.items[0].path: Invalid value: "../x": must not start with '..'`,
			w + `volumes[3].downwardAPI.items[0].path: Invalid value: "/abs": must be a relative path`,
			w + `volumes[3].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`,
			w + `volumes[4].nfs.path: Invalid value: "exports": must be an absolute path`,
			w + `volumes[5].persistentVolumeClaim.claimName: Required value`,
		}},
		{"volume mounts", `volumes: [{name: data, emptyDir: {}}]
containers: [{name: tensorflow, image: tf, command: [train], volumeMounts: [{name: missing, mountPath: /a}, {name: data, mountPath: /a}, {name: data, mountPath: /tfgen/run}, {name: data, mountPath: /b, subPath: ../up}, {name: data, mountPath: /c, mountPropagation: Bidirectional}]}, {name: side, image: s, volumeMounts: [{name: data, mountPath: /tfgen/run}]}]`, []string{
			w + `containers[0].volumeMounts[0].name: Not found: "missing"`,
			w + `containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique`,
			w + `containers[0].volumeMounts[2].mountPath: Invalid value: "/tfgen/run": tfgen mounts its own volume there; mount yours elsewhere`,
			w + `containers[0].volumeMounts[3].subPath: Invalid value: "../up": must not contain '..'`,
			w + `containers[0].volumeMounts[4].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers`,
		}},
		{"probes and hooks", `containers: [{name: tensorflow, image: tf, readinessProbe: {periodSeconds: -1, terminationGracePeriodSeconds: 5}, livenessProbe: {exec: {command: [x]}, tcpSocket: {port: 80}, successThreshold: 2}, startupProbe: {httpGet: {port: a-very-long-port-name, scheme: http}}, lifecycle: {preStop: {sleep: {seconds: 60}}}}]`, []string{
			w + `containers[0].readinessProbe: Required value: must specify a handler type`,
			w + `containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
			w + `containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type`,
			w + `containers[0].startupProbe.httpGet.port: Invalid value: "a-very-long-port-name": must be no more than 15 characters`,
			w + `containers[0].startupProbe.httpGet.scheme: Unsupported value: "http": supported values: "HTTP", "HTTPS"`,
			w + `containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
			w + `containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`,
			w + `containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)`,
		}},
		{"init containers' probes", `initContainers: [{name: setup, image: s, readinessProbe: {exec: {command: [x]}}}, {name: agent, image: s, restartPolicy: Always, readinessProbe: {exec: {command: [x]}}}]
containers: [{name: tensorflow, image: tf}]`, []string{
			w + `initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`,
		}},
		{"container names and images", `initContainers: [{name: tfsupervisor, image: s}]
containers: [{name: tensorflow, image: " tf"}, {name: Side_Car, image: s}, {name: tensorflow, image: s}, {name: "", image: s}]`, []string{
			w + `initContainers[0].name: Duplicate value: "tfsupervisor (tfgen's own container of that name is in every pod it renders; rename yours)"`,
			w + `containers[0].image: Invalid value: " tf": must not have leading or trailing whitespace`,
			w + `containers[1].name: Invalid value: "Side_Car": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			w + `containers[2].name: Duplicate value: "tensorflow"`,
			w + `containers[3].name: Required value`,
		}},
		{"security contexts", `securityContext: {runAsUser: -1, supplementalGroups: [-1], sysctls: [{name: "bad name", value: "1"}], seccompProfile: {type: Localhost}}
containers: [{name: tensorflow, image: tf, securityContext: {runAsUser: 2147483648, privileged: true, allowPrivilegeEscalation: false, procMount: Unmasked}}]`, []string{
			w + `containers[0].securityContext.runAsUser: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive`,
			w + "containers[0].securityContext: Invalid value: {\"privileged\":true,\"runAsUser\":2147483648,\"allowPrivilegeEscalation\":false,\"procMount\":\"Unmasked\"}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
			w + "containers[0].securityContext.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`",
			w + `securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
			w + `securityContext.supplementalGroups[0]: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
			w + `securityContext.sysctls[0].name: Invalid value: "bad name": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
			w + `securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
		}},
		{"pod fields", `serviceAccountName: Trainer
hostname: Bad_Host
activeDeadlineSeconds: 3600
priority: 1000
nodeSelector: {"bad key!": x}
tolerations: [{key: "", operator: Equal, value: x}, {key: k, operator: Exists, value: v, effect: NoSchedule, tolerationSeconds: 10}]
dnsPolicy: None
hostAliases: [{ip: not-an-ip, hostnames: [Bad_Host]}]
runtimeClassName: Bad_Runtime
os: {name: windows}
containers: [{name: tensorflow, image: tf}]`, []string{
			w + `serviceAccountName: Invalid value: "Trainer": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			w + `hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			w + `runtimeClassName: Invalid value: "Bad_Runtime": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			w + `activeDeadlineSeconds: Forbidden: a StatefulSet's pods may not have one (the API server refuses it); the job's runPolicy.activeDeadlineSeconds bounds its run`,
			w + `nodeSelector: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			w + "tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
			w + "tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			w + "tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
			w + "dnsConfig: Required value: must provide `dnsConfig` with at least one nameserver when `dnsPolicy` is None",
			w + `hostAliases[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			w + `hostAliases[0].hostnames[0]: Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			w + `priority: Forbidden: the API server's Priority admission sets it from priorityClassName and refuses every pod that gives another value; leave it out, and set priorityClassName`,
			w + `os.name: Forbidden: tfgen's own containers (tfsupervisor) are Linux containers with Linux security settings, which a windows pod may not have`,
		}},
		{"host ports", `hostNetwork: true
containers: [{name: tensorflow, image: tf, ports: [{containerPort: 80, hostPort: 81}]}, {name: side, image: s, ports: [{containerPort: 80}]}]`, []string{
			w + "containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lines(decode(t, podJob(tt.spec)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodAccepted: what the API server takes passes.
func TestPodAccepted(t *testing.T) {
	for _, spec := range []string{
		"containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 2222}, {name: metrics, containerPort: 9090, protocol: UDP}]}]",
		"containers: [{name: tensorflow, image: tf, resources: {requests: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: 2}, limits: {cpu: 1, nvidia.com/gpu: 2, hugepages-2Mi: 4Mi}}}]",
		"containers: [{name: tensorflow, image: tf, env: [{name: my.var, value: x}, {name: IDX, valueFrom: {fieldRef: {fieldPath: \"metadata.labels['apps.kubernetes.io/pod-index']\"}}}, {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}], envFrom: [{prefix: CFG_, configMapRef: {name: cfg}}]}]",
		"volumes: [{name: data, emptyDir: {medium: Memory, sizeLimit: 1Gi}}, {name: cfg, configMap: {name: cfg, defaultMode: 420, items: [{key: k, path: p}]}}]\ncontainers: [{name: tensorflow, image: tf, volumeMounts: [{name: data, mountPath: /data}, {name: cfg, mountPath: /etc/cfg, subPath: p}]}, {name: side, image: s, volumeMounts: [{name: data, mountPath: /tfgen/run}]}]",
		"initContainers: [{name: agent, image: s, restartPolicy: Always, readinessProbe: {exec: {command: [x]}}}]\ncontainers: [{name: tensorflow, image: tf, livenessProbe: {httpGet: {path: /, port: tfjob-port}, periodSeconds: 5}, lifecycle: {preStop: {sleep: {seconds: 5}}}}]",
		"serviceAccountName: trainer\nnodeSelector: {disktype: ssd}\ntolerations: [{operator: Exists}, {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\nhostNetwork: true\ndnsPolicy: ClusterFirstWithHostNet\ncontainers: [{name: tensorflow, image: tf, ports: [{containerPort: 2222, hostPort: 2222}]}]",
	} {
		if got := lines(decode(t, podJob(spec))); len(got) > 0 {
			t.Errorf("%s:\n%s", spec, strings.Join(got, "\n"))
		}
	}
}
