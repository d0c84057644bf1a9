package templates

import "embed"

// FS holds the templates; embed skips "_" files unless a pattern names them.
//
//go:embed *.yaml _*.tpl
var FS embed.FS
