package manifest

import (
	"encoding/json"
	"math"
	"testing"
)

// TestAppendJSON checks AppendJSON against encoding/json.
func TestAppendJSON(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "<a href=\"x\">&amp;</a>", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"é ü 世界 \u2028 \u2029 \ufeff", "bad \xff\xfe utf8 \xe2\x82", int64(-42), 7, int32(3),
		0.0, 1.0, -2.5, 1e-7, 1e21, 1e20, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64, 1e-6,
		[]any{}, []any(nil), []string{"a", "<"}, []string(nil), map[string]any(nil), Object{"kind": "X"},
		map[string]any{"b": 1.0, "a": []any{"x", map[string]any{"z": nil, "&": int64(1)}}, "": "empty", "é": true},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := AppendJSON(nil, v)
		if !ok || string(got) != string(want) {
			t.Errorf("AppendJSON(%#v) = %s, %v; encoding/json: %s", v, got, ok, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), []int{1}, map[string]string{}, struct{}{}, []any{uint(1)}} {
		if _, ok := AppendJSON(nil, v); ok {
			t.Errorf("AppendJSON(%#v) is ok; want encoding/json's", v)
		}
	}
}

// FuzzAppendJSON compares strings and numbers with encoding/json.
func FuzzAppendJSON(f *testing.F) {
	f.Add("<&>\u2028\xff", 1.5, int64(3))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		v := map[string]any{s: []any{s, x, n}}
		want, err := json.Marshal(v)
		got, ok := AppendJSON(nil, v)
		if err != nil {
			if ok {
				t.Fatalf("AppendJSON(%#v) ok; encoding/json: %v", v, err)
			}
			return
		}
		if !ok || string(got) != string(want) {
			t.Fatalf("AppendJSON(%#v) = %s; encoding/json: %s", v, got, want)
		}
	})
}
