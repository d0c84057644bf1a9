{{/*
Shared helpers. Every object's name derives from the release name (the job
name); lowercase replica types name the per-type objects. Values follow
docs/contract.md: the canonical job plus the `tfgen` settings.
*/}}

{{/* tfjob.mx: "true" when the job is an MXNet job (it has mxReplicaSpecs). */}}
{{- define "tfjob.mx" -}}
{{- if get .Values "mxReplicaSpecs" }}true{{ end }}
{{- end }}

{{/* tfjob.int: (list MAP KEY DEFAULT) prints MAP[KEY] as an integer, DEFAULT when unset or null. */}}
{{- define "tfjob.int" -}}
{{- $m := index . 0 }}{{ $k := index . 1 }}
{{- if and (hasKey $m $k) (not (kindIs "invalid" (get $m $k))) }}{{ int64 (get $m $k) }}{{ else }}{{ index . 2 }}{{ end }}
{{- end }}

{{/*
tfjob.roles: (dict "specs" SPECS "mx" MX) prints the job's layout in
pkg/cluster.EncodeRoles form, "chief:1:2222,ps:2:2222,worker:3:2222", sorted by
type (Helm ranges over map keys in order, and the canonical types sort the
same in either case).
*/}}
{{- define "tfjob.roles" -}}
{{- $port := ternary 9091 2222 .mx }}
{{- range $i, $type := keys .specs | sortAlpha }}
{{- $s := get $.specs $type }}
{{- if $i }},{{ end }}{{ lower $type }}:{{ include "tfjob.int" (list $s "replicas" 1) }}:{{ include "tfjob.int" (list $s "port" $port) }}
{{- with get $s "label" }}:{{ . }}{{ end }}
{{- end }}
{{- end }}

{{/*
tfjob.labels: (dict "root" $ "component" C "type" T "extra" DICT) the labels of
an object as JSON: the job's own labels, then tfgen's, which win.
*/}}
{{- define "tfjob.labels" -}}
{{- $l := omit (get .root.Values "labels" | default dict) }}
{{- $_ := set $l "app.kubernetes.io/name" (ternary "mxjob" "tfjob" (eq (include "tfjob.mx" .root) "true")) }}
{{- $_ = set $l "app.kubernetes.io/instance" .root.Release.Name }}
{{- $_ = set $l "app.kubernetes.io/component" .component }}
{{- $_ = set $l "app.kubernetes.io/managed-by" "tfgen" }}
{{- $_ = set $l "training.kubeflow.org/job-name" .root.Release.Name }}
{{- with get . "type" }}{{ $_ = set $l "training.kubeflow.org/replica-type" . }}{{ end }}
{{- range $k, $v := get . "extra" | default dict }}{{ $_ = set $l $k $v }}{{ end }}
{{- toJson $l }}
{{- end }}

{{/* tfjob.metadata: (dict "root" $ "name" N "component" C "type" T "extra" DICT) name, namespace and labels. */}}
{{- define "tfjob.metadata" -}}
name: {{ .name | toJson }}
{{- with .root.Release.Namespace }}
namespace: {{ . | toJson }}
{{- end }}
labels: {{ include "tfjob.labels" . }}
{{- end }}

{{/* tfjob.selector: (dict "root" $ "type" T) the labels selecting one replica type's pods, as JSON. */}}
{{- define "tfjob.selector" -}}
{{- dict "training.kubeflow.org/job-name" .root.Release.Name "training.kubeflow.org/replica-type" .type | toJson }}
{{- end }}

{{/* tfjob.restricted: the securityContext of tfgen's own containers (restricted Pod Security Standard). */}}
{{- define "tfjob.restricted" -}}
{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"readOnlyRootFilesystem":true,"runAsNonRoot":true,"runAsUser":65532,"seccompProfile":{"type":"RuntimeDefault"}}
{{- end }}
