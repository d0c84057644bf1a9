{{/*
Sidecar mode only. A wrapped training process gets TF_CONFIG (or MX_CONFIG
and DMLC_*) from tfsupervisor at run time; a container that keeps its image
entrypoint gets them here instead, written exactly as pkg/cluster writes them,
with the pod index and namespace left to the kubelet's $(VAR) expansion. A
Go test compares the two for several layouts.
*/}}

{{/*
tfjob.clusterEnv: (dict "root" $ "type" TYPE "mx" BOOL) the cluster env of one
replica type as JSON array members, each with a leading comma.
*/}}
{{- define "tfjob.clusterEnv" -}}
{{- $v := .root.Values }}
{{- $tfgen := get $v "tfgen" | default dict }}
{{- $specs := get $v (ternary "mxReplicaSpecs" "tfReplicaSpecs" .mx) }}
{{- $roles := list }}
{{- $total := 0 }}
{{- range $type := keys $specs | sortAlpha }}
{{- $s := get $specs $type }}
{{- $n := 1 }}{{ if hasKey $s "replicas" }}{{ $n = int $s.replicas }}{{ end }}
{{- $p := 0 }}{{ if hasKey $s "port" }}{{ $p = int $s.port }}{{ else }}{{ $p = include "tfjob.defaultPort" (dict "spec" $s "mx" $.mx) | atoi }}{{ end }}
{{- $total = add $total $n }}
{{- $roles = append $roles (dict "type" (lower $type) "n" $n "port" $p "label" (get $s "label")) }}
{{- end }}
{{- $svc := ".$(TFGEN_POD_NAMESPACE).svc" }}
{{- /* The domain goes into JSON strings that the kubelet expands: it is
       escaped for both, so that it stays data (tfgen validates it as a DNS
       subdomain; values given to Helm may hold anything). */}}
{{- with get $tfgen "clusterDomain" }}{{ $svc = printf "%s.%s" $svc (toJson . | trimPrefix "\"" | trimSuffix "\"" | replace "$" "$$") }}{{ end }}
{{- $ctx := dict "job" .root.Release.Name "t" (lower .type) "roles" $roles "svc" $svc "tfgen" $tfgen "sparse" (get $v "enableDynamicWorker") }}
{{- /* Every address takes over 30 bytes: past 4000 replicas listed, the
       variable cannot fit, so fail before building it. */}}
{{- $listed := $total }}
{{- if and $ctx.sparse (not .mx) }}{{ $listed = 0 }}{{ range $roles }}{{ if eq .type "ps" }}{{ $listed = .n }}{{ end }}{{ end }}{{ end }}
{{- if gt $listed 4000 }}
{{- fail (printf "replica type %s: its %s would list %d replicas, over the kernel's limit for one environment variable; give the container a command so that tfsupervisor computes it at run time%s" .type (ternary "MX_CONFIG" "TF_CONFIG" .mx) $listed (ternary "" ", or set enableDynamicWorker: true for the sparse form" (or .mx (not (empty $ctx.sparse))))) }}
{{- end }}
{{- if .mx }}
{{- dict "name" "MX_CONFIG" "value" (include "tfjob.mxConfig" $ctx) | toJson | printf ",%s" }}
{{- range $roles }}{{ if eq .type "scheduler" }}
{{- $count := dict "server" 0 "worker" 0 }}
{{- range $roles }}{{ $_ := set $count .type .n }}{{ end -}}
,{"name":"DMLC_PS_ROOT_URI","value":"{{ $ctx.job }}-scheduler-0.{{ $ctx.job }}-scheduler{{ $svc }}"},{"name":"DMLC_PS_ROOT_PORT","value":"{{ .port }}"},{"name":"DMLC_NUM_SERVER","value":"{{ $count.server }}"},{"name":"DMLC_NUM_WORKER","value":"{{ $count.worker }}"},{"name":"DMLC_ROLE","value":"{{ $ctx.t }}"},{"name":"DMLC_USE_KUBERNETES","value":"1"}
{{- if eq $ctx.t "worker" }},{"name":"DMLC_WORKER_ID","value":"$(TFGEN_POD_INDEX)"}{{ end }}
{{- end }}{{ end }}
{{- else if gt $total 1 }}
{{- $cfg := include "tfjob.tfConfig" $ctx }}
{{- if gt (len $cfg) 131000 }}
{{- fail (printf "replica type %s: its TF_CONFIG would be %d bytes, over the kernel's limit for one environment variable; set enableDynamicWorker: true so each worker gets the sparse form (itself and the parameter servers only), or give the container a command so that tfsupervisor computes TF_CONFIG at run time" .type (len $cfg)) }}
{{- end }}
{{- dict "name" "TF_CONFIG" "value" $cfg | toJson | printf ",%s" }}
{{- end }}
{{- end }}

{{/*
tfjob.clusterEnvNames: (dict "root" $ "type" TYPE "mx" BOOL) the names of the
cluster env tfgen gives one replica type, comma-separated, as pkg/cluster's
Layout.EnvNames: TF_CONFIG when the job has more than one replica; MX_CONFIG,
and the DMLC_* of a job with a scheduler.
*/}}
{{- define "tfjob.clusterEnvNames" -}}
{{- $specs := get .root.Values (ternary "mxReplicaSpecs" "tfReplicaSpecs" .mx) }}
{{- if .mx }}
{{- $names := list "MX_CONFIG" }}
{{- range $type, $s := $specs }}{{ if eq (lower $type) "scheduler" }}{{ $names = concat $names (list "DMLC_PS_ROOT_URI" "DMLC_PS_ROOT_PORT" "DMLC_NUM_SERVER" "DMLC_NUM_WORKER" "DMLC_ROLE" "DMLC_USE_KUBERNETES") }}{{ end }}{{ end }}
{{- if and (gt (len $names) 1) (eq (lower .type) "worker") }}{{ $names = append $names "DMLC_WORKER_ID" }}{{ end }}
{{- join "," $names }}
{{- else }}
{{- $total := 0 }}
{{- range $type, $s := $specs }}{{ $n := 1 }}{{ if hasKey $s "replicas" }}{{ $n = int $s.replicas }}{{ end }}{{ $total = add $total $n }}{{ end }}
{{- if gt $total 1 }}TF_CONFIG{{ end }}
{{- end }}
{{- end }}

{{/* tfjob.tfConfig: TF_CONFIG of pkg/cluster, dense or sparse (enableDynamicWorker). */}}
{{- define "tfjob.tfConfig" -}}
{{- $job := .job }}{{ $svc := .svc }}{{ $t := .t }}
{{- if .sparse -}}
{"cluster":{"worker":{
{{- if eq $t "worker" }}"$(TFGEN_POD_INDEX)":"{{ $job }}-worker-$(TFGEN_POD_INDEX).{{ $job }}-worker{{ $svc }}:{{ range .roles }}{{ if eq .type "worker" }}{{ .port }}{{ end }}{{ end }}"{{ end -}}
},"ps":[
{{- range .roles }}{{ if eq .type "ps" }}{{ $r := . }}
{{- if eq $t "ps" }}"{{ $job }}-ps-$(TFGEN_POD_INDEX).{{ $job }}-ps{{ $svc }}:{{ $r.port }}"
{{- else if eq $t "worker" }}{{ range $i := until $r.n }}{{ if $i }},{{ end }}"{{ $job }}-ps-{{ $i }}.{{ $job }}-ps{{ $svc }}:{{ $r.port }}"{{ end }}
{{- end }}
{{- end }}{{ end -}}
]}
{{- else -}}
{"cluster":{
{{- $first := true }}
{{- range $r := .roles }}
{{- if not (and (eq $r.type "evaluator") (get $.tfgen "excludeEvaluator")) }}
{{- if not $first }},{{ end }}{{ $first = false }}{{ toJson $r.type }}:[
{{- range $i := until $r.n }}{{ if $i }},{{ end }}"{{ $job }}-{{ $r.type }}-{{ $i }}.{{ $job }}-{{ $r.type }}{{ $svc }}:{{ $r.port }}"{{ end -}}
]
{{- end }}
{{- end -}}
}
{{- end -}}
,"task":{"type":{{ toJson $t }},"index":$(TFGEN_POD_INDEX)},"environment":"cloud"}
{{- end }}

{{/* tfjob.mxConfig: MX_CONFIG of pkg/cluster. */}}
{{- define "tfjob.mxConfig" -}}
{{- $job := .job }}{{ $svc := .svc -}}
{"cluster":{
{{- range $ri, $r := .roles }}{{ if $ri }},{{ end }}{{ toJson $r.type }}:[
{{- range $i := until $r.n }}{{ if $i }},{{ end }}{"url":"{{ $job }}-{{ $r.type }}-{{ $i }}.{{ $job }}-{{ $r.type }}{{ $svc }}","port":{{ $r.port }}}{{ end -}}
]
{{- end -}}
},"labels":{
{{- range $ri, $r := .roles }}{{ if $ri }},{{ end }}{{ toJson $r.type }}:{{ toJson $r.label | replace "$" "$$" }}{{ end -}}
},"task":{"type":{{ toJson .t }},"index":$(TFGEN_POD_INDEX)}}
{{- end }}
