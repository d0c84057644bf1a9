// Package convert holds what every dialect shares on its way to the
// canonical job: the decoding context that collects errors and warnings
// with the user's field paths, strict decoding with unknown-field reports,
// metadata (generateName), replica-type spellings and the replica specs'
// paths, and ports read from pod templates.
package convert
