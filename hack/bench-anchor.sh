#!/usr/bin/env bash
# bench-anchor.sh: tfgen beside Kubeflow's training-operator v1.9.0, the
# operator its users leave (issue 25), and JobSet v0.11.0, what Kubeflow
# Trainer v2 runs on, where they are told to go (issue 31).
# hack/anchor/operator.sh builds the operator from the Go module proxy into
# bin/kubeflow, hack/anchor/jobset.sh JobSet's controller into bin/jobset;
# test/anchor's BenchmarkAnchor runs the same job (N workers, every one
# must succeed, cleanPodPolicy Running; for JobSet one Indexed Job of N
# pods) through each on a fresh control plane (make tools) with node agents
# as the nodes (110 pods each), and this prints the figures and the ratios
# of tfgen to each anchor as tables. Not part of make test. Two job shapes:
# same (every worker `sleep 3`, requesting nothing) and early (half the
# workers finishing early: `sleep 3` on even ordinals, `sleep 20` on odd,
# 1 CPU requested each), for which it prints the node-seconds of requested
# CPU that finished replicas held after their training ended.
#
#   hack/bench-anchor.sh                  # one run each of Kubeflow, JobSet, tfgen (the
#                                         # default render), tfgen-copy (--supervisor-volume
#                                         # copy) and tfgen-pods (--endpoints pod): the same
#                                         # shape at N=100,500,1000, the early one at 1000
#   N=500 RUNS=3 hack/bench-anchor.sh     # N: both shapes' sizes
#   SYSTEMS=tfgen N=100 hack/bench-anchor.sh
#   SHAPES=early SYSTEMS=kubeflow,jobset,tfgen hack/bench-anchor.sh
#   RELEASE=1 hack/bench-anchor.sh        # the release check: tfgen, the same shape at
#                                         # 1000, five runs, each run's time from Succeeded
#                                         # to every pod holding nothing against 5 s
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
if [[ -n ${RELEASE:-} ]]; then
	SYSTEMS=${SYSTEMS:-tfgen} SHAPES=${SHAPES:-same} N=${N:-1000} RUNS=${RUNS:-5}
fi
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
	TFGEN_BIN=$BIN TFGEN_KUBEFLOW_OPERATOR=$BIN/kubeflow TFGEN_ANCHOR_N=${N:-100,500,1000} TFGEN_ANCHOR_EARLY_N=${N:-1000} \
		TFGEN_ANCHOR_SHAPES=${SHAPES:-same,early} TFGEN_ANCHOR_SYSTEMS=$SYSTEMS TFGEN_ANCHOR_PROFILE=${PROFILE:-} TFGEN_ANCHOR_PROFILE_AT=${PROFILE_AT:-} \
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
	if (!("shape" in rec)) rec["shape"] = "same"   # a file of runs from before the shapes
	if (!("released_after" in rec)) rec["released_after"] = rec["released"] - rec["succeeded"]
	g = rec["shape"] SUBSEP rec["n"] SUBSEP rec["system"]
	if (!(g in runs)) { order[++groups] = g; ns[rec["n"]] = 1 }
	r = ++runs[g]
	for (k in rec) val[g, r, k] = rec[k]
	for (k in rec) delete rec[k]
}
END {
	for (o = 1; o <= groups; o++) { split(order[o], p, SUBSEP); shapes[p[1]] = 1 }
	if ("same" in shapes) {
		print "| N | system | runs | apply → Succeeded | exact | half released | released | gone after delete | API CPU to Succeeded | API CPU, whole life | per replica | requests | writes | 409 | 429 | 5xx | pods CPU | pods RSS/pod | supervisors RSS/pod | at the node peak: RSS / PSS per pod | all started | operator CPU |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (o = 1; o <= groups; o++) {
			g = order[o]; split(g, p, SUBSEP)
			if (p[1] != "same") continue
			printf "| %s | %s | %d | %s s | %s | %s s | %s s | %s s | %s s | %s s | %s ms | %s | %s | %s | %s | %s | %s s | %s MB | %s MB | %s / %s MB | %s s | %s s |\n",
				p[2], p[3], runs[g], span(g, "succeeded", "%.1f"), exact(g), span(g, "half_released", "%.1f"), span(g, "released", "%.1f"), span(g, "gone", "%.1f"),
				span(g, "api_cpu_succeeded", "%.1f"), span(g, "api_cpu", "%.1f"), sprintf("%.0f", mean(g, "api_cpu") * 1000 / p[2]),
				span(g, "requests", "%d"), span(g, "writes", "%d"), span(g, "409", "%d"), span(g, "429", "%d"), span(g, "5xx", "%d"),
				span(g, "pods_cpu", "%.1f"), span(g, "rss_per_pod_mb", "%.1f"), span(g, "supervisors_per_pod_mb", "%.1f"),
				span(g, "supervisors_rss_at_peak_mb", "%.1f"), span(g, "supervisors_pss_at_peak_mb", "%.1f"),
				span(g, "started", "%.1f"), span(g, "operator_cpu", "%.1f")
		}
		print ""
	}
	print "Released after Succeeded (every pod bound to a node Succeeded, Failed or gone), each run, against the target:"
	print ""
	print "| shape | N | system | runs | each run | target | every run within it |"
	print "|---|---|---|---|---|---|---|"
	for (o = 1; o <= groups; o++) {
		g = order[o]; split(g, p, SUBSEP)
		target = val[g, 1, "release_target"] != "" ? val[g, 1, "release_target"] + 0 : 5
		each = ""; over = 0
		for (i = 1; i <= runs[g]; i++) {
			v = val[g, i, "released_after"] + 0
			each = each (i > 1 ? ", " : "") sprintf("%.2f", v)
			if (v > target) over++
		}
		printf "| %s | %s | %s | %d | %s s | ≤ %s s | %s |\n", p[1], p[2], p[3], runs[g], each, target, over ? sprintf("NO (%d of %d over)", over, runs[g]) : "yes"
	}
	if ("early" in shapes) {
		print ""
		print "Half the workers finishing early (`sleep 3` on even ordinals, `sleep 20` on odd, 1 CPU requested each, every worker must succeed):"
		print "the requested CPU that the pods of finished replicas held (bound to a node, not Succeeded or Failed) from the end of the replica'"'"'s"
		print "training (by the node'"'"'s clock) until they held nothing (by the API server), in node-seconds; ideal 0 (Kubeflow'"'"'s Completed pods hold none):"
		print ""
		print "| N | system | runs | apply → Succeeded | exact | replicas ended | CPU held by finished replicas | ideal | a replica held: median / longest | replicas over the hold target | released after Succeeded | API CPU to Succeeded | writes |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (o = 1; o <= groups; o++) {
			g = order[o]; split(g, p, SUBSEP)
			if (p[1] != "early") continue
			ended = span(g, "ended", "%d")
			for (i = 1; i <= runs[g]; i++) if (val[g, i, "ended"] != p[2]) { ended = ended " (NOT all)"; break }
			again = 0; open = 0
			for (i = 1; i <= runs[g]; i++) { again += val[g, i, "again"]; open += val[g, i, "held_open"] }
			if (again) ended = ended sprintf(" (%d trained again)", again)
			if (open) ended = ended sprintf(" (%d pods still held at the end)", open)
			printf "| %s | %s | %d | %s s | %s | %s | %s node-s | 0 | %s / %s s | %s (> %s s) | %s s | %s s | %s |\n",
				p[2], p[3], runs[g], span(g, "succeeded", "%.1f"), exact(g), ended, span(g, "held_cpu", "%.1f"),
				span(g, "held_median", "%.2f"), span(g, "held_max", "%.2f"), span(g, "held_over", "%d"), val[g, 1, "hold_target"],
				span(g, "released_after", "%.2f"), span(g, "api_cpu_succeeded", "%.1f"), span(g, "writes", "%d")
		}
	}
	if ("same" in shapes) {
		print ""
		print "tfgen / each anchor, Kubeflow and JobSet (means of the runs; below 1 is tfgen ahead):"
		print ""
		print "| N | system | anchor | apply → Succeeded | released | API CPU to Succeeded | API CPU, whole life | requests | writes | all started |"
		print "|---|---|---|---|---|---|---|---|---|---|"
		ratios("same", "succeeded released api_cpu_succeeded api_cpu requests writes started")
	}
	if ("early" in shapes) {
		print ""
		print "Half the workers finishing early, tfgen / each anchor (means of the runs; below 1 is tfgen ahead):"
		print ""
		print "| N | system | anchor | CPU held by finished replicas | a replica held, median | apply → Succeeded | released after Succeeded | API CPU to Succeeded | writes |"
		print "|---|---|---|---|---|---|---|---|---|"
		ratios("early", "held_cpu held_median succeeded released_after api_cpu_succeeded writes")
	}
}
# ratios prints, for each tfgen system of shape, a line per anchor run at
# the same N: the mean of each of fields (space-separated) over the
# anchor'"'"'s, "—" where the anchor'"'"'s is 0.
function ratios(shape, fields,   fs, nf, anchors, o, p, n, sys, a, k, line, i, d) {
	nf = split(fields, fs, " ")
	split("kubeflow jobset", anchors, " ")
	for (o = 1; o <= groups; o++) {
		split(order[o], p, SUBSEP); n = p[2]; sys = p[3]
		if (p[1] != shape || sys !~ /^tfgen/) continue
		for (a = 1; a <= 2; a++) {
			k = shape SUBSEP n SUBSEP anchors[a]
			if (!(k in runs)) continue
			line = "| " n " | " sys " | " anchors[a]
			for (i = 1; i <= nf; i++) {
				d = mean(k, fs[i])
				line = line sprintf(" | %s", d > 0 ? sprintf("%.2f", mean(order[o], fs[i]) / d) : "—")
			}
			print line " |"
		}
	}
}'
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; operator $(cat "$BIN/kubeflow/version" 2>/dev/null || echo -), JobSet $(cat "$BIN/jobset.d/version" 2>/dev/null || echo -)"
