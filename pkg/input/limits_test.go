package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// aliasBomb is a document of about size bytes whose aliases of one string
// of strLen bytes expand to n*strLen bytes.
func aliasBomb(strLen, n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &a " + strings.Repeat("x", strLen) + "\nlist:\n")
	for range n {
		b.WriteString("- *a\n")
	}
	return b.String()
}

// laughs is the classic nested "billion laughs": each level lists ten
// aliases of the one before.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 lol\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// nested is a map levels deep, written as a block (each level indented
// two spaces more: 25 MB at 5,000 levels) or in flow style (30 kB).
func nested(levels int, flow bool) string {
	if flow {
		return "a: " + strings.Repeat("{a: ", levels) + "1" + strings.Repeat("}", levels) + "\n"
	}
	var b strings.Builder
	for i := range levels {
		b.WriteString(strings.Repeat("  ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat("  ", levels) + "1\n")
	return b.String()
}

// TestExpandedLimit: a document is held to MaxDocumentBytes both as
// written and as JSON with its aliases expanded.
func TestExpandedLimit(t *testing.T) {
	tests := []struct {
		name, doc string
		want      string // "" for no error
	}{
		{name: "aliases of one long string", doc: aliasBomb(100_000, 200),
			want: "bomb.yaml:3: the document expands to more than 8 MiB, the most tfgen reads in one document"},
		{name: "nested aliases", doc: laughs(9),
			want: "bomb.yaml:3: the document expands to more than 8 MiB, the most tfgen reads in one document"},
		{name: "a document too long as written", doc: "a: " + strings.Repeat("x", MaxDocumentBytes) + "\n",
			want: "bomb.yaml:3: the document holds more than 8 MiB, the most tfgen reads in one document"},
		{name: "a deep block map, long for its indentation", doc: nested(5000, false),
			want: "bomb.yaml:3: the document holds more than 8 MiB, the most tfgen reads in one document"},
		{name: "the same map in flow style", doc: nested(5000, true)},
		{name: "aliases under the limit", doc: aliasBomb(1000, 200)},
		{name: "nested aliases under the limit", doc: laughs(2)},
		{name: "anchors and stars that are no aliases", doc: "command: [sh, -c, 'ls *.txt && echo &done']\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Document{File: "bomb.yaml", Line: 3, Raw: []byte(tt.doc)}.JSON()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) || err.Error() != tt.want {
				t.Fatalf("got %v, want *LimitError %q", err, tt.want)
			}
		})
	}
}

// endless repeats its text forever.
type endless struct {
	text string
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.text[e.off]
		e.off = (e.off + 1) % len(e.text)
	}
	return len(p), nil
}

func collect(t *testing.T, ctx context.Context, paths []string, stdin io.Reader) (docs int, errs []error) {
	t.Helper()
	for _, err := range All(ctx, paths, stdin) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs++
	}
	return docs, errs
}

// TestInputLimit: endless input ends in one error, whatever it holds.
func TestInputLimit(t *testing.T) {
	tooLarge := "<stdin>: input is larger than 64 MiB, the most tfgen reads from one file or standard input; split it into several files"
	for _, tc := range []struct {
		name  string
		input io.Reader
	}{
		{"zeros, one endless line (as /dev/zero)", &endless{text: "\x00"}},
		{"endless empty documents", &endless{text: "---\n"}},
		{"endless lines of one document", &endless{text: "a: b\n"}},
		{"endless JSON", &endless{text: "[1,"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := collect(t, context.Background(), []string{Stdin}, tc.input)
			if len(errs) == 0 {
				t.Fatal("no error")
			}
			last := errs[len(errs)-1]
			var le *LimitError
			if !errors.As(last, &le) || (last.Error() != tooLarge && !strings.Contains(last.Error(), "more than 8 MiB")) {
				t.Errorf("errors %v: want a *LimitError last", errs)
			}
			if len(errs) > 2 {
				t.Errorf("%d errors, want at most 2: %v", len(errs), errs[:3])
			}
		})
	}
}

func TestLargeFileRefusedUnread(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxInputBytes + 1); err != nil { // sparse: nothing to read but zeros
		t.Fatal(err)
	}
	f.Close()
	_, errs := collect(t, context.Background(), []string{p}, nil)
	want := p + ": input is larger than 64 MiB, the most tfgen reads from one file or standard input; split it into several files"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors %v, want %q", errs, want)
	}
}

// TestLongDocumentSkipped: a document over the limit is one error, and the
// documents after it are still read.
func TestLongDocumentSkipped(t *testing.T) {
	stream := "kind: A\n---\nx: " + strings.Repeat("y", MaxDocumentBytes) + "\n---\nkind: B\n"
	docs, errs := collect(t, context.Background(), []string{Stdin}, strings.NewReader(stream))
	if docs != 2 || len(errs) != 1 || errs[0].Error() != "<stdin>:2: the document holds more than 8 MiB, the most tfgen reads in one document" {
		t.Errorf("got %d documents and errors %v", docs, errs)
	}
}

// TestAllStreams: a document is yielded as soon as the next one starts,
// before the rest of the input exists.
func TestAllStreams(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	got := make(chan string)
	go func() {
		for d, err := range All(context.Background(), []string{Stdin}, r) {
			if err != nil {
				got <- err.Error()
				continue
			}
			got <- strings.TrimSpace(string(d.Raw))
		}
		close(got)
	}()
	for _, want := range []string{"kind: A", "kind: B"} {
		if _, err := fmt.Fprintf(w, "%s\n---\n", want); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-got:
			if d != want {
				t.Fatalf("got %q, want %q", d, want)
			}
		case <-time.After(time.Minute): // a bound on failure, not a synchronisation
			t.Fatalf("document %q not yielded while the input stays open", want)
		}
	}
}

// TestAllStopsWithContext: a read that would wait forever ends with the
// context's cause.
func TestAllStopsWithContext(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop")
	done := make(chan []error)
	go func() {
		_, errs := collect(t, ctx, []string{Stdin}, r)
		done <- errs
	}()
	if _, err := io.WriteString(w, "kind: A\n"); err != nil { // read: All is waiting for more
		t.Fatal(err)
	}
	cancel(cause)
	if errs := <-done; len(errs) != 1 || !errors.Is(errs[0], cause) {
		t.Errorf("errors %v, want the context's cause", errs)
	}
}

// TestAllJSONAndFlowStreams: a stream that starts like JSON is JSON when
// it parses as such, else YAML in flow style, from a pipe as from a file.
func TestAllJSONAndFlowStreams(t *testing.T) {
	for _, tc := range []struct {
		stream string
		want   []string
	}{
		{"\xef\xbb\xbf  {\"kind\": \"A\"}\n{\"kind\": \"B\"}\n", []string{`{"kind": "A"}`, `{"kind": "B"}`}},
		{"{kind: A}\n---\n{kind: B}\n", []string{"{kind: A}", "{kind: B}"}},
	} {
		var got []string
		for d, err := range All(context.Background(), []string{Stdin}, io.MultiReader(strings.NewReader(tc.stream))) {
			if err != nil {
				t.Fatalf("%q: %v", tc.stream, err)
			}
			got = append(got, strings.TrimSpace(string(d.Raw)))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: got %q, want %q", tc.stream, got, tc.want)
		}
	}
}
