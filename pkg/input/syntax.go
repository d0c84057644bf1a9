package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// SyntaxError is a malformed document.
type SyntaxError struct {
	// File is the document's file (Stdin for standard input).
	File string
	// Line is the line of File the parser stopped at, from 1.
	Line int
	// Msg is the parser's message, with line numbers made relative to File.
	Msg string
	// Format is "YAML" or "JSON".
	Format string
}

// Error prints "FILE:LINE: invalid YAML: MSG".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: invalid %s: %s", DisplayName(e.File), e.Line, e.Format, e.Msg)
}

// JSON returns the document as JSON: its text when it already is JSON, else
// the YAML converted as Kubernetes does (sigs.k8s.io/yaml). A malformed
// document gives a *SyntaxError.
func (d Document) JSON() ([]byte, error) {
	p, err := d.parse()
	if err != nil {
		return nil, err
	}
	return p.json, nil
}

// Value returns what encoding/json decodes JSON() into with UseNumber,
// without decoding it, when the document was plain YAML; ok=false
// otherwise. The value is handed over: a second call answers ok=false.
func (d Document) Value() (v any, ok bool) {
	p, err := d.parse()
	if err != nil || p.plain == nil {
		return nil, false
	}
	v, p.plain = numbers(p.plain), nil
	return v, true
}

// numbers turns the integers of plain data (as manifest.ParsePlain
// returns it: maps, slices, strings, bools, nil and int64) into
// json.Number, in place.
func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			switch e.(type) {
			case map[string]any, []any, int64:
				t[k] = numbers(e)
			}
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	}
	return v
}

// DuplicateKeys returns a *SyntaxError naming the first mapping key that a
// YAML document defines twice (JSON() keeps the last), or nil.
func (d Document) DuplicateKeys() error {
	p, err := d.parse()
	if err != nil {
		return nil
	}
	return p.dups
}

// parse converts the document once: strictly, and only when that fails
// again laxly, to tell duplicate keys from malformed YAML.
func (d Document) parse() (*parsed, error) {
	if d.parsed != nil {
		return d.parsed, nil
	}
	if err := d.checkExpanded(); err != nil {
		return nil, err
	}
	// encoding/json refuses JSON nested more than MaxDepth deep.
	if t := bytes.TrimSpace(d.Raw); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return &parsed{json: t}, nil
	}
	p, err := d.parseYAML()
	if err != nil {
		return nil, err
	}
	if path, deep := jsonTooDeep(p.json); deep {
		return nil, tooDeep(d.File, d.Line, path)
	}
	return p, nil
}

// parseYAML converts the document as YAML.
func (d Document) parseYAML() (*parsed, error) {
	// Plain YAML (block mappings and sequences of words, numbers and
	// one-line JSON) is read without the full parser; ParsePlain refuses
	// duplicate keys and anything else, left to sigs.k8s.io/yaml. It reads
	// JSON without a limit on depth: a line that could nest too deep is
	// left to the full parser, which refuses it.
	if !deepLine(d.Raw) {
		if m, ok := manifest.ParsePlain(d.Raw); ok {
			if j, ok := manifest.AppendJSON(nil, m); ok && len(j) <= MaxDocumentBytes {
				return &parsed{json: j, plain: m}, nil
			}
		}
	}
	j, strictErr := yaml.YAMLToJSONStrict(d.Raw)
	var dups error
	if strictErr != nil {
		var err error
		if j, err = yaml.YAMLToJSON(d.Raw); err != nil {
			se := d.yamlError(err)
			if isDepthError(se.Msg) {
				return nil, tooDeep(d.File, se.Line, flowPath(d.Raw, se.Line-max(d.Line, 1)+1))
			}
			return nil, se
		}
		dups = d.yamlError(strictErr)
	}
	if len(j) > MaxDocumentBytes {
		return nil, documentTooLarge(d.File, d.Line, "expands to")
	}
	return &parsed{json: j, dups: dups}, nil
}

var (
	lineRE   = regexp.MustCompile(`\bline (\d+)`)
	prefixes = []string{"error converting YAML to JSON:", "yaml:", "unmarshal errors:"}
)

// yamlError turns a parser error into a *SyntaxError, moving the parser's
// line numbers (relative to the document) to lines of the file.
func (d Document) yamlError(err error) *SyntaxError {
	msg := strings.TrimSpace(err.Error())
	for _, p := range prefixes {
		msg = strings.TrimSpace(strings.TrimPrefix(msg, p))
	}
	start := d.Line
	if start < 1 {
		start = 1
	}
	// The YAML parser (not the scanner) counts its "did not find
	// expected ..." lines from 0.
	shift := -1
	if strings.Contains(msg, "did not find expected") {
		shift = 0
	}
	line := start
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			line = start + n + shift
		}
	}
	msg = lineRE.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "line "))
		if err != nil {
			return s
		}
		return "line " + strconv.Itoa(start+n+shift)
	})
	// "line N: " at the start repeats Line.
	if rest, ok := strings.CutPrefix(msg, "line "+strconv.Itoa(line)+":"); ok {
		msg = strings.TrimSpace(rest)
	}
	return &SyntaxError{File: d.File, Line: line, Msg: Shorten(msg), Format: "YAML"}
}

// jsonError is the error of JSON data that failed to decode at the value
// starting at byte start.
func jsonError(file string, data []byte, start int, err error) error {
	var se *json.SyntaxError
	line := 1
	if errors.As(err, &se) {
		line = lineAt(data, int(se.Offset))
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		line = lineAt(data, len(data))
	}
	if isDepthError(err.Error()) {
		path, _ := jsonTooDeep(data[start:])
		return tooDeep(file, line, path)
	}
	return &SyntaxError{File: file, Line: line, Msg: err.Error(), Format: "JSON"}
}
