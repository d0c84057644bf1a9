package manifest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseFast checks that whatever the fast path accepts, the full
// parser reads the same way.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{statefulSet, "a:\n- b\n- c: d\n  e: [1]\n", `k: {"a":["x",1,null,true]}`, "a: b\n", "m: 2Gi\nc: 1.5k\nx: 0x1F\ny: 1e3\nz: 1_0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		fast, ok := parseFast([]byte(doc))
		if !ok {
			return
		}
		slow, err := parseSlow([]byte(doc))
		if err != nil {
			t.Fatalf("fast path accepted what sigs.k8s.io/yaml refuses (%v):\n%q", err, doc)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("fast parse differs (-slow +fast):\n%s\n%q", diff, doc)
		}
	})
}

// FuzzQuote checks that every string survives a trip through our YAML
// writer and sigs.k8s.io/yaml, as a value, a key and a list item.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "yes", "1e3", "a: b", "x\ny\n", `{"a":1}`, "2Gi", "-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		doc := map[string]any{"v": s, "l": []any{s}}
		if s != "" {
			doc[s] = "k"
		}
		b, err := MarshalYAML(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseSlow(b)
		if err != nil {
			t.Fatalf("cannot read back %q: %v\n%s", s, err, b)
		}
		if diff := cmp.Diff(Object(doc), got); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s\n%s", s, diff, b)
		}
	})
}

// FuzzJSON checks the fast JSON reader against encoding/json.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2,"x\u00e9\n",true,null,{}]}`, `"\ud83d\ude00"`, `[]`, `{"a":1,"a":2}`, `1.5`, `"\/"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseJSON(s)
		if !ok {
			return
		}
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("accepted %q, encoding/json refuses: %v", s, err)
		}
		want, err := Normalize(want)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-encoding/json +fast):\n%s", s, diff)
		}
	})
}

// TestParseFastDigitWords compares the fast path with sigs.k8s.io/yaml on
// plain words starting with a digit, as keys and values.
func TestParseFastDigitWords(t *testing.T) {
	words := []string{"2Gi", "1.5G", "500m", "0A", "0XA", "0xA", "1e3", "1E3G", "1e3G", "0b1", "0o7", "07", "1_0", "12h",
		"1inf", "1nan", "1.2.3", "1.", "2001-12-14", "1:20", "3Ki", "100Mi", "1Ei", "1ee", "1.5e3x", "9223372036854775808Z"}
	for _, w := range words {
		for _, doc := range []string{"k: " + w + "\n", w + ": v\n", "l:\n- " + w + "\n"} {
			fast, ok := parseFast([]byte(doc))
			if !ok {
				continue
			}
			slow, err := parseSlow([]byte(doc))
			if err != nil {
				t.Errorf("%q: fast path accepted what sigs.k8s.io/yaml refuses: %v", doc, err)
				continue
			}
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("%q (-slow +fast):\n%s", doc, diff)
			}
		}
	}
}

// FuzzYAML11Special checks yaml11Special against its definition.
func FuzzYAML11Special(f *testing.F) {
	for _, s := range []string{"Yes", "NULL", "oFf", "yeſ", "\u212aey", "n", "truE", "falsE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		if len(s) <= 5 {
			switch strings.ToLower(s) {
			case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
				want = true
			}
		}
		if got := yaml11Special(s); got != want {
			t.Fatalf("yaml11Special(%q) = %v", s, got)
		}
	})
}

// FuzzDecodeJSON checks DecodeJSON against json.Unmarshal.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2,"x\u00e9\n",true,null,{}]}`, `{"a":-0}`, `{"a":9007199254740993}`, `{"a":1,"a":2}`, `{"a":1.5}`, `{"\u003c":"\/"}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := DecodeJSON([]byte(s))
		if !ok {
			return
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("accepted %q, encoding/json refuses: %v", s, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-encoding/json +fast):\n%s", s, diff)
		}
		if w, g := fmt.Sprint(want), fmt.Sprint(got); w != g {
			t.Fatalf("%q: %s, encoding/json %s", s, g, w)
		}
	})
}
