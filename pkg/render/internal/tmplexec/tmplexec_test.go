package tmplexec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

// data is chart-like: maps, slices, strings, float64 numbers, bools, nil.
func data() map[string]any {
	return map[string]any{
		"Values": map[string]any{
			"name":  "job",
			"n":     3.0,
			"on":    true,
			"off":   false,
			"empty": "",
			"none":  nil,
			"list":  []any{"a", "b", "c"},
			"specs": map[string]any{"Worker": map[string]any{"replicas": 3.0}, "PS": map[string]any{"replicas": 2.0}, "Chief": map[string]any{}},
		},
		"Release": map[string]any{"Name": "r", "Namespace": ""},
	}
}

func funcs() template.FuncMap {
	f := sprig.TxtFuncMap()
	f["include"] = func(string, any) (string, error) { return "", errors.New("include is not bound") }
	return f
}

// parse returns a set of main and the named templates given, with include
// bound as Helm binds it.
func parseSet(t *testing.T, main string, defs ...string) *template.Template {
	t.Helper()
	tt := template.New("main").Funcs(funcs()).Option("missingkey=error")
	var include func(string, any) (string, error)
	tt.Funcs(template.FuncMap{"include": func(name string, v any) (string, error) { return include(name, v) }})
	include = func(name string, v any) (string, error) {
		var b strings.Builder
		err := tt.ExecuteTemplate(&b, name, v)
		return b.String(), err
	}
	template.Must(tt.Parse(main + strings.Join(defs, "")))
	return tt
}

const helpers = `{{ define "labels" }}"name":"{{ .name }}"{{ with get . "extra" }},"extra":{{ toJson . }}{{ end }}{{ end }}` +
	`{{ define "rec" }}{{ if gt . 0 }}{{ include "rec" (sub . 1) }}{{ . }}{{ end }}{{ end }}`

// TestSameAsTextTemplate runs templates on the fast path and with
// text/template: the same output, and the fast path taken.
func TestSameAsTextTemplate(t *testing.T) {
	for _, main := range []string{
		`plain text`,
		`{{ .Values.name }}-{{ .Release.Name }} {{ .Values.n }} {{ .Values.on }} {{ .Values.none }}`,
		`{{ $x := 1 }}{{ $x = add $x 2 }}{{ $x }} {{ 1.5 }} {{ "s" }} {{ true }} {{ 0x10 }} {{ 'a' }}`,
		`{{ if .Values.on }}on{{ else if .Values.off }}off{{ else }}neither{{ end }}`,
		`{{ if .Values.empty }}x{{ else }}empty{{ end }}{{ if .Values.list }}list{{ end }}{{ if .Values.none }}x{{ end }}`,
		`{{ with .Values.name }}{{ . }}{{ end }}{{ with .Values.empty }}x{{ else }}no{{ end }}{{ with $v := .Values.n }}{{ $v }}{{ end }}`,
		`{{ range .Values.list }}[{{ . }}]{{ end }}{{ range $i, $e := .Values.list }}{{ $i }}={{ $e }};{{ end }}`,
		`{{ range $k, $v := .Values.specs }}{{ $k }}:{{ len $v }} {{ end }}{{ range .Values.none }}x{{ else }}none{{ end }}`,
		`{{ range .Values.list }}{{ if eq . "b" }}{{ continue }}{{ end }}{{ if eq . "c" }}{{ break }}{{ end }}{{ . }}{{ end }}`,
		`{{ range $t := keys .Values.specs | sortAlpha }}{{ $t }}={{ get (get $.Values.specs $t) "replicas" | default 1 | int64 }},{{ end }}`,
		`{{ range until 3 }}{{ . }}{{ end }}{{ range $i := untilStep 0 10 4 }}{{ $i }}{{ end }}`,
		`{{ and 1 0 }} {{ and 1 2 }} {{ or 0 "" }} {{ or 0 "x" }} {{ not .Values.on }} {{ .Values.off | and true }}`,
		`{{ eq 1 1 }} {{ eq "a" "b" "a" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.5 }} {{ eq .Values.none .Values.none }}`,
		`{{ len .Values.list }} {{ index .Values.list 1 }} {{ index .Values.specs "PS" "replicas" }} {{ index .Values.specs "x" }}`,
		`{{ printf "%s-%d-%v" .Values.name 3 .Values.list }} {{ print 1 "a" }} {{ println "x" }}`,
		`{{ dict "a" 1 "b" (list 1 "x") | toJson }} {{ omit (dict "a" 1 "b" 2) "a" | toJson }} {{ toJson .Values }}`,
		`{{ $d := dict }}{{ $_ := set $d "k" "v" }}{{ $d.k }} {{ hasKey $d "k" }} {{ merge (dict "a" 1) (dict "b" 2) | toJson }}`,
		`{{ ternary "y" "n" true }} {{ "abc" | trimPrefix "a" | upper }} {{ lower "ABC" | replace "b" "x" }} {{ splitList "," "a,b" | join "+" }}`,
		`{{ include "labels" (dict "name" .Values.name "extra" .Values.list) }}|{{ include "labels" (dict "name" "n") | trimPrefix "\"" }}`,
		`{{ include "rec" 3 }}{{ template "labels" (dict "name" "t") }}`,
		`{{ $l := list }}{{ range .Values.list }}{{ $l = append $l (upper .) }}{{ end }}{{ $l | toJson }} {{ concat $l (list 1) | toJson }}`,
		`{{ dig "specs" "Worker" "replicas" 0 .Values }} {{ empty .Values.empty }} {{ semverCompare ">=1.29-0" "1.35" }}`,
		`{{- /* comment */ -}} a {{- " b " -}} c`,
	} {
		tt := parseSet(t, main, helpers)
		var want bytes.Buffer
		if err := tt.ExecuteTemplate(&want, "main", data()); err != nil {
			t.Fatalf("%s: text/template: %v", main, err)
		}
		var got bytes.Buffer
		if err := Compile(tt, funcs(), "include").Execute(&got, "main", data()); err != nil {
			t.Errorf("%s: fast path: %v", main, err)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n got %q\nwant %q", main, got.String(), want.String())
		}
	}
}

// TestLeftToTextTemplate checks that what the fast path cannot do as
// text/template does makes Execute fail, for text/template to run.
func TestLeftToTextTemplate(t *testing.T) {
	for _, main := range []string{
		`{{ .Values.missing }}`,         // missingkey=error
		`{{ .Values.name.x }}`,          // a field of a string
		`{{ fail "no" }}`,               // an error
		`{{ hasKey .Values.none "x" }}`, // nil for a map parameter
		`{{ eq 1 "a" }}`,                // incompatible types
		`{{ lower .Values.n }}`,         // a float for a string parameter
		`{{ include "nothing" . }}`,     // no such template
		`{{ include "rec" 200 }}`,       // too deep
		`{{ range 3 }}{{ . }}{{ end }}`, // range over an integer
		`{{ html "<" }}`,                // a builtin it does not implement
		`{{ index .Values.list 5 }}`,    // out of range
	} {
		tt := parseSet(t, main, helpers)
		err := Compile(tt, funcs(), "include").Execute(new(bytes.Buffer), "main", data())
		if err == nil {
			t.Errorf("%s: fast path succeeded", main)
		}
	}
}

// TestConcurrent executes one set from several goroutines.
func TestConcurrent(t *testing.T) {
	tt := parseSet(t, `{{ range $i := until 50 }}{{ include "labels" (dict "name" (printf "n%d" $i)) }}{{ end }}`, helpers)
	s := Compile(tt, funcs(), "include")
	var want bytes.Buffer
	if err := tt.ExecuteTemplate(&want, "main", data()); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				var b bytes.Buffer
				if err := s.Execute(&b, "main", data()); err != nil || b.String() != want.String() {
					errs <- fmt.Errorf("got %q, %v", b.String(), err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
