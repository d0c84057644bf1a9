{{/*
tfjob.podTemplate: (dict "root" $ "type" TYPE "spec" REPLICASPEC "roles" ROLES)
the pod template of one replica type, as JSON. The user's template survives:
only the training container changes (command wrapped, or kept with a
tfsupervisor container beside it), and tfgen adds its init container, the
`tfgen-bin` volume, GPU mounts, labels, annotations and scheduling fields.
*/}}
{{- define "tfjob.podTemplate" -}}
{{- $ := .root }}
{{- $v := $.Values }}
{{- $job := $.Release.Name }}
{{- $type := .type }}
{{- $t := lower $type }}
{{- $spec := .spec }}
{{- $mx := eq (include "tfjob.mx" $) "true" }}
{{- $tfgen := get $v "tfgen" | default dict }}
{{- $rp := get $v "runPolicy" | default dict }}
{{- $sp := get $rp "schedulingPolicy" | default dict }}
{{- $sched := get $v "scheduler" | default dict }}
{{- $gang := get $sched "gang" | default "" }}
{{- $image := required "tfgen.supervisorImage is required" (get $tfgen "supervisorImage") }}
{{- $tpl := get $spec "template" | default dict }}
{{- $meta := get $tpl "metadata" | default dict }}
{{- $ps := get $tpl "spec" | default dict }}
{{- $containers := get $ps "containers" | default list }}
{{- if not $containers }}{{ fail (printf "job %s, replica type %s: the pod template has no containers" $job $type) }}{{ end }}

{{- /* The training container is the one named tensorflow (mxnet), else the first. */}}
{{- $cname := ternary "mxnet" "tensorflow" $mx }}
{{- $ti := -1 }}
{{- range $i, $c := $containers }}{{ if and (lt $ti 0) (eq (get $c "name") $cname) }}{{ $ti = $i }}{{ end }}{{ end }}
{{- if lt $ti 0 }}{{ $ti = 0 }}{{ end }}
{{- $tc := index $containers $ti }}
{{- $sidecar := empty (get $tc "command") }}
{{- if and $sidecar (semverCompare "<1.35-0" (get $tfgen "kubeVersion" | default "1.37")) }}
{{- fail (printf "job %s, replica type %s: container %q has no command, so it runs in sidecar mode, which needs container restart rules (Kubernetes 1.35 or later); kubeVersion is %s. Give the container a command, map its image with --image-entrypoints, or target a newer Kubernetes (--kube-version)" $job $type (get $tc "name") (get $tfgen "kubeVersion")) }}
{{- end }}

{{- /* tfsupervisor flags (docs/contract.md), the same for every replica of this type. */}}
{{- $flags := list "--job" $job "--framework" (ternary "mxnet" "tensorflow" $mx) "--roles" .roles "--replica-type" $t }}
{{- with get $tfgen "clusterDomain" }}{{ $flags = concat $flags (list "--cluster-domain" .) }}{{ end }}
{{- if get $tfgen "excludeEvaluator" }}{{ $flags = append $flags "--exclude-evaluator" }}{{ end }}
{{- if get $v "enableDynamicWorker" }}{{ $flags = append $flags "--sparse" }}{{ end }}
{{- $policy := get $spec "restartPolicy" | default "Never" }}
{{- $flags = concat $flags (list "--restart-policy" $policy) }}
{{- with get $spec "retryableExitCodes" }}{{ $flags = concat $flags (list "--retryable-exit-codes" (join "," .)) }}{{ end }}
{{- if hasKey $spec "maxRestarts" }}{{ $flags = concat $flags (list "--max-restarts" (include "tfjob.int" (list $spec "maxRestarts" 0))) }}{{ end }}
{{- if hasKey $rp "backoffLimit" }}{{ $flags = concat $flags (list "--backoff-limit" (include "tfjob.int" (list $rp "backoffLimit" 0))) }}{{ end }}
{{- if hasKey $rp "activeDeadlineSeconds" }}{{ $flags = concat $flags (list "--active-deadline" (printf "%ss" (include "tfjob.int" (list $rp "activeDeadlineSeconds" 0)))) }}{{ end }}
{{- with get $v "successPolicy" }}{{ $flags = concat $flags (list "--success-policy" .) }}{{ end }}
{{- with get $v "successReplica" }}{{ $flags = concat $flags (list "--success-replica" (printf "%s-%s" (lower .type) (include "tfjob.int" (list . "index" 0)))) }}{{ end }}
{{- $flags = concat $flags (list "--clean-pod-policy" (get $rp "cleanPodPolicy" | default "Running")) }}
{{- if hasKey $rp "ttlSecondsAfterFinished" }}{{ $flags = concat $flags (list "--ttl-after-finished" (printf "%ss" (include "tfjob.int" (list $rp "ttlSecondsAfterFinished" 0)))) }}{{ end }}
{{- $flags = concat $flags (list "--grace-period" (printf "%ss" (include "tfjob.int" (list $ps "terminationGracePeriodSeconds" 30)))) }}

{{- $restricted := include "tfjob.restricted" . | fromJson }}
{{- $ownResources := dict "requests" (dict "cpu" "10m" "memory" "32Mi") "limits" (dict "memory" "64Mi") }}
{{- $podEnv := list (dict "name" "POD_NAME" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.name"))) (dict "name" "POD_NAMESPACE" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.namespace"))) }}
{{- $vols := get $ps "volumes" | default list }}
{{- $acc := get $tfgen "accelerators" | default dict }}
{{- $volNames := dict }}
{{- if $acc }}{{ range $vols }}{{ $_ := set $volNames (get . "name") true }}{{ end }}{{ end }}

{{- $out := list }}
{{- range $i, $c := $containers }}
{{- $env := get $c "env" | default list }}
{{- $mounts := get $c "volumeMounts" | default list }}
{{- $nc := omit $c "env" "volumeMounts" }}

{{- /* GPU patching: hostPath volumes, mounts and env for each accelerator resource the container asks for. */}}
{{- if $acc }}
{{- $res := get $c "resources" | default dict }}
{{- $lim := get $res "limits" | default dict }}
{{- $req := get $res "requests" | default dict }}
{{- range $rn, $a := $acc }}
{{- if or (hasKey $lim $rn) (hasKey $req $rn) }}
{{- range $av := get $a "volumes" | default list }}
{{- $mounts = append $mounts (dict "name" (get $av "name") "mountPath" (get $av "mountPath")) }}
{{- if not (hasKey $volNames (get $av "name")) }}
{{- $vols = append $vols (dict "name" (get $av "name") "hostPath" (dict "path" (get $av "hostPath"))) }}
{{- $_ := set $volNames (get $av "name") true }}
{{- end }}
{{- end }}
{{- range $ev := get $a "envVars" | default list }}{{ $env = append $env (dict "name" (get $ev "name") "value" (get $ev "value")) }}{{ end }}
{{- end }}
{{- end }}
{{- end }}

{{- if eq $i $ti }}
{{- $defined := dict }}
{{- range $env }}{{ $_ := set $defined (get . "name") true }}{{ end }}
{{- $pre := list }}
{{- range $podEnv }}{{ if not (hasKey $defined .name) }}{{ $pre = append $pre . }}{{ end }}{{ end }}
{{- $env = concat $pre $env }}
{{- $mounts = append $mounts (dict "name" "tfgen-bin" "mountPath" "/tfgen/bin" "readOnly" true) }}
{{- if $sidecar }}
{{- /* Sidecar mode: the kubelet restarts the container by exit code, and
       TF_CONFIG (or DMLC_*) comes from env expansion of the pod index. */}}
{{- $index := dict "name" "TFGEN_POD_INDEX" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.labels['apps.kubernetes.io/pod-index']")) }}
{{- $env = concat $env (list $index) (include "tfjob.clusterEnv" (dict "root" $ "type" $type "mx" $mx) | fromJsonArray) }}
{{- $_ := set $nc "restartPolicy" "Never" }}
{{- if eq $policy "ExitCode" }}
{{- $codes := get $spec "retryableExitCodes" | default (untilStep 128 256 1) }}
{{- $_ = set $nc "restartPolicyRules" (list (dict "action" "Restart" "exitCodes" (dict "operator" "In" "values" $codes))) }}
{{- else if or (eq $policy "OnFailure") (eq $policy "Always") }}
{{- /* Always restarts failures only: a container that exited 0 has finished its work. */}}
{{- $_ = set $nc "restartPolicyRules" (list (dict "action" "Restart" "exitCodes" (dict "operator" "NotIn" "values" (list 0)))) }}
{{- end }}
{{- else }}
{{- $_ := set $nc "command" (concat (list "/tfgen/bin/tfsupervisor" "run") $flags (list "--") (get $c "command")) }}
{{- end }}
{{- end }}
{{- if $env }}{{ $_ := set $nc "env" $env }}{{ end }}
{{- if $mounts }}{{ $_ := set $nc "volumeMounts" $mounts }}{{ end }}
{{- $out = append $out $nc }}
{{- end }}

{{- if $sidecar }}
{{- $watch := concat (list "tfsupervisor" "watch") $flags (list "--container" (get $tc "name")) }}
{{- $out = append $out (dict "name" "tfsupervisor" "image" $image "command" $watch "env" $podEnv "resources" $ownResources "securityContext" $restricted) }}
{{- end }}

{{- $install := dict "name" "tfgen-install" "image" $image "command" (list "tfsupervisor" "install" "/tfgen/bin") "resources" $ownResources "securityContext" $restricted "volumeMounts" (list (dict "name" "tfgen-bin" "mountPath" "/tfgen/bin")) }}
{{- $vols = append $vols (dict "name" "tfgen-bin" "emptyDir" (dict "sizeLimit" "64Mi")) }}

{{- $nps := omit $ps "containers" "initContainers" "volumes" "restartPolicy" }}
{{- $_ := set $nps "restartPolicy" "Always" }}
{{- $_ = set $nps "containers" $out }}
{{- $_ = set $nps "initContainers" (concat (list $install) (get $ps "initContainers" | default list)) }}
{{- $_ = set $nps "volumes" $vols }}
{{- if not (or (get $ps "serviceAccountName") (get $ps "serviceAccount")) }}{{ $_ = set $nps "serviceAccountName" (printf "%s-tfjob" $job) }}{{ end }}
{{- if not (get $ps "schedulerName") }}
{{- if eq $gang "volcano" }}{{ $_ = set $nps "schedulerName" "volcano" }}
{{- else if eq $gang "scheduler-plugins" }}{{ $_ = set $nps "schedulerName" (get $sched "schedulerName" | default "scheduler-plugins-scheduler") }}
{{- else }}{{ with get $sched "schedulerName" }}{{ $_ = set $nps "schedulerName" . }}{{ end }}
{{- end }}
{{- end }}
{{- if not (get $ps "priorityClassName") }}{{ with get $sp "priorityClass" }}{{ $_ = set $nps "priorityClassName" . }}{{ end }}{{ end }}

{{- $labels := omit (get $meta "labels" | default dict) }}
{{- $_ = set $labels "app.kubernetes.io/name" (ternary "mxjob" "tfjob" $mx) }}
{{- $_ = set $labels "app.kubernetes.io/instance" $job }}
{{- $_ = set $labels "app.kubernetes.io/component" $t }}
{{- $_ = set $labels "app.kubernetes.io/managed-by" "tfgen" }}
{{- $_ = set $labels "training.kubeflow.org/job-name" $job }}
{{- $_ = set $labels "training.kubeflow.org/replica-type" $t }}
{{- if eq $gang "kueue" }}{{ $_ = set $labels "kueue.x-k8s.io/queue-name" (required "gang scheduling with kueue needs runPolicy.schedulingPolicy.queue" (get $sp "queue")) }}{{ end }}
{{- if eq $gang "scheduler-plugins" }}{{ $_ = set $labels "scheduling.x-k8s.io/pod-group" $job }}{{ end }}
{{- $annotations := omit (get $meta "annotations" | default dict) }}
{{- if eq $gang "volcano" }}{{ $_ = set $annotations "scheduling.k8s.io/group-name" $job }}{{ end }}
{{- if hasKey $sched "priority" }}{{ $_ = set $annotations "scheduler.tensorstack.dev/priority" (include "tfjob.int" (list $sched "priority" 0)) }}{{ end }}
{{- $nmeta := omit $meta "labels" "annotations" }}
{{- $_ = set $nmeta "labels" $labels }}
{{- if $annotations }}{{ $_ = set $nmeta "annotations" $annotations }}{{ end }}
{{- dict "metadata" $nmeta "spec" $nps | toJson }}
{{- end }}
