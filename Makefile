# tfgen: render TFJob specs into plain Kubernetes objects.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
# Evaluated once, so every artefact of one run carries the same stamp.
VERSION := $(or $(VERSION),$(shell git describe --tags --always --dirty 2>/dev/null),dev)
COMMIT := $(or $(COMMIT),$(shell git rev-parse --short HEAD 2>/dev/null),unknown)
LDFLAGS := -s -w -X github.com/tfgen/tfgen/pkg/version.Version=$(VERSION) -X github.com/tfgen/tfgen/pkg/version.Commit=$(COMMIT)
export PATH := $(BIN):$(PATH)

.PHONY: all build test unit e2e fuzz bench bench-anchor tools tf lint clean image image-test release chart

all: build

build: ## Build tfgen, kubectl-tfjob and the static tfsupervisor into bin/.
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/tfgen ./cmd/tfgen
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/kubectl-tfjob ./cmd/kubectl-tfjob
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/tfsupervisor ./cmd/tfsupervisor

tools: ## Install the control plane, etcd, helm, the kubelet, CoreDNS, Kueue and Prometheus into bin/, and the node's containerd, runc, CNI plugins and iptables with apt-get (pinned, cached).
	@hack/tools/install.sh $(BIN)

# Virtualenvs with TensorFlow and MXNet (make tf), git-ignored. The tests
# find them through TFGEN_TF_VENV and TFGEN_MXNET_VENV.
VENV := $(CURDIR)/.venv
TF_VENV := $(VENV)/tensorflow
MXNET_VENV := $(VENV)/mxnet

tf: ## Install tensorflow-cpu and mxnet into .venv/ (pinned with hashes in hack/python, cached).
	@hack/python/install.sh $(TF_VENV) hack/python/tensorflow/requirements.txt tensorflow tf_keras tensorboard
	@hack/python/install.sh $(MXNET_VENV) hack/python/mxnet/requirements.txt mxnet

chart: ## Copy templates/ into charts/tfjob/templates, the chart's generated copy (test/helm fails on drift).
	@hack/gen-chart.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }
	$(GO) vet ./...

unit: build
	$(GO) test -count=1 ./pkg/... ./cmd/... ./internal/... ./deploy/...

fuzz: ## Short fuzz runs over decoding, rendering, flag values, the -o writer and --roles (execution counts, not durations:
## a -fuzztime duration races the coordinator's deadline in go1.26, golang/go#75804).
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=20000x -fuzzminimizetime=100x ./pkg/dialect/
	$(GO) test -run='^$$' -fuzz=FuzzRender -fuzztime=8000x -fuzzminimizetime=100x ./pkg/render/
	$(GO) test -run='^$$' -fuzz=FuzzRenderFlags -fuzztime=1000x -fuzzminimizetime=100x ./pkg/cli/
	$(GO) test -run='^$$' -fuzz=FuzzDirWriter -fuzztime=1000x -fuzzminimizetime=100x ./pkg/output/
	$(GO) test -run='^$$' -fuzz=FuzzRolesRoundTrip -fuzztime=20000x -fuzzminimizetime=100x ./pkg/cluster/

# test/node runs the jobs on a real kubelet (root, one per machine) with
# the tfsupervisor image `make image` built, imported into containerd.
e2e: build tools tf image
	TFGEN_BIN=$(BIN) TFGEN_TF_VENV=$(TF_VENV) TFGEN_MXNET_VENV=$(MXNET_VENV) TFGEN_IMAGE_TAR=$(IMAGE_DIR).tar \
		$(GO) test -count=1 -timeout 40m ./test/...

test: lint unit fuzz e2e image-test ## Everything CI runs.

bench: build ## Performance table (DESIGN section 7).
	@hack/bench.sh

bench-anchor: build tools ## tfgen beside Kubeflow's training-operator v1.9.0 and JobSet v0.11.0 (built from the Go module proxy): N=100,500,1000 workers, and half of 1000 finishing early (the CPU finished replicas hold); RELEASE=1 for the release check; not part of make test.
	@hack/bench-anchor.sh

IMAGE_DIR ?= $(CURDIR)/_output/image
# The version and commit LDFLAGS was expanded with (once, at parse time), so
# the image's labels always match the binaries even if HEAD moves mid-run.
STAMP = $(patsubst github.com/tfgen/tfgen/pkg/version.$(1)=%,%,$(filter github.com/tfgen/tfgen/pkg/version.$(1)=%,$(LDFLAGS)))
IMAGE_VERSION := $(call STAMP,Version)
IMAGE_COMMIT := $(call STAMP,Commit)
IMAGE_PLATFORMS := linux/amd64 linux/arm64
SOURCE_DATE_EPOCH ?= 0
# xbuild OUTDIR,PKG,PLATFORMS: static binaries at OUTDIR/OS_ARCH/NAME.
xbuild = for p in $(3); do os=$$(dirname $$p); arch=$$(basename $$p); \
	CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(1)/$${os}_$${arch}/ $(2) || exit 1; done

image: ## Build the tfsupervisor image (linux/amd64+arm64 OCI layout in _output/image, no Docker).
	@$(call xbuild,$(CURDIR)/_output/bin,./cmd/tfsupervisor,$(IMAGE_PLATFORMS))
	@$(call xbuild,$(CURDIR)/_output/bin-wrap,-tags tfsupervisor_wrap ./cmd/tfsupervisor,$(IMAGE_PLATFORMS))
	cd hack/image && SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run . build --out $(IMAGE_DIR) --tar $(IMAGE_DIR).tar \
		--version '$(IMAGE_VERSION)' --revision '$(IMAGE_COMMIT)' $(foreach p,$(IMAGE_PLATFORMS),--binary $(p)=$(CURDIR)/_output/bin/$(subst /,_,$(p))/tfsupervisor) \
		$(foreach p,$(IMAGE_PLATFORMS),--wrap-binary $(p)=$(CURDIR)/_output/bin-wrap/$(subst /,_,$(p))/tfsupervisor)

image-test: build image ## Check the built image (hack/image) and that it agrees with the Dockerfile.
	cd hack/image && $(GO) vet ./... && TFGEN_IMAGE_LAYOUT=$(IMAGE_DIR) TFGEN_IMAGE_VERSION='$(IMAGE_VERSION)' TFGEN_IMAGE_REVISION='$(IMAGE_COMMIT)' TFGEN_BIN=$(BIN) $(GO) test -count=1 ./...

release: ## dist/: tfgen and tfsupervisor for linux/darwin amd64/arm64, SHA256SUMS, the image.
	rm -rf dist _output/release && mkdir -p dist
	@$(call xbuild,$(CURDIR)/_output/release,./cmd/tfgen ./cmd/tfsupervisor,linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
	@for d in _output/release/*; do for f in $$d/*; do cp $$f dist/$$(basename $$f)-$$(basename $$d | tr _ -); done; done
	$(MAKE) image IMAGE_DIR=$(CURDIR)/dist/tfsupervisor-image VERSION='$(IMAGE_VERSION)' COMMIT='$(IMAGE_COMMIT)'
	cd dist && sha256sum tfgen-* tfsupervisor-*-* tfsupervisor-image.tar > SHA256SUMS
	@cat dist/SHA256SUMS

clean:
	rm -rf $(BIN) dist $(VENV)
