#!/usr/bin/env bash
# bench-helm.sh: `helm template` of charts/tfjob against `tfgen render`,
# per job, GitOps-style: COPIES copies of every example under distinct
# names, one helm process per job (as Argo CD or Flux render a chart per
# application) against one tfgen process for all of them. Both give the
# same objects (test/helm checks it). Needs bin/tfgen (make build) and
# bin/helm (make tools).
#
#   hack/bench-helm.sh           # 20 copies of each example, tfgen best of 3
#   COPIES=50 RUNS=1 hack/bench-helm.sh
#
# CPU time is user+system time of the processes; elapsed time is shown too,
# but grows with whatever else the machine runs. Tests never assert times.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TFGEN_BIN:-$PWD/bin}
COPIES=${COPIES:-20}
RUNS=${RUNS:-3}
tfgen=$BIN/tfgen
helm=$BIN/helm
[[ -x $tfgen ]] || { echo "bench-helm.sh: $tfgen not found; run make build" >&2; exit 1; }
[[ -x $helm ]] || { echo "bench-helm.sh: $helm not found; run make tools" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data

# Every example COPIES times, each document's metadata.name suffixed -NNN;
# beside each job its values for the chart, and its release (name, namespace).
mkdir -p "$work/jobs" "$work/values"
for ex in examples/*.yaml; do
	base=$(basename "$ex" .yaml)
	for i in $(seq -w 1 "$COPIES"); do
		job=$work/jobs/$base-$i.yaml values=$work/values/$base-$i.yaml
		awk -v s="-$i" '/^metadata:/ { m = 1; print; next } m && /^  name: / { print $0 s; m = 0; next } { print }' "$ex" >"$job"
		"$tfgen" values -f "$job" >"$values"
		name=$(sed -n 's/^name: //p' "$values")
		ns=$(sed -n 's/^namespace: //p' "$values")
		echo "$name ${ns:-default} $values" >>"$work/releases"
	done
done
jobs=$(wc -l <"$work/releases")
cat >"$work/helm.sh" <<SCRIPT
set -e
while read -r name ns values; do
	"$helm" template "\$name" charts/tfjob -n "\$ns" -f "\$values" >/dev/null
done <"$work/releases"
SCRIPT

# measure CMD...: "elapsed cpu" seconds, the least of RUNS runs each.
measure() {
	local best_e="" best_c="" e c
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
		read -r e c < <(awk '{ print $1, $2 + $3 }' "$work/time")
		best_e=$(awk -v a="$best_e" -v b="$e" 'BEGIN { print (a == "" || b < a) ? b : a }')
		best_c=$(awk -v a="$best_c" -v b="$c" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best_e $best_c"
}

read -r tfgen_e tfgen_c < <(measure "$tfgen" render -f "$work/jobs")
# helm runs once: hundreds of processes already average out.
read -r helm_e helm_c < <(RUNS=1 measure bash "$work/helm.sh")

ms() { awk -v s="$1" -v n="$jobs" 'BEGIN { printf "%.2f", s * 1000 / n }'; }
ratio() { awk -v h="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0) ? h / t : 0 }'; }
row() { printf '| %-58s | %-30s | %-8s | %-4s |\n' "$@"; }
line() { printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..60})" "$(printf -- '-%.0s' {1..32})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..6})"; }

cpu_ratio=$(ratio "$helm_c" "$tfgen_c")
row "helm template vs tfgen render, per job" "helm / tfgen = ratio" "target" ""
line
row "CPU: $jobs jobs, a helm process each, one tfgen for all" "$(ms "$helm_c") / $(ms "$tfgen_c") ms = ${cpu_ratio}x" ">= 20x" "$( ((cpu_ratio >= 20)) && echo ok || echo UNDER)"
row "  elapsed" "$(ms "$helm_e") / $(ms "$tfgen_e") ms = $(ratio "$helm_e" "$tfgen_e")x" "" ""
echo
echo "$("$helm" version --short 2>/dev/null || echo helm), $COPIES copies of $(ls examples/*.yaml | wc -l) examples; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime), $(nproc) CPUs"
