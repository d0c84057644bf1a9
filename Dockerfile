# syntax=docker/dockerfile:1
# The tfsupervisor image: the init container of every rendered job copies the
# binary into the pod's shared volume (docs/contract.md).
#
# `make image` builds the same image without Docker (hack/image); a test in
# hack/image checks that this file keeps the same path, mode, user,
# entrypoint and labels. Multi-platform with BuildKit:
#
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg COMMIT=$(git rev-parse --short HEAD) -t REGISTRY/tfsupervisor:TAG --push .

ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS TARGETARCH
ARG VERSION=dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Two builds: the binary, and its wrap-only build (tag tfsupervisor_wrap:
# tfsupervisor run alone, without the API client), which `tfsupervisor
# install` copies for the training container because it holds less memory.
RUN for tags in "" tfsupervisor_wrap; do \
      CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -tags "$tags" \
        -ldflags "-s -w -X github.com/tfgen/tfgen/pkg/version.Version=${VERSION} -X github.com/tfgen/tfgen/pkg/version.Commit=${COMMIT}" \
        -o /out/tfsupervisor${tags:+-wrap} ./cmd/tfsupervisor || exit 1; \
    done

FROM scratch
ARG VERSION=dev
ARG COMMIT=unknown
LABEL org.opencontainers.image.source="https://github.com/tfgen/tfgen" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
COPY --from=build --chmod=0555 --chown=65532:65532 /out/tfsupervisor /tfsupervisor
COPY --from=build --chmod=0555 --chown=65532:65532 /out/tfsupervisor-wrap /tfsupervisor-wrap
USER 65532:65532
ENTRYPOINT ["/tfsupervisor", "install", "/tfgen/bin"]
