#!/usr/bin/env bash
# bench.sh: tfgen's performance figures (DESIGN section 7) as tables. The
# render part runs the built bin/tfgen (`make build`) and the Go benchmarks
# of pkg/render and pkg/cli; then hack/bench-helm.sh adds helm template against
# tfgen render (SKIP_HELM=1 leaves it out), and hack/bench-supervisor.sh
# tfsupervisor's (SKIP_SUPERVISOR=1).
#
#   hack/bench.sh           # 1,000 jobs, best of 3 runs
#   JOBS=5000 RUNS=5 hack/bench.sh
#
# CPU time is user+system time of the tfgen process, which, unlike elapsed
# time, does not grow when other processes share the machine; it still
# varies with the CPU. Tests never assert times: this script reports them.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TFGEN_BIN:-$PWD/bin}
JOBS=${JOBS:-1000}
RUNS=${RUNS:-3}
tfgen=$BIN/tfgen
[[ -x $tfgen ]] || { echo "bench.sh: $tfgen not found; run make build" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cpu CMD...: the least user+system seconds of RUNS runs of CMD (stdout discarded).
cpu() {
	local best="" t
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null 2>&1
		t=$(awk '{ print $1 + $2 }' "$work/time")
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best"
}

# wall CMD...: the least elapsed seconds of RUNS runs of CMD.
wall() {
	local best="" t
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e' -o "$work/time" "$@" >/dev/null 2>&1
		t=$(cat "$work/time")
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best"
}

# The same typical job (chief, 2 PS, 3 workers) JOBS times, one file each.
mkdir -p "$work/jobs"
for i in $(seq -w 1 "$JOBS"); do
	sed "s/^  name: mnist$/  name: mnist-$i/" examples/tfjob-mnist.yaml >"$work/jobs/job-$i.yaml"
done
many=$(cpu "$tfgen" render -f "$work/jobs")
one=$(cpu "$tfgen" render -f examples/tfjob-mnist.yaml)

# The large example with 3 and with 10,000 workers.
sed 's/^      replicas: 10000$/      replicas: 3/' examples/tfjob-large.yaml >"$work/small.yaml"
"$tfgen" render -f "$work/small.yaml" >"$work/small.out"
"$tfgen" render -f examples/tfjob-large.yaml >"$work/large.out"
small_bytes=$(wc -c <"$work/small.out")
large_bytes=$(wc -c <"$work/large.out")
small_time=$(wall "$tfgen" render -f "$work/small.yaml")
large_time=$(wall "$tfgen" render -f examples/tfjob-large.yaml)

# -o DIR against stdout: the same jobs written one file per object
# (replacing the previous output, as a GitOps re-render does) or as one
# stream into a file. Creating, syncing and removing thousands of files
# costs the file system far more than rendering them costs tfgen, and
# varies with the disk, so -o DIR is compared with stdout plus that same
# file system work done by cp and sync (replacing the previous copy):
# what tfgen adds is its own cost.
stdout_time=$(wall sh -c '"$0" render -f "$1" >"$2"' "$tfgen" "$work/jobs" "$work/stream.yaml")
"$tfgen" render -f "$work/jobs" -o "$work/rendered" # the output each timed run replaces
dir_time=$(wall "$tfgen" render -f "$work/jobs" -o "$work/rendered")
dir_files=$(find "$work/rendered" -type f | wc -l)
cp -r "$work/rendered" "$work/copy" # the copy each timed run replaces
files_time=$(wall sh -c 'rm -rf "$1" && cp -r "$0" "$1" && sync -f "$1"' "$work/rendered" "$work/copy")
dir_ratio=$(awk -v d="$dir_time" -v s="$stdout_time" -v f="$files_time" 'BEGIN { printf "%.2f", (s + f > 0) ? d / (s + f) : 0 }')

# Memory (maximum resident set) rendering one stream of JOBS jobs, and of
# ten times as many: it should stay about flat.
maxrss() { /usr/bin/time -f '%M' -o "$work/time" "$@" >/dev/null 2>&1; awk '{ printf "%.0f", $1 / 1024 }' "$work/time"; }
for f in "$work"/jobs/*.yaml; do cat "$f"; echo '---'; done >"$work/stream1.yaml"
for i in $(seq 10); do sed "s/^  name: mnist-/  name: r$i-mnist-/" "$work/stream1.yaml"; done >"$work/stream10.yaml"
mem_one=$(maxrss "$tfgen" render -f "$work/stream1.yaml")
mem_ten=$(maxrss "$tfgen" render -f "$work/stream10.yaml")

# In-process Go benchmarks: the render step alone, and the whole pipeline.
gobench=$(go test -run '^$' -bench 'BenchmarkRender$|BenchmarkRender10000Workers$' -benchtime 2000x ./pkg/render/ 2>/dev/null
	go test -run '^$' -bench 'BenchmarkRender1000Jobs$' -benchtime 2x ./pkg/cli/ 2>/dev/null)
metric() { awk -v name="$1" -v unit="$2" '$1 ~ "^Benchmark" name "(-[0-9]+)?$" { for (i = 3; i <= NF; i++) if ($i == unit) { print $(i-1); exit } }' <<<"$gobench"; }

ms() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.3f", s * 1000 / n }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "ok" : "OVER" }'; }
row() { printf '| %-58s | %14s | %-12s | %-4s |\n' "$@"; }
line() { printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..60})" "$(printf -- '-%.0s' {1..16})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..6})"; }

per_job=$(ms "$many" "$JOBS")
marginal=$(awk -v m="$many" -v o="$one" -v n="$JOBS" 'BEGIN { printf "%.3f", (m - o) * 1000 / (n - 1) }')
render_only=$(awk -v ns="$(metric Render cpu-ns/op)" 'BEGIN { printf "%.3f", ns / 1e6 }')
pipeline=$(awk -v ns="$(metric Render1000Jobs cpu-ns/job)" 'BEGIN { printf "%.3f", ns / 1e6 }')
large_render=$(awk -v ns="$(metric Render10000Workers cpu-ns/op)" 'BEGIN { printf "%.3f", ns / 1e6 }')

row "tfgen render" "measured" "target" ""
line
row "CPU per job, $JOBS jobs in one tfgen process" "$per_job ms" "<= 1 ms" "$(verdict "$per_job" 1)"
row "  the same, less the process's start (1 job: $(ms "$one" 1) ms)" "$marginal ms" "" ""
row "  in process (pkg/cli BenchmarkRender1000Jobs)" "$pipeline ms" "" ""
row "  of which the render step: values, templates, objects" "$render_only ms" "" ""
row "job with 3 workers: elapsed, output" "${small_time}s, ${small_bytes} B" "" ""
# Only the digits of the replica count may differ (it appears a few times).
row "job with 10,000 workers: elapsed, output" "${large_time}s, ${large_bytes} B" "same size" "$( (( large_bytes - small_bytes <= 64 )) && echo ok || echo OVER)"
row "  10,000 workers, render step alone (pkg/render)" "$large_render ms" "<= 10 ms" "$(verdict "$large_render" 10)"
row "-o DIR ($dir_files files) / (stdout + cp -r and sync): elapsed" "${dir_time}s / (${stdout_time}s + ${files_time}s) = ${dir_ratio}x" "<= 2x" "$(verdict "$dir_ratio" 2)"
row "memory, one stream of $JOBS jobs / of $((JOBS * 10))" "${mem_one} / ${mem_ten} MB" "about flat" "$(awk -v a="$mem_one" -v b="$mem_ten" 'BEGIN { print (b <= 1.5 * a) ? "ok" : "OVER" }')"
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime), $(nproc) CPUs"

if [[ -z ${SKIP_HELM:-} && -x hack/bench-helm.sh ]]; then
	echo
	hack/bench-helm.sh
fi

if [[ -z ${SKIP_SUPERVISOR:-} && -x hack/bench-supervisor.sh ]]; then
	echo
	hack/bench-supervisor.sh
fi
