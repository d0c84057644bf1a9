package main

import (
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The shape of the tfsupervisor image. The Dockerfile at the repository root
// must agree with these (dockerfile_test.go checks it).
const (
	// BinaryPath is where the image holds the tfsupervisor binary.
	BinaryPath = "/tfsupervisor"
	// WrapBinaryPath is where the image holds tfsupervisor's wrap-only
	// build (go build -tags tfsupervisor_wrap), beside the binary: what
	// `tfsupervisor install` copies for the training container. It is
	// optional (an image without it installs the binary itself).
	WrapBinaryPath = "/tfsupervisor-wrap"
	// BinaryMode is the binary's file mode: readable and executable by all,
	// writable by none.
	BinaryMode = 0o555
	// UID and GID own the binary and run the entrypoint (distroless "nonroot").
	UID, GID = 65532, 65532
	// InstallDir is the shared volume the init container installs into
	// (docs/contract.md: `tfsupervisor install /tfgen/bin`).
	InstallDir = "/tfgen/bin"
	// DefaultSource is the repository the image is built from.
	DefaultSource = "https://github.com/tfgen/tfgen"
)

// OCI label (and index annotation) keys the image carries.
const (
	LabelSource   = "org.opencontainers.image.source"
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
)

// User is the image config's user: numeric, so Kubernetes' runAsNonRoot can
// verify it without a passwd file.
var User = fmt.Sprintf("%d:%d", UID, GID)

// Entrypoint is the image config's entrypoint: install the binary into the
// shared volume.
var Entrypoint = []string{BinaryPath, "install", InstallDir}

// Platforms are the platforms the index holds, in order.
var Platforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// Labels returns the OCI labels for a build of version at revision from
// source.
func Labels(source, version, revision string) map[string]string {
	return map[string]string{
		LabelSource:   source,
		LabelVersion:  version,
		LabelRevision: revision,
	}
}

// parsePlatform parses "os/arch" into a platform.
func parsePlatform(s string) (v1.Platform, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
		return v1.Platform{}, fmt.Errorf("platform %q: want OS/ARCH", s)
	}
	return v1.Platform{OS: os, Architecture: arch}, nil
}
