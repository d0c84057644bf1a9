// Package schema checks a decoded JSON document against the Go type it will
// be decoded into, the way the Kubernetes API server's field validation
// does: it names every unknown field by its full path (with a "did you
// mean" suggestion for near misses) and every value of the wrong type, all
// in one pass, before the typed decode runs.
package schema
