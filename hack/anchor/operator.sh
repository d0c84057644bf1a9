#!/usr/bin/env bash
# operator.sh DIR: Kubeflow's training-operator (v1.9.0, the last with TFJob)
# built from the Go module proxy into DIR/training-operator, with its TFJob
# CRD beside it (DIR/kubeflow.org_tfjobs.yaml). Kept while DIR/version says
# the same version.
set -euo pipefail
dir=$1
version=${KUBEFLOW_OPERATOR_VERSION:-v1.9.0}
module=github.com/kubeflow/training-operator
if [[ -x $dir/training-operator && -f $dir/kubeflow.org_tfjobs.yaml && $(cat "$dir/version" 2>/dev/null) == "$version" ]]; then
	exit 0
fi
mkdir -p "$dir"
src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "$module@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src ]] || { echo "operator.sh: $module@$version: no source directory" >&2; exit 1; }
echo "operator.sh: building $module@$version ..." >&2
(cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$dir/training-operator" ./cmd/training-operator.v1)
cp "$src/manifests/base/crds/kubeflow.org_tfjobs.yaml" "$dir/"
chmod u+w "$dir/kubeflow.org_tfjobs.yaml"
echo "$version" >"$dir/version"
