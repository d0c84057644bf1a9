{{/*
Shared helpers. Every object's name derives from the release name (the job
name, a DNS-1035 label, so it is printed as is); lowercase replica types name
the per-type objects. Values follow docs/contract.md: the canonical job plus
the `tfgen` settings.

Function calls are what rendering costs, and tfgen renders thousands of jobs
per second: templates write static parts as literal text, user data with
toJson, and compute the job-wide facts once per file:

  $mx := not (empty (get .Values "mxReplicaSpecs"))
  $job := dict "name" .Release.Name "namespace" .Release.Namespace "mx" $mx
  $labels := include "tfjob.labels" $job

Every object is labelled { {{- $labels }},"app.kubernetes.io/component":C}
plus, on a replica type's objects, "training.kubeflow.org/replica-type":T.
*/}}

{{/*
tfjob.labels: (dict "name" J "mx" MX ["userLabels" .Values.labels]) the labels
of every object of the job as JSON members: tfgen's, then the job's own
(metadata.labels) minus those tfgen sets.
*/}}
{{- define "tfjob.labels" -}}
"app.kubernetes.io/instance":"{{ .name }}","app.kubernetes.io/managed-by":"tfgen","app.kubernetes.io/name":"{{ if .mx }}mxjob{{ else }}tfjob{{ end }}","training.kubeflow.org/job-name":"{{ .name }}"
{{- with get . "userLabels" }}
{{- $u := omit . "app.kubernetes.io/component" "app.kubernetes.io/instance" "app.kubernetes.io/managed-by" "app.kubernetes.io/name" "training.kubeflow.org/job-name" "training.kubeflow.org/replica-type" "kueue.x-k8s.io/queue-name" | toJson }}
{{- if ne $u "{}" }},{{ trimPrefix "{" $u | trimSuffix "}" }}{{ end }}
{{- end }}
{{- end }}

{{/*
tfjob.kubeVersion: (the root context) the Kubernetes minor the objects are
for, as MAJOR.MINOR ("1.37"): tfgen.kubeVersion when the values set it, else
the cluster's, .Capabilities.KubeVersion (under helm install and upgrade the
API server's; under helm template its --kube-version, without one Helm's
built-in version; under tfgen render its --kube-version). Version, not
Major and Minor: a server's Minor may read "33+", its Version
"v1.33.4-gke.1245000". A file that decides by version computes it once,
$kubeVersion := include "tfjob.kubeVersion" ., and reads only that.
*/}}
{{- define "tfjob.kubeVersion" -}}
{{- $v := get (get .Values "tfgen" | default dict) "kubeVersion" }}
{{- if not $v }}
{{- $v = regexFind `^v?[0-9]+\.[0-9]+` .Capabilities.KubeVersion.Version | trimPrefix "v" }}
{{- if not $v }}{{ fail (printf "the cluster's Kubernetes version %q (.Capabilities.KubeVersion.Version) has no MAJOR.MINOR: set tfgen.kubeVersion" .Capabilities.KubeVersion.Version) }}{{ end }}
{{- end }}
{{- $v }}
{{- end }}

{{/*
tfjob.roles: (dict "specs" SPECS "types" TYPES "mx" MX) prints the layout in
pkg/cluster.EncodeRoles form, "chief:1:2222,ps:2:2222,worker:3:2222": types
sorted, replicas default 1, port default tfjob.defaultPort, MXTune label
with "%" and "," percent-encoded (pkg/cluster.EncodeRoles).
*/}}
{{- define "tfjob.roles" -}}
{{- range $i, $type := .types }}
{{- $s := get $.specs $type }}
{{- if $i }},{{ end }}{{ lower $type }}:{{ if hasKey $s "replicas" }}{{ int64 $s.replicas }}{{ else }}1{{ end }}:{{ if hasKey $s "port" }}{{ int64 $s.port }}{{ else }}{{ include "tfjob.defaultPort" (dict "spec" $s "mx" $.mx) }}{{ end }}
{{- with get $s "label" }}:{{ . | replace "%" "%25" | replace "," "%2C" }}{{ end }}
{{- end }}
{{- end }}

{{/*
tfjob.defaultPort: (dict "spec" REPLICASPEC "mx" MX) the port of a replica spec
that sets none (values pasted from a Kubeflow spec; tfgen always sets it), as
Kubeflow finds it: the training container's port named tfjob-port
(mxjob-port), else 2222 (9091).
*/}}
{{- define "tfjob.defaultPort" -}}
{{- $port := ternary 9091 2222 .mx }}
{{- $container := ternary "mxnet" "tensorflow" .mx }}
{{- $portName := ternary "mxjob-port" "tfjob-port" .mx }}
{{- range dig "template" "spec" "containers" list .spec }}
{{- if eq (get . "name") $container }}
{{- range get . "ports" | default list }}{{ if eq (get . "name") $portName }}{{ $port = int64 .containerPort }}{{ break }}{{ end }}{{ end }}
{{- break }}
{{- end }}
{{- end }}
{{- $port }}
{{- end }}
