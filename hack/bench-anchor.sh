#!/usr/bin/env bash
# bench-anchor.sh: tfgen beside Kubeflow's training-operator v1.9.0, the
# operator its users leave (issue 25), and JobSet v0.11.0, what Kubeflow
# Trainer v2 runs on, where they are told to go (issue 31).
# hack/anchor/operator.sh builds the operator from the Go module proxy into
# bin/kubeflow, hack/anchor/jobset.sh JobSet's controller into bin/jobset;
# test/anchor's BenchmarkAnchor runs the same job (N workers, every one
# must succeed, `sleep 3`, cleanPodPolicy Running; for JobSet one Indexed
# Job of N pods) through each on a fresh control plane (make tools) with
# node agents as the nodes (110 pods each), and this prints the figures
# and the ratios of tfgen to each anchor as tables. Not part of make test.
#
#   hack/bench-anchor.sh                  # N=100,500,1000, one run each of Kubeflow,
#                                         # JobSet, tfgen (the default render),
#                                         # tfgen-copy (--supervisor-volume copy) and
#                                         # tfgen-pods (--endpoints pod)
#   N=500 RUNS=3 hack/bench-anchor.sh
#   SYSTEMS=tfgen N=100 hack/bench-anchor.sh
#   PROFILE=/tmp/prof hack/bench-anchor.sh  # the API server's CPU profiles
#   PROFILE=/tmp/prof PROFILE_AT=end PROFILE_SECONDS=8 hack/bench-anchor.sh
#                                         # ... from the job's success: the release
#
# Times are wall-clock on a machine the whole cluster shares: run it on a
# quiet one. The API server's CPU is what stays shared in a real cluster.
# Memory: each pod's peak resident set (its processes together, sampled
# every second), the supervisors' alone, and the supervisors' at the
# sample where they held the most on the node, per pod running then, as
# resident (RSS) and proportional (PSS: a page several processes map, such
# as a shared binary's, divided among them) set size.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TFGEN_BIN:-$PWD/bin}
[[ -n ${TABLE:-} || ( -x $BIN/kube-apiserver && -x $BIN/etcd ) ]] || { echo "bench-anchor.sh: no control plane in $BIN; run make tools" >&2; exit 1; }
SYSTEMS=${SYSTEMS:-kubeflow,jobset,tfgen,tfgen-copy,tfgen-pods}
if [[ -z ${TABLE:-} ]]; then
	[[ ,$SYSTEMS, != *,kubeflow,* ]] || hack/anchor/operator.sh "$BIN/kubeflow"
	[[ ,$SYSTEMS, != *,jobset,* ]] || hack/anchor/jobset.sh "$BIN"
fi
[[ -n ${PROFILE:-} ]] && mkdir -p "$PROFILE"

# The runs' figures stay in _output/bench-anchor.runs; TABLE=FILE prints
# the tables of such a file without running anything.
out=${TABLE:-_output/bench-anchor.runs}
if [[ -z ${TABLE:-} ]]; then
	mkdir -p _output
	TFGEN_BIN=$BIN TFGEN_KUBEFLOW_OPERATOR=$BIN/kubeflow TFGEN_ANCHOR_N=${N:-100,500,1000} \
		TFGEN_ANCHOR_SYSTEMS=$SYSTEMS TFGEN_ANCHOR_PROFILE=${PROFILE:-} TFGEN_ANCHOR_PROFILE_AT=${PROFILE_AT:-} \
		TFGEN_ANCHOR_PROFILE_SECONDS=${PROFILE_SECONDS:-${TFGEN_ANCHOR_PROFILE_SECONDS:-30}} \
		go test -run '^$' -bench '^BenchmarkAnchor$' -benchtime 1x -count "${RUNS:-1}" -timeout 0 ./test/anchor |
		tee "$out" | grep -v '^anchor ' || true
fi
grep -q '^anchor ' "$out" || { echo "bench-anchor.sh: no run finished" >&2; exit 1; }

echo
grep '^anchor ' "$out" | awk '
function num(x) { return x + 0 }
# span: "a" or "a–b" over the runs of group g of field f, with format fmt.
function span(g, f, fmt,   lo, hi, i, v) {
	for (i = 1; i <= runs[g]; i++) {
		v = val[g, i, f] + 0
		if (i == 1 || v < lo) lo = v
		if (i == 1 || v > hi) hi = v
	}
	if (sprintf(fmt, lo) == sprintf(fmt, hi)) return sprintf(fmt, lo)
	return sprintf(fmt, lo) "–" sprintf(fmt, hi)
}
function mean(g, f,   s, i) { s = 0; for (i = 1; i <= runs[g]; i++) s += val[g, i, f]; return s / runs[g] }
function exact(g,   i) { for (i = 1; i <= runs[g]; i++) if (val[g, i, "exact"] != "true") return "NO"; return "yes" }
{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); rec[kv[1]] = kv[2] }
	g = rec["n"] SUBSEP rec["system"]
	if (!(g in runs)) { order[++groups] = g; ns[rec["n"]] = 1 }
	r = ++runs[g]
	for (k in rec) val[g, r, k] = rec[k]
	for (k in rec) delete rec[k]
}
END {
	print "| N | system | runs | apply → Succeeded | exact | half released | released | gone after delete | API CPU to Succeeded | API CPU, whole life | per replica | requests | writes | 409 | 429 | 5xx | pods CPU | pods RSS/pod | supervisors RSS/pod | at the node peak: RSS / PSS per pod | all started | operator CPU |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (o = 1; o <= groups; o++) {
		g = order[o]; split(g, p, SUBSEP)
		printf "| %s | %s | %d | %s s | %s | %s s | %s s | %s s | %s s | %s s | %s ms | %s | %s | %s | %s | %s | %s s | %s MB | %s MB | %s / %s MB | %s s | %s s |\n",
			p[1], p[2], runs[g], span(g, "succeeded", "%.1f"), exact(g), span(g, "half_released", "%.1f"), span(g, "released", "%.1f"), span(g, "gone", "%.1f"),
			span(g, "api_cpu_succeeded", "%.1f"), span(g, "api_cpu", "%.1f"), sprintf("%.0f", mean(g, "api_cpu") * 1000 / p[1]),
			span(g, "requests", "%d"), span(g, "writes", "%d"), span(g, "409", "%d"), span(g, "429", "%d"), span(g, "5xx", "%d"),
			span(g, "pods_cpu", "%.1f"), span(g, "rss_per_pod_mb", "%.1f"), span(g, "supervisors_per_pod_mb", "%.1f"),
			span(g, "supervisors_rss_at_peak_mb", "%.1f"), span(g, "supervisors_pss_at_peak_mb", "%.1f"),
			span(g, "started", "%.1f"), span(g, "operator_cpu", "%.1f")
	}
	print ""
	print "tfgen / each anchor, Kubeflow and JobSet (means of the runs; below 1 is tfgen ahead):"
	print ""
	print "| N | system | anchor | apply → Succeeded | released | API CPU to Succeeded | API CPU, whole life | requests | writes | all started |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	split("succeeded released api_cpu_succeeded api_cpu requests writes started", fs, " ")
	split("kubeflow jobset", anchors, " ")
	for (o = 1; o <= groups; o++) {
		split(order[o], p, SUBSEP); n = p[1]; sys = p[2]
		if (sys !~ /^tfgen/) continue
		for (a = 1; a <= 2; a++) {
			k = n SUBSEP anchors[a]
			if (!(k in runs)) continue
			line = "| " n " | " sys " | " anchors[a]
			for (i = 1; i <= 7; i++) {
				d = mean(k, fs[i])
				line = line sprintf(" | %s", d > 0 ? sprintf("%.2f", mean(order[o], fs[i]) / d) : "—")
			}
			print line " |"
		}
	}
}'
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; operator $(cat "$BIN/kubeflow/version" 2>/dev/null || echo -), JobSet $(cat "$BIN/jobset.d/version" 2>/dev/null || echo -)"
