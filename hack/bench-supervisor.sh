#!/usr/bin/env bash
# bench-supervisor.sh: tfsupervisor's performance figures (DESIGN section 7)
# as a table, from the Go benchmarks of cmd/tfsupervisor (standalone) and,
# when the control plane binaries are installed (`make tools`), of
# test/supervisor (loopback API server).
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
if [[ -x $BIN/kube-apiserver && -x $BIN/etcd ]]; then
	results+=$'\n'$(TFGEN_BIN=$BIN bench ./test/supervisor . "$(( N < 10 ? N : 10 ))x")
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
row "time added before the child starts (median)" "$(metric StartOverhead ms-before-start)" ms 5
row "  start and exit together (median)" "$(metric StartOverhead ms-around)" ms -
row "child exit -> restarted child, zero backoff (median)" "$(metric Restart ms/restart)" ms 10
row "  the same, each exit recorded on the API server" "$(metric RestartWithAPI ms/restart-api)" ms 10
row "chief exit -> other StatefulSets at 0 (loopback)" "$(metric ChiefExitToTeardown ms-teardown)" ms 500
