#!/usr/bin/env bash
# install.sh BIN_DIR: installs the test tools into BIN_DIR, pinned and cached.
#
#   kube-apiserver, kube-controller-manager, kube-scheduler  (hack/tools/kube)
#   etcd                                                     (hack/tools/etcd)
#   helm                                                     (hack/tools/helm)
#   kubelet                                                  (hack/tools/node)
#   coredns                                                  (hack/tools/coredns)
#   kueue, with its CRDs, webhooks and configuration in kueue.d (hack/tools/kueue)
#   containerd, containerd-shim-runc-v2, ctr                 (hack/tools/containerd)
#   prometheus                                               (hack/tools/prometheus)
#
# and, for the tests of tfgen's supported Kubernetes minors (test/versions)
# and clusters of an older minor (test/controlplane's Options.KubeVersion,
# NodeOptions.KubeletVersion), what each older minor's tests run, in
# BIN/kube-1.X/ where nothing takes it for the default minor's:
#
#   kube-1.34: kube-apiserver, kube-controller-manager, kube-scheduler, kubelet
#   kube-1.35: kube-apiserver, kube-controller-manager, kubelet (hack/tools/kube-1.X)
#   kube-1.36: kube-apiserver
#
# and, for the test cluster's node (test/controlplane), runc, the CNI
# plugins and iptables from Debian packages (apt-get, only when missing; a
# non-Debian machine must provide them itself). containerd is built, not
# Debian's: image volumes need containerd 2.1 or later, and Debian 12 has
# 1.6.
#
# Everything else is built from the Go module proxy, each from its own throwaway
# module (committed go.mod/go.sum), so the root go.mod is never touched. A
# stamp file per tool in BIN_DIR records what was built; when it matches and
# the binaries are there, nothing is done. The Kubernetes build takes about
# 8-10 minutes on 2 cores the first time, Prometheus's 5-14, the older
# minors' about 30 CPU-minutes more (measured on 2 cores shared with other
# work: 1.34's four binaries 14-16 minutes, 1.35's two 5-20 (its three,
# with the module cache warm, 3), 1.36's API server 4-8).
set -euo pipefail

# Pinned versions. KUBE_VERSION must match hack/tools/kube/go.mod (regenerate
# it with hack/tools/kube/gen.sh); the others must match their go.mod files.
KUBE_VERSION=v1.37.1 # v1.37.2 source is not served by the module proxy (403).
ETCD_VERSION=v3.7.3
HELM_VERSION=v4.3.1
COREDNS_VERSION=v1.15.0
KUEUE_VERSION=v0.17.0
CONTAINERD_VERSION=v2.4.2
PROMETHEUS_VERSION=v0.316.0 # Prometheus 3.16.0 (the module tags 3.X.Y as v0.3XX.Y).
# Older Kubernetes minors: "VERSION COMMAND..." each, built from module
# hack/tools/kube-1.X (hack/tools/kube/gen.sh VERSION COMMAND...) into
# BIN/kube-1.X/. Only what the tests run: a whole 1.34 cluster (the oldest
# minor tfgen supports, wrap mode's), a 1.35 kubelet (restart rules,
# sidecar mode) beside the 1.37 control plane, a 1.35 controller-manager
# (its type check of deploy/admission-policy.yaml, test/e2e), and an API
# server of every minor for test/versions' server-side dry-runs.
KUBE_OLDER=(
	"v1.34.4 kube-apiserver kube-controller-manager kube-scheduler kubelet"
	"v1.35.4 kube-apiserver kube-controller-manager kubelet"
	"v1.36.3 kube-apiserver"
)
# Debian packages of the node: Debian 12 has runc 1.1.5.
NODE_PACKAGES=(runc containernetworking-plugins iptables)

[[ $# -eq 1 ]] || { echo "usage: $0 BIN_DIR" >&2; exit 2; }
mkdir -p "$1"
BIN=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)

export GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0

if command -v flock >/dev/null; then
	exec 9>"$BIN/.tools.lock"
	flock 9
fi

log() { echo "install.sh: $*" >&2; }

rm -rf "$BIN"/.build-* # left over by an interrupted run

# stamp DIR VERSION: what a build of module DIR at VERSION is keyed on.
stamp() {
	local dir=$1 version=$2
	echo "$version $(cd "$dir" && shopt -s nullglob && cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)"
}

# up_to_date NAME STAMP BINARIES...: true if every binary exists and the
# stamp file of NAME says STAMP.
up_to_date() {
	local name=$1 want=$2 b
	shift 2
	[[ -f $BIN/.$name.stamp && $(<"$BIN/.$name.stamp") == "$want" ]] || return 1
	for b in "$@"; do [[ -x $BIN/$b ]] || return 1; done
}

# build NAME VERSION LDFLAGS PACKAGES...: builds PACKAGES of module
# hack/tools/NAME in one go build (shared packages compile once) into a
# scratch dir, then moves the binaries into BIN (BIN/$INTO with INTO set)
# and writes the stamp.
build() {
	local name=$1 version=$2 ldflags=$3
	shift 3
	local dir=$HERE/$name out=$BIN${INTO:+/$INTO} want bins=() p
	want=$(stamp "$dir" "$version")
	for p in "$@"; do bins+=("${INTO:+$INTO/}$(basename "$p")"); done
	if up_to_date "$name" "$want" "${bins[@]}"; then
		log "${bins[*]} $version: up to date"
		return
	fi
	log "building ${bins[*]} $version ..."
	local tmp start
	tmp=$(mktemp -d "$BIN/.build-$name.XXXXXX")
	start=$(date +%s)
	(cd "$dir" && go build -trimpath -ldflags="$ldflags" -o "$tmp/" "$@")
	mkdir -p "$out"
	for p in "$@"; do mv -f "$tmp/$(basename "$p")" "$out/"; done
	rmdir "$tmp"
	echo "$want" >"$BIN/.$name.stamp"
	log "built ${bins[*]} $version in $(($(date +%s) - start))s"
}

# kube_ldflags VERSION: the linker flags that stamp a Kubernetes build with
# its version, as its release does (kube-apiserver --version, /version).
kube_ldflags() {
	local version=$1 flags="-s -w" p
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		flags+=" -X $p.gitVersion=$version -X $p.gitMajor=1"
		flags+=" -X $p.gitMinor=$(cut -d. -f2 <<<"$version") -X $p.gitTreeState=clean"
	done
	echo "$flags"
}
kube_ldflags=$(kube_ldflags "$KUBE_VERSION")

# minor vX.Y.Z: X.Y.
minor() { cut -d. -f1,2 <<<"${1#v}"; }

# pinned MODULE_DIR REQUIREMENT HINT: fails unless go.mod says REQUIREMENT.
pinned() {
	grep -q "$2" "$HERE/$1/go.mod" || { log "hack/tools/$1/go.mod does not require $2: $3"; exit 1; }
}
pinned kube "k8s.io/kubernetes $KUBE_VERSION" "run hack/tools/kube/gen.sh $KUBE_VERSION"
pinned etcd "go.etcd.io/etcd/server/v3 $ETCD_VERSION" "update it"
pinned helm "helm.sh/helm/v4 $HELM_VERSION" "update it"
pinned node "k8s.io/kubernetes $KUBE_VERSION" "run hack/tools/kube/gen.sh $KUBE_VERSION"
pinned coredns "github.com/coredns/coredns $COREDNS_VERSION" "update it"
pinned kueue "sigs.k8s.io/kueue $KUEUE_VERSION" "update it"
pinned containerd "github.com/containerd/containerd/v2 $CONTAINERD_VERSION" "update it"
pinned prometheus "github.com/prometheus/prometheus $PROMETHEUS_VERSION" "update it"
for older in "${KUBE_OLDER[@]}"; do
	read -ra spec <<<"$older"
	pinned "kube-$(minor "${spec[0]}")" "k8s.io/kubernetes ${spec[0]}" "run hack/tools/kube/gen.sh $older"
	for c in "${spec[@]:1}"; do
		pinned "kube-$(minor "${spec[0]}")" "k8s.io/kubernetes/cmd/$c\$" "run hack/tools/kube/gen.sh $older"
	done
done

# node_packages: installs the missing NODE_PACKAGES with apt-get.
node_packages() {
	local missing=() p
	for p in "${NODE_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [[ ${#missing[@]} -eq 0 ]]; then
		log "${NODE_PACKAGES[*]}: installed"
		return
	fi
	command -v apt-get >/dev/null || { log "install ${missing[*]} (runc, CNI plugins, iptables): no apt-get here"; exit 1; }
	log "installing ${missing[*]} with apt-get ..."
	local sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
		{ "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
}
node_packages

build kube "$KUBE_VERSION" "$kube_ldflags" \
	k8s.io/kubernetes/cmd/kube-apiserver \
	k8s.io/kubernetes/cmd/kube-controller-manager \
	k8s.io/kubernetes/cmd/kube-scheduler
build etcd "$ETCD_VERSION" "-s -w" github.com/tfgen/tfgen/hack/tools/etcd
build helm "$HELM_VERSION" "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" \
	helm.sh/helm/v4/cmd/helm
build node "$KUBE_VERSION" "$kube_ldflags" k8s.io/kubernetes/cmd/kubelet
build coredns "$COREDNS_VERSION" "-s -w" github.com/tfgen/tfgen/hack/tools/coredns
build kueue "$KUEUE_VERSION" "-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" sigs.k8s.io/kueue/cmd/kueue
build containerd "$CONTAINERD_VERSION" "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
	github.com/containerd/containerd/v2/cmd/containerd \
	github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
	github.com/containerd/containerd/v2/cmd/ctr
prom_minor=$(cut -d. -f2 <<<"$PROMETHEUS_VERSION")
prom_release=$((10#$prom_minor / 100)).$((10#$prom_minor % 100)).${PROMETHEUS_VERSION##*.}
build prometheus "$PROMETHEUS_VERSION" "-s -w -X github.com/prometheus/common/version.Version=$prom_release" \
	github.com/prometheus/prometheus/cmd/prometheus

# kueue.d: what Kueue's release manifests hold besides the binary (its CRDs,
# its webhooks and its controller manager's configuration), from the same
# module, for test/admission to install.
kueue_manifests() {
	local want src
	want=$(<"$BIN/.kueue.stamp")
	[[ -f $BIN/kueue.d/.stamp && $(<"$BIN/kueue.d/.stamp") == "$want" ]] && return
	src=$(cd "$HERE/kueue" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
	rm -rf "$BIN/kueue.d" && mkdir -p "$BIN/kueue.d/manager"
	cp -r "$src/config/components/crd" "$src/config/components/webhook" "$BIN/kueue.d/"
	cp "$src/config/components/manager/controller_manager_config.yaml" "$BIN/kueue.d/manager/"
	chmod -R u+w "$BIN/kueue.d"
	echo "$want" >"$BIN/kueue.d/.stamp"
}
kueue_manifests

for older in "${KUBE_OLDER[@]}"; do
	read -ra spec <<<"$older"
	pkgs=()
	for c in "${spec[@]:1}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
	INTO=kube-$(minor "${spec[0]}") build "kube-$(minor "${spec[0]}")" "${spec[0]}" "$(kube_ldflags "${spec[0]}")" "${pkgs[@]}"
done
