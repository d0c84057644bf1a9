{{/*
tfjob.podTemplate: (dict "ctx" CTX "type" TYPE "t" LOWERTYPE "spec" REPLICASPEC)
the pod template of one replica type, as one line of JSON. CTX holds the
job-wide facts statefulsets.yaml computes once.

The user's template survives: only the training container changes (its
command wrapped, or kept with a tfsupervisor container beside it), and tfgen
adds its init container, the tfgen-bin volume, GPU mounts, labels,
annotations and scheduling fields. Objects are spliced as JSON text: the
user's fields with toJson, tfgen's as literals.
*/}}
{{- define "tfjob.podTemplate" -}}
{{- $ctx := .ctx }}
{{- $job := $ctx.job }}
{{- $type := .type }}
{{- $t := .t }}
{{- $spec := .spec }}
{{- $tpl := $spec.template }}
{{- $meta := $tpl.metadata | default dict }}
{{- $ps := $tpl.spec }}
{{- $containers := $ps.containers }}
{{- if not $containers }}{{ fail (printf "replica type %s: the pod template has no containers" $type) }}{{ end }}

{{- /* The training container is the one named tensorflow (mxnet), else the first. */}}
{{- $ti := 0 }}
{{- range $i, $c := $containers }}{{ if eq $c.name $ctx.container }}{{ $ti = $i }}{{ break }}{{ end }}{{ end }}
{{- $tc := index $containers $ti }}
{{- $sidecar := not (get $tc "command") }}
{{- if and $sidecar (semverCompare "<1.35-0" $ctx.kubeVersion) }}
{{- fail (printf "replica type %s: container %q has no command, so it would run in sidecar mode, which needs container restart rules (Kubernetes 1.35 or later), but the target is Kubernetes %s; give the container a command, map its image with --image-entrypoints, or target a newer Kubernetes (--kube-version)" $type $tc.name $ctx.kubeVersion) }}
{{- end }}

{{- if and (not $sidecar) (semverCompare "<1.29-0" $ctx.kubeVersion) }}
{{- fail (printf "replica type %s: wrap mode runs tfsupervisor's API-facing half as a native sidecar (an init container with restartPolicy Always, Kubernetes 1.29 or later), but the target is Kubernetes %s; target a newer Kubernetes (--kube-version)" $type $ctx.kubeVersion) }}
{{- end }}
{{- $copy := eq $ctx.supervisorVolume "copy" }}
{{- if not (or $copy (eq $ctx.supervisorVolume "image")) }}{{ fail (printf "tfgen.supervisorVolume %q: want copy or image" $ctx.supervisorVolume) }}{{ end }}
{{- if and (not $copy) (semverCompare "<1.35-0" $ctx.kubeVersion) }}
{{- fail (printf "supervisor volume image: image volumes are on by default from Kubernetes 1.35, but the target is Kubernetes %s; use the copy (--supervisor-volume copy) or target a newer Kubernetes (--kube-version)" $ctx.kubeVersion) }}
{{- end }}
{{- /* The job's API token reaches tfsupervisor's own container only, never
       the training container: the job's ServiceAccount's bound token when
       the pod runs as it, else (the template names the user's account, kept
       for the training container) the job account's token Secret. */}}
{{- $userSA := get $ps "serviceAccountName" | default (get $ps "serviceAccount") }}
{{- $tokenVol := $ctx.projectedToken }}
{{- if $userSA }}{{ $tokenVol = printf `{"name":"tfgen-token","secret":{"defaultMode":420,"secretName":"%s-tfjob-token"}}` $job.name }}{{ end }}
{{- $apiMounts := $ctx.apiMounts }}
{{- $socket := "/tfgen/run/supervisor.sock" }}
{{- /* The container whose exit ends the pod once the job gives it back
       (tfsupervisor --complete): the kubelet restarts it on any exit but
       0 and 3, those of a supervisor done with its replica. */}}
{{- $ends := ternary `,"restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"NotIn","values":[0,3]}}]` "" $ctx.complete }}

{{- /* tfsupervisor flags (docs/contract.md): the job's, then this replica type's. */}}
{{- $policy := get $spec "restartPolicy" | default "Never" }}
{{- $flags := printf `%s,"--replica-type","%s","--restart-policy","%s"` $ctx.flags $t $policy }}
{{- with get $spec "retryableExitCodes" }}{{ $flags = printf `%s,"--retryable-exit-codes","%s"` $flags (join "," .) }}{{ end }}
{{- if hasKey $spec "maxRestarts" }}{{ $flags = printf `%s,"--max-restarts","%d"` $flags (int64 $spec.maxRestarts) }}{{ end }}
{{- $grace := 30 }}{{ if hasKey $ps "terminationGracePeriodSeconds" }}{{ $grace = int64 $ps.terminationGracePeriodSeconds }}{{ end }}
{{- $flags = printf `%s,"--grace-period","%ds"` $flags $grace }}

{{- /* tfsupervisor's identity, in variables of its own: the user's
       POD_NAME and POD_NAMESPACE may hold anything. */}}
{{- $podEnv := $ctx.podEnv }}
{{- /* With tfgen.endpoints pod, the watching supervisor publishes the pod's
       address (its IPs from the downward API) for the type's Service. */}}
{{- $watchFlags := $flags }}
{{- $watchEnv := $podEnv }}
{{- if $ctx.byPod }}
{{- $watchFlags = printf `%s,"--publish-address"` $flags }}
{{- $watchEnv = printf `%s,{"name":"TFGEN_POD_IPS","valueFrom":{"fieldRef":{"fieldPath":"status.podIPs"}}}` $podEnv }}
{{- end }}
{{- $own := $ctx.own }}
{{- /* Locality: tfgen's preferred pod affinity terms, after the
       template's own; the rest of the template's affinity stays as it is.
       A worker (chief, master) is drawn to the job's parameter servers
       (weight 100), every replica to the job's other pods (weight 1), so
       that a parameter server's node outweighs one with more of the job. */}}
{{- $affinity := "" }}
{{- with $ctx.near.topologyKey }}
{{- $terms := list }}
{{- if and $ctx.near.ps (has $type $ctx.near.toPS) }}
{{- $terms = append $terms (dict "weight" 100 "podAffinityTerm" (dict "topologyKey" . "labelSelector" (dict "matchLabels" (dict "training.kubeflow.org/job-name" $job.name "training.kubeflow.org/replica-type" $ctx.near.ps)))) }}
{{- end }}
{{- $terms = append $terms (dict "weight" 1 "podAffinityTerm" (dict "topologyKey" . "labelSelector" (dict "matchLabels" (dict "training.kubeflow.org/job-name" $job.name)))) }}
{{- $user := get $ps "affinity" | default dict }}
{{- $pa := get $user "podAffinity" | default dict }}
{{- $pa = merge (dict "preferredDuringSchedulingIgnoredDuringExecution" (concat (get $pa "preferredDuringSchedulingIgnoredDuringExecution" | default list) $terms)) $pa }}
{{- $affinity = merge (dict "podAffinity" $pa) $user | toJson }}
{{- end }}
{{- $acc := $ctx.accelerators }}
{{- $userVols := get $ps "volumes" }}
{{- $gpuVols := "" }}
{{- $volNames := dict }}
{{- if $acc }}{{ range $userVols | default list }}{{ $_ := set $volNames .name true }}{{ end }}{{ end -}}

{"metadata":{
{{- /* Labels: the user's, then tfgen's (which win). */ -}}
"labels":{"app.kubernetes.io/component":"{{ $t }}","app.kubernetes.io/instance":"{{ $job.name }}","app.kubernetes.io/managed-by":"tfgen","app.kubernetes.io/name":"{{ if $job.mx }}mxjob{{ else }}tfjob{{ end }}","training.kubeflow.org/job-name":"{{ $job.name }}","training.kubeflow.org/replica-type":"{{ $t }}"{{ if has $type (list "Chief" "Master") }},"training.kubeflow.org/job-role":"master"{{ end }}{{ $ctx.podLabels }}
{{- with get $meta "labels" }}{{ $u := omit . "app.kubernetes.io/component" "app.kubernetes.io/instance" "app.kubernetes.io/managed-by" "app.kubernetes.io/name" "training.kubeflow.org/job-name" "training.kubeflow.org/replica-type" "training.kubeflow.org/job-role" "kueue.x-k8s.io/managed" "kueue.x-k8s.io/pod-group-name" "kueue.x-k8s.io/priority-class" "kueue.x-k8s.io/queue-name" "scheduling.x-k8s.io/pod-group" | toJson }}{{ if ne $u "{}" }},{{ trimPrefix "{" $u | trimSuffix "}" }}{{ end }}{{ end -}}
}
{{- if $ctx.annotations }},"annotations":{{ merge (dict) $ctx.annotations (get $meta "annotations" | default dict) | toJson }}
{{- else }}{{ with get $meta "annotations" }},"annotations":{{ toJson . }}{{ end }}{{ end }}
{{- with omit $meta "labels" "annotations" }},{{ toJson . | trimPrefix "{" | trimSuffix "}" }}{{ end -}}
},"spec":{"containers":[

{{- range $i, $c := $containers }}
{{- if $i }},{{ end }}
{{- $env := get $c "env" }}
{{- $mounts := get $c "volumeMounts" }}

{{- /* GPU patching: hostPath volumes, mounts and env for each accelerator
       resource the container asks for. A mount path or variable the
       container has already, its own or one an accelerator added before
       (nvidia.com/gpu and alpha.kubernetes.io/nvidia-gpu share a preset),
       is not added again: the API server refuses two mounts at one path. */}}
{{- $gpuEnv := "" }}{{ $gpuMounts := "" }}
{{- if $acc }}
{{- $lim := dig "resources" "limits" dict $c }}{{ $req := dig "resources" "requests" dict $c }}
{{- $paths := dict }}{{ range $mounts | default list }}{{ $_ := set $paths (get . "mountPath") true }}{{ end }}
{{- $names := dict }}{{ range $env | default list }}{{ $_ := set $names (get . "name") true }}{{ end }}
{{- range $rn, $a := $acc }}
{{- if or (hasKey $lim $rn) (hasKey $req $rn) }}
{{- range $av := get $a "volumes" }}
{{- if not (hasKey $paths $av.mountPath) }}
{{- $gpuMounts = printf `%s,{"mountPath":%s,"name":%s}` $gpuMounts (toJson $av.mountPath) (toJson $av.name) }}
{{- $_ := set $paths $av.mountPath true }}
{{- end }}
{{- if not (hasKey $volNames $av.name) }}
{{- $gpuVols = printf `%s{"hostPath":{"path":%s},"name":%s},` $gpuVols (toJson $av.hostPath) (toJson $av.name) }}
{{- $_ := set $volNames $av.name true }}
{{- end }}
{{- end }}
{{- range $ev := get $a "envVars" | default list }}
{{- if not (hasKey $names $ev.name) }}{{ $gpuEnv = printf "%s,%s" $gpuEnv (toJson $ev) }}{{ $_ := set $names $ev.name true }}{{ end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{- if eq $i $ti }}
{{- /* The training container. tfsupervisor's identity comes first, then
       POD_NAME and POD_NAMESPACE unless the user defines them (as they
       like), so that the user's env may refer to them. A variable of the
       cluster env (TF_CONFIG, MX_CONFIG, DMLC_*) that the user sets is
       left out: tfgen's replaces it, as Kubeflow's operator's did. */}}
{{- $reserved := include "tfjob.clusterEnvNames" (dict "root" $ctx.root "type" $type "mx" $job.mx) | splitList "," }}
{{- $kept := list }}{{ $userNames := dict }}
{{- range $env | default list }}{{ $n := get . "name" }}{{ if not (has $n $reserved) }}{{ $kept = append $kept . }}{{ $_ := set $userNames $n true }}{{ end }}{{ end }}
{{- $envText := $podEnv }}
{{- range list "POD_NAME" "POD_NAMESPACE" }}{{ if not (hasKey $userNames .) }}{{ $envText = printf `%s,{"name":"%s","valueFrom":{"fieldRef":{"fieldPath":"metadata.%s"}}}` $envText . (ternary "name" "namespace" (eq . "POD_NAME")) }}{{ end }}{{ end }}
{{- with $kept }}{{ $envText = printf "%s,%s" $envText (toJson . | trimPrefix "[" | trimSuffix "]") }}{{ end }}
{{- with $gpuEnv }}{{ $envText = printf "%s%s" $envText . }}{{ end }}
{{- $mountText := `{"mountPath":"/tfgen/bin","name":"tfgen-bin","readOnly":true}` }}
{{- with $mounts }}{{ $mountText = printf "%s,%s" (toJson . | trimPrefix "[" | trimSuffix "]") $mountText }}{{ end }}
{{- with $gpuMounts }}{{ $mountText = printf "%s%s" $mountText . }}{{ end }}
{{- if $sidecar }}
{{- /* Sidecar mode: TF_CONFIG (or DMLC_*) by env expansion of the pod index;
       the kubelet restarts the container by its exit code. A container that
       exited 0 has finished its work and is never restarted, so OnFailure
       and Always both restart on a non-zero exit only. */ -}}
{"env":[{{ $envText }},{"name":"TFGEN_POD_INDEX","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['apps.kubernetes.io/pod-index']"}}}{{ include "tfjob.clusterEnv" (dict "root" $ctx.root "type" $type "mx" $job.mx) }}],"volumeMounts":[{{ $mountText }}],"restartPolicy":"Never"
{{- if eq $policy "ExitCode" }},"restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":{{ get $spec "retryableExitCodes" | default (untilStep 128 256 1) | toJson }}}}]
{{- else if or (eq $policy "OnFailure") (eq $policy "Always") }},"restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"NotIn","values":[0]}}]
{{- end }}
{{- /* The end of a failed container's log becomes its termination message,
       where tfsupervisor watch reads it into the replica's record. */}}
{{- if not (hasKey $c "terminationMessagePolicy") }},"terminationMessagePolicy":"FallbackToLogsOnError"{{ end }},{{ omit $c "env" "volumeMounts" "restartPolicy" "restartPolicyRules" | toJson | trimPrefix "{" }}
{{- else -}}
{"env":[{{ $envText }}],"volumeMounts":[{{ $mountText }},{"mountPath":"/tfgen/run","name":"tfgen-run"}],"command":[{{ ternary `"/tfgen/bin/tfsupervisor"` `"/tfgen/bin/tfsupervisor-wrap"` $copy }},"run",{{ $flags }},"--socket","{{ $socket }}","--",{{ toJson $c.command | trimPrefix "[" }}{{ $ends }},{{ omit $c "env" "volumeMounts" "command" "restartPolicy" "restartPolicyRules" | toJson | trimPrefix "{" }}
{{- end }}
{{- else if or $gpuEnv $gpuMounts -}}
{"env":[{{ with $env }}{{ toJson . | trimPrefix "[" | trimSuffix "]" }}{{ end }}{{ if $env }}{{ $gpuEnv }}{{ else }}{{ trimPrefix "," $gpuEnv }}{{ end }}],"volumeMounts":[{{ with $mounts }}{{ toJson . | trimPrefix "[" | trimSuffix "]" }}{{ end }}{{ if $mounts }}{{ $gpuMounts }}{{ else }}{{ trimPrefix "," $gpuMounts }}{{ end }}],{{ omit $c "env" "volumeMounts" | toJson | trimPrefix "{" }}
{{- else }}{{ toJson $c }}
{{- end }}
{{- end }}

{{- if $sidecar -}}
,{"command":["/tfsupervisor","watch",{{ $watchFlags }},"--container",{{ toJson $tc.name }}],"env":[{{ $watchEnv }}],"image":{{ $ctx.image }},"name":"tfsupervisor",{{ $own }}{{ $ends }},"volumeMounts":[{{ $apiMounts }}]}
{{- end -}}
],"initContainers":[
{{- /* tfsupervisor reaches the training container by a copy (an init
       container installs it into the tfgen-bin emptyDir) or, with
       supervisorVolume image, by an image volume of its image. */}}
{{- if $copy }}{"command":["/tfsupervisor","install","/tfgen/bin"],"image":{{ $ctx.image }},"name":"tfgen-install",{{ $own }},"volumeMounts":[{"mountPath":"/tfgen/bin","name":"tfgen-bin"}]},{{ end }}
{{- /* Sidecar mode: the kubelet runs the image's entrypoint, so before it
       does, tfgen-hold checks that the replica may train (a pod recreated
       after the job ended waits here). Wrap mode: tfsupervisor's
       API-facing half, a native sidecar relaying the wrapper's reports. */}}
{{- if $sidecar -}}
{"command":["/tfsupervisor","hold",{{ $flags }}],"env":[{{ $podEnv }}],"image":{{ $ctx.image }},"name":"tfgen-hold",{{ $own }},"volumeMounts":[{{ $apiMounts }}]}
{{- else -}}
{"command":["/tfsupervisor","watch",{{ $watchFlags }},"--socket","{{ $socket }}"],"env":[{{ $watchEnv }}],"image":{{ $ctx.image }},"name":"tfsupervisor","restartPolicy":"Always",{{ $own }},"volumeMounts":[{"mountPath":"/tfgen/run","name":"tfgen-run"},{{ $apiMounts }}]}
{{- end }}
{{- with get $ps "initContainers" }},{{ toJson . | trimPrefix "[" | trimSuffix "]" }}{{ end -}}
],"volumes":[{{ with $userVols }}{{ toJson . | trimPrefix "[" | trimSuffix "]" }},{{ end }}{{ $gpuVols }}{{ if $copy }}{"emptyDir":{"sizeLimit":"64Mi"},"name":"tfgen-bin"}{{ else }}{"image":{"pullPolicy":"IfNotPresent","reference":{{ $ctx.image }}},"name":"tfgen-bin"}{{ end }}
{{- if not $sidecar }},{"emptyDir":{"medium":"Memory","sizeLimit":"1Mi"},"name":"tfgen-run"}{{ end }},{{ $tokenVol }}],"restartPolicy":"Always"
{{- if not $userSA }},"serviceAccountName":"{{ $job.name }}-tfjob","automountServiceAccountToken":false{{ end }}
{{- if and $ctx.schedulerName (not (get $ps "schedulerName")) }},"schedulerName":{{ toJson $ctx.schedulerName }}{{ end }}
{{- if and $ctx.priorityClass (not (get $ps "priorityClassName")) }},"priorityClassName":{{ toJson $ctx.priorityClass }}{{ end }}
{{- if and $ctx.schedulingGroup (not (get $ps "schedulingGroup")) }},"schedulingGroup":{"podGroupName":{{ toJson $ctx.schedulingGroup }}}{{ end }}
{{- with $affinity }},"affinity":{{ . }}{{ end }}
{{- with omit $ps "containers" "initContainers" "volumes" "restartPolicy" (ternary "" "automountServiceAccountToken" (not (empty $userSA))) (ternary "affinity" "" (not (empty $affinity))) }},{{ toJson . | trimPrefix "{" | trimSuffix "}" }}{{ end -}}
}}
{{- end }}
