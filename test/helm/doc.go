// Package helm tests the charts/tfjob chart, and tfgen as a Helm
// post-renderer, with the real helm binary that `make tools` installs
// (bin/helm, or $TFGEN_BIN/helm; the tests fail, never skip, without it):
// the chart's templates are the bytes of templates/, it lints strictly,
// every example installed through the chart gives the objects tfgen render
// gives, bad values fail with the schema's message, and the chart installs,
// tests and uninstalls on the real control plane of test/controlplane. The
// tfgen binary is built by the tests. charts/tfgen-metrics (the metrics
// reader) lints, renders its read-only RBAC, monitor and dashboard as its
// values say, and installs under the restricted Pod Security Standard.
package helm
