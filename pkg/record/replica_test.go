package record_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tfgen/tfgen/pkg/record"
)

func TestTail(t *testing.T) {
	long := strings.Repeat("x", 3*record.MaxLogTail)
	lines := strings.Repeat("0123456789\n", 400)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "a\nb\n", "a\nb\n"},
		{"cut at a line", lines, lines[len(lines)-record.MaxLogTail/11*11:]},
		{"one long line keeps its end", long, long[:record.MaxLogTail]},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	} {
		got := record.Tail(tc.in)
		if got != tc.want || len(got) > record.MaxLogTail+2 || !utf8.ValidString(got) {
			t.Errorf("%s: Tail = %d bytes %q..., want %d bytes", tc.name, len(got), got[:min(20, len(got))], len(tc.want))
		}
	}
	// A cut inside a rune starts at the next rune.
	s := strings.Repeat("é", record.MaxLogTail)
	if got := record.Tail(s); !utf8.ValidString(got) || len(got) > record.MaxLogTail || !strings.HasPrefix(got, "é") {
		t.Errorf("runes: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

func TestLogTailAnnotation(t *testing.T) {
	r := record.Replica{State: record.StateFailed, LogTail: "boom\n"}
	got, ok := record.ReplicaFromAnnotations(r.Annotations())
	if !ok || got.LogTail != "boom\n" {
		t.Errorf("round trip: %+v", got)
	}
}
