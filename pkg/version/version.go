package version

import "fmt"

// Set at link time; see the Makefile and the Dockerfile.
var (
	// Version is the release (a git tag), or "dev".
	Version = "dev"
	// Commit is the short git commit.
	Commit = "unknown"
)

// Image is the repository of the tfsupervisor image.
const Image = "ghcr.io/tfgen/tfsupervisor"

// KubeVersion is the newest Kubernetes minor the project tests against, the
// default of --kube-version.
const KubeVersion = "1.37"

// SupervisorImage returns the tfsupervisor image of this build.
func SupervisorImage() string { return Image + ":" + Version }

// String describes the build.
func String() string { return fmt.Sprintf("tfgen %s (commit %s)", Version, Commit) }
