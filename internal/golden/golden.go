// Package golden compares test output with golden files; `go test ... -update`
// rewrites them instead.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Updating reports whether the test run rewrites golden files.
func Updating() bool { return *update }

// Assert compares got with the file at path. An empty got asserts that the
// file does not exist, so that golden files are kept only for output that
// is there (stderr, say). With -update it writes or removes the file.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && len(got) == 0 {
		return
	}
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got; run with -update to accept):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}
