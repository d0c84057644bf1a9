// Package render executes the templates for one canonical job and returns
// the objects they describe. It never reads files or flags: it is handed a
// template file system once (New) and a job and settings per call (Render),
// the way Helm's engine is handed a chart.
//
// Templates run with Helm's data shape (.Release.Name, .Release.Namespace,
// .Values, .Capabilities.KubeVersion) and Helm's functions (sprig minus env and expandenv, include,
// tpl, toYaml, toJson, fromYaml, fromJson, required, fail), with
// missingkey=error, so the same files render the same objects under Helm.
//
// They run on a compiled fast path (internal/tmplexec) and, for anything it
// leaves (an error, a value or construct it does not handle exactly as
// text/template would), with text/template, so the output and the errors
// are text/template's either way; TestFastPathSameOutput and FuzzFastPath
// compare the two.
package render
