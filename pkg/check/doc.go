// Package check strictly decodes every rendered object into its k8s.io/api
// type, chosen by group, version and kind: an unknown field, a wrong type or
// a kind tfgen has no type for is a bug in the templates, reported naming
// the object and the field before anything is written. The two PodGroup
// kinds (Volcano, scheduler-plugins) have minimal local types.
//
// Decoding walks the data beside the Go type instead of building the
// decoded value, which keeps the check a small part of rendering; a
// differential test and fuzz test hold it to apimachinery's strict
// converter.
package check
