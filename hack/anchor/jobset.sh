#!/usr/bin/env bash
# jobset.sh BIN: JobSet's controller manager (v0.11.0: what Kubeflow Trainer
# v2 runs on) built from the Go module proxy into BIN/jobset, with its
# release's manifests (config/components crd/, webhook/ and the manager's
# configuration) in BIN/jobset.d, for test/controlplane's Options.JobSet.
# Kept while BIN/jobset.d/version says the same version.
set -euo pipefail
bin=$1
version=${JOBSET_VERSION:-v0.11.0}
module=sigs.k8s.io/jobset
if [[ -x $bin/jobset && $(cat "$bin/jobset.d/version" 2>/dev/null) == "$version" ]]; then
	exit 0
fi
src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$module@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src ]] || { echo "jobset.sh: $module@$version: no source directory" >&2; exit 1; }
echo "jobset.sh: building $module@$version ..." >&2
(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X $module/pkg/version.GitVersion=$version" -o "$bin/jobset" .)
rm -rf "$bin/jobset.d" && mkdir -p "$bin/jobset.d/manager"
cp -r "$src/config/components/crd" "$src/config/components/webhook" "$bin/jobset.d/"
cp "$src/config/components/manager/controller_manager_config.yaml" "$bin/jobset.d/manager/"
chmod -R u+w "$bin/jobset.d"
echo "$version" >"$bin/jobset.d/version"
