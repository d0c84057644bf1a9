# tfgen: render TFJob specs into plain Kubernetes objects.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X github.com/tfgen/tfgen/pkg/version.Version=$(VERSION) -X github.com/tfgen/tfgen/pkg/version.Commit=$(COMMIT)
export PATH := $(BIN):$(PATH)

.PHONY: all build test unit e2e fuzz bench tools lint clean

all: build

build: ## Build tfgen and the static tfsupervisor into bin/.
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/tfgen ./cmd/tfgen
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/tfsupervisor ./cmd/tfsupervisor

tools: ## Install the control plane, etcd and helm into bin/ (pinned, cached).
	@hack/tools/install.sh $(BIN)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }
	$(GO) vet ./...

unit: build
	$(GO) test -count=1 ./pkg/... ./cmd/...

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzRender -fuzztime=20s ./pkg/render/

e2e: build tools
	TFGEN_BIN=$(BIN) $(GO) test -count=1 -timeout 40m ./test/...

test: lint unit fuzz e2e ## Everything CI runs.

bench: build ## Performance table (DESIGN section 7).
	@hack/bench.sh

clean:
	rm -rf $(BIN) dist
