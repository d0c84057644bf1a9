{{/*
Shared helpers of the tfgen-metrics chart.

No object of this chart is labelled app.kubernetes.io/managed-by=tfgen: the
exporter counts the pods and ConfigMaps so labelled, and must not count its
own.
*/}}

{{/*
tfgen-metrics.fullname: the name of every namespaced object, a DNS label:
the release name when it already says tfgen-metrics, else
RELEASE-tfgen-metrics.
*/}}
{{- define "tfgen-metrics.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{/*
tfgen-metrics.selectorLabels: the labels the Deployment, the Service and the
ServiceMonitor select the exporter's pod by.
*/}}
{{- define "tfgen-metrics.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
tfgen-metrics.labels: the labels of every object.
*/}}
{{- define "tfgen-metrics.labels" -}}
{{ include "tfgen-metrics.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: metrics
app.kubernetes.io/part-of: tfgen
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/*
tfgen-metrics.namespace: the namespace whose jobs are counted ("" with
allNamespaces).
*/}}
{{- define "tfgen-metrics.namespace" -}}
{{- if .Values.allNamespaces -}}
{{- if .Values.namespace -}}
{{- fail "set namespace or allNamespaces, not both: allNamespaces counts the jobs of every namespace" -}}
{{- end -}}
{{- else -}}
{{- .Values.namespace | default .Release.Namespace -}}
{{- end -}}
{{- end }}

{{/*
tfgen-metrics.clusterName: the name of the ClusterRole and its binding,
which are cluster-wide: the release namespace keeps two releases of one
name apart.
*/}}
{{- define "tfgen-metrics.clusterName" -}}
{{- printf "%s-%s" .Release.Namespace (include "tfgen-metrics.fullname" .) -}}
{{- end }}

{{/*
tfgen-metrics.withLabels: (list . EXTRA) the labels of every object plus the
map EXTRA, as YAML; the chart's own win, so that no extra label makes the
exporter count its own pod or changes what selects it.
*/}}
{{- define "tfgen-metrics.withLabels" -}}
{{- $own := include "tfgen-metrics.labels" (index . 0) | fromYaml }}
{{- mustMergeOverwrite (deepCopy (index . 1 | default dict)) $own | toYaml }}
{{- end }}
