// Package kube holds the Kubernetes types tfsupervisor reads and writes
// (minimal local types, JSON as the API server speaks it), the API's
// errors and the one retry policy of every call. The HTTP client that
// makes the calls is package rest.
//
// Neither imports client-go nor apimachinery. Their typed clients
// register every API group (a 26 MB binary); even their REST client alone
// costs about 2 ms of package initialisation at every start of the
// supervisor, which is on the path to the training process (DESIGN
// section 7 allows 5 ms), and 6 MB.
package kube
