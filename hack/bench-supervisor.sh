#!/usr/bin/env bash
# bench-supervisor.sh: tfsupervisor's performance figures (DESIGN section 7)
# as a table, from the Go benchmarks of cmd/tfsupervisor (standalone) and,
# when the control plane binaries are installed (`make tools`), of
# test/supervisor (loopback API server), with a table of large jobs (N
# real supervisors; LARGE_N=100,500,1000 by default, SKIP_LARGE=1 leaves
# it out), and `tfgen metrics` beside a job of METRICS_N workers (1000;
# SKIP_METRICS=1 leaves it out). The job restart rows (restart scope Job)
# run 2 and 100 real supervisors, 3 runs each.
#
#   hack/bench-supervisor.sh            # N=50 runs per figure
#   N=200 hack/bench-supervisor.sh
#
# Times are wall-clock and suffer from other load on the machine (run it on
# a quiet one; do not run Go builds under real-time priority: on two CPUs,
# the linker can spin for many minutes). The
# "stamp" child (cmd/tfsupervisor/testdata/stamp) records when it starts
# and exits, so start and restart latencies are measured from the outside
# of the supervisor but to the child's main.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-50}
BIN=${TFGEN_BIN:-$PWD/bin}

bench() { go test -run '^$' -bench "$2" -benchtime "$3" "$1" 2>/dev/null | grep '^Benchmark' || true; }

# metric NAME UNIT: the value reported with UNIT by benchmark NAME.
metric() {
	awk -v name="$1" -v unit="$2" '
		$1 ~ "^Benchmark" name "(-[0-9]+)?$" { for (i = 3; i <= NF; i++) if ($i == unit) { print $(i-1); exit } }' <<<"$results"
}

results=$(bench ./cmd/tfsupervisor . "${N}x")
large=""
if [[ -x $BIN/kube-apiserver && -x $BIN/etcd ]]; then
	results+=$'\n'$(TFGEN_BIN=$BIN bench ./test/supervisor 'ChiefExitToTeardown|RestartWithAPI|RestartRelayed' "$(( N < 10 ? N : 10 ))x")
	results+=$'\n'$(TFGEN_BIN=$BIN TFGEN_RESTART_N=2,100 bench ./test/supervisor 'JobRestart' 3x)
	results+=$'\n'$(TFGEN_BIN=$BIN bench ./test/supervisor 'PodMemory' 3x)
	results+=$'\n'$(TFGEN_BIN=$BIN TFGEN_RESIZE=${RESIZE:-100-200} bench ./test/operate 'Resize' 1x)
	if [[ -z ${SKIP_LARGE:-} ]]; then
		large=$(TFGEN_BIN=$BIN TFGEN_LARGE_N=${LARGE_N:-100,500,1000} bench ./test/supervisor 'LargeJob' 1x)
	fi
	if [[ -z ${SKIP_METRICS:-} ]]; then
		results+=$'\n'$(TFGEN_BIN=$BIN TFGEN_LARGE_N=${METRICS_N:-1000} bench ./test/supervisor 'MetricsReader' 1x)
	fi
fi

row() { # row WHAT VALUE UNIT TARGET
	local what=$1 value=$2 unit=$3 target=$4 verdict
	if [[ -z $value ]]; then
		printf '| %-52s | %12s | %8s | %-10s |\n' "$what" "n/a" "" "(not run)"
		return
	fi
	verdict=$(awk -v v="$value" -v t="$target" 'BEGIN { print (t == "-") ? "" : (v <= t) ? "ok" : "OVER" }')
	[[ $target == - ]] && target="" || target="<= $target"
	printf '| %-52s | %9.2f %-2s | %8s | %-10s |\n' "$what" "$value" "$unit" "$target" "$verdict"
}

printf '| %-52s | %12s | %8s | %-10s |\n' "tfsupervisor" "measured" "target" ""
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..10})" "$(printf -- '-%.0s' {1..12})"
row "binary size (stripped, static)" "$(metric BinarySize MB)" MB 12
row "resident memory supervising (VmHWM, standalone)" "$(metric Memory MB-hwm)" MB 20
row "resident memory supervising (VmRSS, API client)" "$(metric ChiefExitToTeardown MB-rss-api)" MB 20
row "wrap-mode pod, keeper's: both supervisors (VmRSS)" "$(metric PodMemory MB-rss-pod-keeper)" MB 12
row "  run --socket (wrap-only build)" "$(metric PodMemory MB-rss-wrap-keeper)" MB -
row "  watch --socket (native sidecar, keeper)" "$(metric PodMemory MB-rss-sidecar-keeper)" MB -
row "  both: peak (VmHWM)" "$(metric PodMemory MB-hwm-pod-keeper)" MB -
row "  both: anonymous (heap, stacks, runtime)" "$(metric PodMemory MB-anon-pod-keeper)" MB -
row "  both: file pages (the binaries' text and data)" "$(metric PodMemory MB-file-pod-keeper)" MB -
row "  CPU time of both, start and 5 s quiet" "$(metric PodMemory ms-cpu-pod-keeper)" ms -
row "wrap-mode pod, a worker's: both supervisors (VmRSS)" "$(metric PodMemory MB-rss-pod-worker)" MB 12
row "  watch --socket (native sidecar)" "$(metric PodMemory MB-rss-sidecar-worker)" MB -
row "time added before the child starts (median)" "$(metric StartOverhead ms-before-start)" ms 5
row "  start and exit together (median)" "$(metric StartOverhead ms-around)" ms -
row "child exit -> restarted child, zero backoff (median)" "$(metric Restart ms/restart)" ms 10
row "  the same, each exit recorded on the API server" "$(metric RestartWithAPI ms/restart-api)" ms 10
row "  the same, relayed by wrap mode's sidecar" "$(metric RestartRelayed ms/restart-relay)" ms 10
row "output to the log, child alone (MiB/s, median)" "$(metric Output MiB/s-direct)" "" -
row "  the same through wrap mode's capture (tee, tail kept)" "$(metric Output MiB/s-captured)" "" -
row "chief exit -> other StatefulSets at 0 (loopback)" "$(metric ChiefExitToTeardown ms-teardown)" ms 500
row "job restart: failing exit -> 2 workers running again" "$(metric JobRestart/N=2 ms-all-running-again)" ms -
row "  the same, 100 workers (in place, no pod recreated)" "$(metric JobRestart/N=100 ms-all-running-again)" ms -
row "resize ${RESIZE:-100-200} workers: all training with the new layout" "$(metric Resize s-resized)" s -
row "  pods recreated by the resize (node agent)" "$(metric Resize pods-recreated)" "" 0
row "tfgen metrics beside a job of ${METRICS_N:-1000} workers: API writes" "$(metric MetricsReader/N=${METRICS_N:-1000} writes-reader)" "" 0
row "  its watches (records, pods)" "$(metric MetricsReader/N=${METRICS_N:-1000} watches-reader)" "" 2
row "  its lists (client-go lists within the watch)" "$(metric MetricsReader/N=${METRICS_N:-1000} lists-reader)" "" -
row "  its CPU time, the job's whole life" "$(metric MetricsReader/N=${METRICS_N:-1000} ms-cpu-reader)" ms -
row "  per replica" "$(metric MetricsReader/N=${METRICS_N:-1000} us-cpu/replica)" us -
row "  its memory (VmRSS)" "$(metric MetricsReader/N=${METRICS_N:-1000} MB-rss-reader)" MB -

# Large jobs (issue 12): N real supervisors as the pods of one job, on the
# loopback API server. Every figure is over one run; the targets are the
# ones for N = 1,000.
echo
printf '| %-6s | %14s | %9s | %13s | %13s | %11s | %6s | %13s |\n' "large" "writes/replica" "409s" "s beyond" "s after last" "stop all" "exact" "CPU/replica"
printf '| %-6s | %14s | %9s | %13s | %13s | %11s | %6s | %13s |\n' "N" "(<= 4)" "(<= N/10)" "training (<=10)" "trains" "(<= 2000 ms)" "" "(sup.+server)"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "--------" "----------------" "-----------" "-----------------" "---------------" "-------------" "--------" "---------------"
if [[ -z $large ]]; then
	echo "| (not run: no control plane, or SKIP_LARGE) |"
fi
while read -r name _ _ _ rest; do
	[[ $name == BenchmarkLargeJob/N=* ]] || continue
	n=${name#BenchmarkLargeJob/N=}; n=${n%%-*}
	get() { awk -v unit="$1" '{ for (i = 2; i <= NF; i++) if ($i == unit) { print $(i-1); exit } }' <<<"$rest"; }
	printf '| %-6s | %14.2f | %9.0f | %13.1f | %13.2f | %8.0f ms | %6s | %10.1f ms |\n' "$n" "$(get writes/replica)" "$(get conflicts)" \
		"$(get s-beyond-training)" "$(get s-after-last-trains)" "$(get ms-stop-all)" "$( [[ $(get exact) == 1 || $(get exact) == 1.000 ]] && echo yes || echo NO)" "$(get ms-cpu/replica)"
done <<<"$large"
echo "(s beyond training: from starting N supervisors to the job's end in its status, less the 3 s each trains; it is"
echo " bound by this machine's $(nproc) cores, which run every supervisor and the API server. s after last trains: from"
echo " the last training process's end to the job's end in its status. stop all: from the chief's exit to the last"
echo " of N workers' training processes stopped, no pod deleted.)"

