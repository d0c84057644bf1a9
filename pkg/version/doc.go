// Package version holds the build's version and commit, set by the linker
// (-X github.com/tfgen/tfgen/pkg/version.Version=...), and what derives from
// them: the default tfsupervisor image and the newest Kubernetes minor the
// project tests against.
package version
