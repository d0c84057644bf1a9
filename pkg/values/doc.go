// Package values turns a canonical job and the render settings into the
// Helm chart's values (the data every template sees as .Values), and
// answers the questions the Go side shares with the templates: a replica's
// port, its training container, whether it runs in sidecar mode, and the
// job's layout for pkg/cluster.
package values
