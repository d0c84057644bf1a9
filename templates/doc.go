// Package templates holds the templates that give every rendered object its
// shape. The same files are the Helm chart's templates (charts/tfjob), so
// they use only what Helm offers: sprig without env and expandenv, include,
// tpl, toYaml, toJson, fromJson, required and fail, .Release and .Values.
//
// Files whose names start with "_" hold named templates only; every other
// .yaml file renders objects. Objects are written as YAML whose leaves are
// plain words, integers or one-line JSON (toJson), which Helm reads as YAML
// and tfgen reads on its fast path.
package templates
