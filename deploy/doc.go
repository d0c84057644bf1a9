// Package deploy holds what a cluster administrator installs once beside
// tfgen's jobs: admission-policy.yaml, the optional ValidatingAdmissionPolicies
// that hold a job's account to what tfsupervisor does. The package has no
// code; its tests check the policies against the Kubernetes API types.
package deploy
